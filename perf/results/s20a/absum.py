#!/usr/bin/env python3
"""absum.py FILE: per arm of ab_env.sh's graph_bench output (2 or 4 ranks), idle comm_first /
compute_first "vs start" (the issue's criterion): min, q1, median, max, launches over 1.10;
with --probe lines also, per launch, the allreduces' time in their turn in the probe launch
against b2b's last pass (rank 0), and the launch's headroom sum_compute alone / b2b."""
import os, re, sys, statistics as st
# the column: 8 = "vs start" (this section), 7 = "vs max()" (the ideal; session 20 lead)
COL = int(os.environ.get("COL", "8"))
arms = {}
cur = None
for line in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) (\S+)', line)
    if m:
        cur = dict(arm=m.group(2), turn=[], kind=None); arms.setdefault(cur['arm'], []).append(cur); continue
    if cur is None: continue
    m = re.match(r'(idle|busy)\s+sum_compute ([\d.]+) ms \(alone\), b2b ([\d.]+)', line)
    if m:
        cur['kind'] = m.group(1)
        if m.group(1) == 'idle': cur['sc'], cur['b2b'] = float(m.group(2)), float(m.group(3))
        continue
    m = re.match(r'idle\s+(comm_first|compute_first)\s', line)
    if m: cur[m.group(1)] = float(line.split()[COL]); continue
    m = re.match(r'\s+probe \d+ rank \d .*launch ([\d.]+) ms; chain ends [\d.]+ \(slept [\d.]+, ([\d.]+) over.*in their turn ([\d.]+) \(b2b\'s last pass ([\d.]+)', line)
    if m and cur['kind'] is None:
        cur['turn'].append(float(m.group(3)) / float(m.group(4))); cur.setdefault('over', []).append(float(m.group(2)))
def q(v):
    v = sorted(v); n = len(v)
    return v[0], v[(n - 1) // 4] if n < 4 else st.quantiles(v, n=4)[0], st.median(v), v[-1]
print('| arm | launches | comm_first min / q1 / median / max | over 1.10 | compute_first min / q1 / median / max | over 1.10 | probe launches (both ranks): allreduces in turn / b2b, q1 / median | sleeps, ms over the asked, median | headroom sum_compute/b2b, median |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for a, L in arms.items():
    L = [l for l in L if 'comm_first' in l]
    cf = [l['comm_first'] for l in L]; cp = [l['compute_first'] for l in L]
    tu = [t for l in L for t in l['turn']]
    ov = [t for l in L for t in l.get('over', [])]
    hr = [l['sc'] / l['b2b'] for l in L]
    print('| %s | %d | %s | %d | %s | %d | %s | %s | %.3f |' % (a, len(L), ' / '.join('%.3f' % x for x in q(cf)), sum(x > 1.10 for x in cf),
          ' / '.join('%.3f' % x for x in q(cp)), sum(x > 1.10 for x in cp), '%.3f / %.3f' % (q(tu)[1], st.median(tu)) if tu else '-', '%.2f' % st.median(ov) if ov else '-', st.median(hr)))
if len(sys.argv) > 2:
    for a, L in arms.items():
        for l in L:
            if 'comm_first' in l:
                print(a, '%.3f %.3f turn %s headroom %.3f' % (l['comm_first'], l['compute_first'], ' '.join('%.2f' % t for t in l['turn']), l['sc'] / l['b2b']))
