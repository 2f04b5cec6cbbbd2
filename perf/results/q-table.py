#!/usr/bin/env python3
# perf/results/q-table.py BASE.csv BASE.txt AFTER.csv AFTER.txt -- the issue 11
# table of perf/RESULTS.md: per collective and size, Plexus and best-MPI busbw
# before and after, ratios, and the bytes-moved model's bound from each run's
# own perf/limits line (M, CP pair, RA pair).
import csv, re, sys
def load(c, t):
    d = {}
    for r in csv.DictReader(open(c)):
        d[(r['library'], r['collective'], int(r['bytes']))] = float(r['busbw_gbps'])
    txt = open(t).read()
    M = float(re.search(r'memcpy one core 64 MiB: ([\d.]+)', txt).group(1))
    m = re.search(r'both processes at once: ([\d.]+) / ([\d.]+)', txt)
    return d, M, float(m.group(1)), float(m.group(2))
def bound(c, M, CP, RA):
    if c in ('allreduce', 'reduce'): return 1 / (0.5 / RA + 0.5 / CP)
    if c == 'reduce_scatter': return RA
    if c == 'bcast': return 2 * CP
    if c in ('allgather', 'alltoall'): return 1 / (1 / CP + 1 / M)
    return 1 / max(0.2 / CP + 1 / M, 0.8 / CP)
runs = [load(sys.argv[1], sys.argv[2]), load(sys.argv[3], sys.argv[4])]
for i, (d, M, CP, RA) in enumerate(runs):
    print(f"{'before' if i == 0 else 'after'}: M = {M}, CP = {CP}, RA = {RA} GB/s")
print()
print("| collective | bytes | before: Plexus / best MPI busbw | ratio | after: Plexus / best MPI busbw | ratio | after: bound | Plexus / bound | Plexus / memcpy |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
colls = ['allreduce', 'bcast', 'allgather', 'alltoall', 'reduce', 'reduce_scatter', 'gather', 'scatter']
for c in colls:
    for b in sorted({k[2] for k in runs[1][0] if k[1] == c}):
        row = [c, f"{b >> 20} MiB"]
        for j, (d, M, CP, RA) in enumerate(runs):
            p = d.get(('plexus', c, b), 0); o = max(d.get(('openmpi', c, b), 0), d.get(('mpich', c, b), 0))
            row += [f"{p:.3f} / {o:.3f}", f"{p / o:.2f}" if o else "-"]
        d, M, CP, RA = runs[1]
        p = d.get(('plexus', c, b), 0); bd = bound(c, M, CP, RA)
        row += [f"{bd:.3f}", f"{p / bd:.2f}", f"{p / M:.2f}"]
        print("| " + " | ".join(row) + " |")
