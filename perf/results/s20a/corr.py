#!/usr/bin/env python3
"""corr.py FILE...: per launch (any arm), idle comm_first "vs start" against the launch's
headroom h = sum_compute alone / b2b (how much longer the chain of sleeps is than the
allreduces back to back), and against sum_comm (alone, cached; sizes the compute) / b2b.
Prints the launches sorted by h, the correlation, and over-1.10 counts by h band."""
import re, sys, statistics as st
rows = []
for f in sys.argv[1:]:
    cur = None
    for line in open(f):
        if line.startswith('# launch'):
            cur = {}; rows.append(cur); continue
        if cur is None: continue
        m = re.search(r'sum_comm ([\d.]+) ms \(each', line)
        if m: cur['scomm'] = float(m.group(1))
        m = re.match(r'idle\s+sum_compute ([\d.]+) ms \(alone\), b2b ([\d.]+)', line)
        if m: cur['sc'], cur['b2b'] = float(m.group(1)), float(m.group(2))
        m = re.match(r'idle\s+(comm_first|compute_first)\s', line)
        if m: cur[m.group(1)] = float(line.split()[8])
rows = [r for r in rows if 'comm_first' in r and 'sc' in r]
for r in rows: r['h'] = r['sc'] / r['b2b']; r['k'] = r['scomm'] / r['b2b']
def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5
h = [r['h'] for r in rows]; cf = [r['comm_first'] for r in rows]; cp = [r['compute_first'] for r in rows]
print('launches %d; corr(h, comm_first) %.2f, corr(h, compute_first) %.2f; corr(sum_comm/b2b, comm_first) %.2f' % (
      len(rows), corr(h, cf), corr(h, cp), corr([r['k'] for r in rows], cf)))
print('| h = sum_compute alone / b2b | launches | comm_first median | over 1.10 | compute_first median | over 1.10 |')
print('| --- | --- | --- | --- | --- | --- |')
for lo, hi in ((0, 1.2), (1.2, 1.3), (1.3, 1.4), (1.4, 9)):
    s = [r for r in rows if lo <= r['h'] < hi]
    if s:
        print('| %.1f-%s | %d | %.3f | %d | %.3f | %d |' % (lo, '%.1f' % hi if hi < 9 else '', len(s), st.median(r['comm_first'] for r in s),
              sum(r['comm_first'] > 1.10 for r in s), st.median(r['compute_first'] for r in s), sum(r['compute_first'] > 1.10 for r in s)))
