#!/usr/bin/env python3
"""perf/criteria.py DIR [DIR...] -- issue 11's targets against quiet windows.

DIR is what `perf/quiet_window.sh NAME` wrote (perf/results/NAME/): the
compare CSVs at 2 and 4 ranks, limits' memcpy, model.py's table, the
small-size verdicts, the progress-thread overlap and graph_bench launches.
Prints one markdown table, a row per target: what was measured and "met" /
"NOT met"; given several windows, a row per target and a column per window
(x = met), to see which targets hold from window to window.  Every figure is read from the files by its
column name, so a column added to a benchmark cannot shift what is read.

The targets (issue 11, "What it must show"):
  - 2 ranks, 1-64 MiB: allreduce busbw >= 1.4x the best MPI and >= 0.5 of
    limits' one-core memcpy; bcast, allgather, alltoall, reduce and
    reduce_scatter >= 1.2x the best MPI.  Where 1.2x (1.4x, 0.5 memcpy) is
    above the bytes-moved model's bound (model.py's table, the bound it
    uses), the target is >= 0.85 of the bound instead.
  - 4 ranks, 256 KiB-4 MiB: no collective slower than the best MPI.
  - sizes <= 64 KiB: no cell "worse" than before issue 11
    (small_ratio_sum.py's verdict, ratio to Open MPI).
  - graph_bench -m overlap, idle compute, the default policy (comm_first):
    "vs max()" (total against max(sum of the computes, the allreduces back
    to back), the issue's ideal) <= 1.10 in every launch at 2 and 4 ranks;
    compute_first is printed beside it.
  - PLX_PROGRESS=thread plx_perf --overlap -b 1M -e 64M: idle overlap
    >= 0.9 at every size, in every launch.
"""
import csv
import math
import os
import re
import sys
from collections import defaultdict

MiB = 1 << 20


def tr(x):
    """x cut (not rounded) to 3 decimals: 1.1998 against a 1.2 target reads 1.199"""
    return f"{math.floor(x * 1000) / 1000:.3f}"


def fmt(b):
    return f"{b // MiB} MiB" if b >= MiB else f"{b >> 10} KiB"


def compare(path):
    """(collective, bytes) -> {library: (time_us, busbw)}"""
    t = defaultdict(dict)
    if not os.path.exists(path):
        return t
    with open(path) as f:
        for r in csv.DictReader(f):
            t[(r['collective'], int(r['bytes']))][r['library']] = (float(r['time_us']), float(r['busbw_gbps']))
    return t


def best_mpi(d):
    """the best MPI's (time, busbw) in one cell, or None"""
    mpis = [v for k, v in d.items() if k != 'plexus']
    return min(mpis) if mpis else None


def memcpy_gbps(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['metric'] == 'memcpy_gbps':
                return float(r['value'])
    return None


def model_bounds(path):
    """(collective, bytes) -> the bound model.py uses (GB/s)"""
    b = {}
    if not os.path.exists(path):
        return b
    for line in open(path):
        m = re.match(r'\|\s*(\w+)\s*\|\s*(\d+) MiB\s*\|\s*([\d.]+) / ([\d.]+) \(uses (\w+)', line)
        if m:
            four, huge = float(m.group(3)), float(m.group(4))
            b[(m.group(1), int(m.group(2)) * MiB)] = huge if m.group(5) == 'huge' else four
    return b


def small_verdict(path):
    """the number of cells small_ratio_sum.py called worse, and its line"""
    if not os.path.exists(path):
        return None, 'missing'
    for line in open(path):
        m = re.match(r'- after against before: (\d+) worse, (.*?):', line) or \
            re.match(r'- after against before: (\d+) worse, (.*)', line)
        if m:
            return int(m.group(1)), f"{m.group(1)} worse, {m.group(2)}"
    return None, 'no verdict line'


def overlap_launches(path):
    """[{bytes: idle overlap}] per launch (the first 'overlap' column of the header)"""
    launches, col = [], None
    for line in open(path) if os.path.exists(path) else []:
        if line.startswith('# launch'):
            launches.append({})
        elif line.startswith('#') and 'size(B)' in line:
            col = line.split().index('overlap') - 1   # the data rows lack the '#'
        elif col is not None and launches and re.match(r'\s+\d', line):
            f = line.split()
            launches[-1][int(f[0])] = float(f[col])
    return launches


def graph_launches(path, column='vs max()'):
    """[{policy: value}] per launch, idle compute, by the header's column name"""
    launches, names = [], None
    for line in open(path) if os.path.exists(path) else []:
        if line.startswith('# launch'):
            launches.append({})
        elif line.startswith('kind '):
            names = re.split(r'\s{2,}', line.strip())
        elif names and launches and line.startswith('idle ') and column in names:
            f = line.split()
            if len(f) == len(names):
                launches[-1][f[1]] = float(f[names.index(column)])
    return launches


def targets(d):
    """[(target, measured, met?)] for one window directory"""
    rows = []

    def row(target, measured, ok):
        rows.append((target, measured, bool(ok)))

    n2 = compare(os.path.join(d, 'big-n2.csv'))
    mc = memcpy_gbps(os.path.join(d, 'limits-sizes.csv'))
    bounds = model_bounds(os.path.join(d, 'model-n2.md'))

    def against(c, b, p, target, what):
        """one 2-rank cell against `target` x what (busbw); None if met
        outright, else (met by the model's fallback?, text)"""
        if p >= target * what:
            return None
        bd = bounds.get((c, b))
        if bd is None:
            return False, f"{c} {fmt(b)} no model bound"
        frac = p / bd
        if target * what > bd:
            return frac >= 0.85, f"{c} {fmt(b)}: target {target * what:.2f} above the bound {bd:.2f}, Plexus {frac:.2f} of it"
        return False, f"{c} {fmt(b)}: target {target * what:.2f} under the bound {bd:.2f}, Plexus {p:.2f}"

    for colls, target in ((('allreduce',), 1.4), (('bcast', 'allgather', 'alltoall', 'reduce', 'reduce_scatter'), 1.2)):
        for c in colls:
            cells = sorted(b for (cc, b) in n2 if cc == c)
            ratios, notes, ok = [], [], bool(cells)
            for b in cells:
                p, m = n2[(c, b)].get('plexus'), best_mpi(n2[(c, b)])
                if not p or not m:
                    ok = False
                    continue
                ratios.append(tr(m[0] / p[0]))
                a = against(c, b, p[1], target, m[1])
                if a:
                    ok = ok and a[0]
                    notes.append(a[1] + (" (met by the bound)" if a[0] else ""))
            row(f"2 ranks {c} >= {target}x best MPI, 1-64 MiB", " / ".join(ratios) + ("; " + "; ".join(notes) if notes else ""), ok)
            if c == 'allreduce' and mc:
                fr, notes, ok = [], [], bool(cells)
                for b in cells:
                    p = n2[(c, b)].get('plexus')
                    if not p:
                        ok = False
                        continue
                    fr.append(tr(p[1] / mc))
                    a = against(c, b, p[1], 0.5, mc)
                    if a:
                        ok = ok and a[0]
                        notes.append(a[1])
                row(f"2 ranks allreduce busbw >= 0.5 of memcpy ({mc:.2f} GB/s)", " / ".join(fr) + ("; " + "; ".join(notes) if notes else ""), ok)

    n4 = compare(os.path.join(d, 'big-n4.csv'))
    cells = []
    for (c, b), v in n4.items():
        m = best_mpi(v)
        if 'plexus' in v and m:
            cells.append((m[0] / v['plexus'][0], c, b))
    cells.sort()
    slower = [x for x in cells if x[0] < 1.0]
    row("4 ranks 256 KiB-4 MiB: none slower than the best MPI",
        f"{len(cells) - len(slower)} of {len(cells)} not slower; lowest " +
        ", ".join(f"{c} {fmt(b)} {tr(q)}" for q, c, b in cells[:3]), bool(cells) and not slower)

    for n in (2, 4):
        w, text = small_verdict(os.path.join(d, f'small-n{n}-table.md'))
        row(f"{n} ranks <= 64 KiB: none worse than before", text, w == 0)

    for n in (2, 4):
        gl = graph_launches(os.path.join(d, f'graph-overlap-n{n}.txt'))
        cf = [l['comm_first'] for l in gl if 'comm_first' in l]
        pf = [l['compute_first'] for l in gl if 'compute_first' in l]
        row(f"{n} ranks graph_bench -m overlap vs max() <= 1.10 (comm_first, every launch)",
            "comm_first " + " / ".join(f"{v:.3f}" for v in cf) +
            "; compute_first " + " / ".join(f"{v:.3f}" for v in pf), bool(cf) and max(cf) <= 1.10)

    for n in (2, 4):
        ol = overlap_launches(os.path.join(d, f'overlap-n{n}.txt'))
        sizes = sorted({b for l in ol for b in l})
        under = sum(1 for l in ol for v in l.values() if v < 0.9)
        total = sum(len(l) for l in ol)
        per = "; ".join(f"{fmt(b)} " + " / ".join(f"{l[b]:.3f}" for l in ol if b in l) for b in sizes)
        row(f"{n} ranks overlap >= 0.9 at every size, every launch",
            f"{total - under} of {total}: {per}", total > 0 and under == 0)

    return rows


def span(d):
    """the window's name, first and last step and load range, from window.log"""
    log = os.path.join(d, 'window.log')
    steps = [l.split() for l in open(log) if l.startswith('=== ')] if os.path.exists(log) else []
    name = os.path.basename(os.path.normpath(d))
    if not steps:
        return name
    loads = [float(x.rstrip(',')) for st in steps for x in st[-3:-2]]
    return f"{name}: {steps[0][3]}-{steps[-1][3]}, load1 {min(loads):.1f}-{max(loads):.1f} at the steps' starts"


def main():
    dirs = sys.argv[1:]
    if not dirs or dirs[0].startswith('-'):
        sys.exit(__doc__)
    if len(dirs) == 1:
        print(f"Window {span(dirs[0])}.\n")
        print("| target | measured (per size or per launch) | |")
        print("| --- | --- | --- |")
        for t, m, ok in targets(dirs[0]):
            print(f"| {t} | {m} | {'met' if ok else '**NOT met**'} |")
        return
    # several windows: one column each, x = met (a target's name without its figures in parentheses)
    got, order = {}, []
    for d in dirs:
        for t, _, ok in targets(d):
            k = re.sub(r' \([\d.]+ GB/s\)', '', t)
            if k not in got:
                got[k] = {}
                order.append(k)
            got[k][d] = ok
    names = [os.path.basename(os.path.normpath(d)) for d in dirs]
    print("| target | " + " | ".join(names) + " | met in |")
    print("| --- |" + " :---: |" * len(dirs) + " ---: |")
    for k in order:
        n = sum(1 for d in dirs if got[k].get(d))
        print(f"| {k} | " + " | ".join('x' if got[k].get(d) else '-' for d in dirs) + f" | {n} of {len(dirs)} |")


if __name__ == '__main__':
    main()
