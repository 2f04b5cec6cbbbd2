#!/usr/bin/env python3
"""corr2.py FILE...: per launch with --probe lines (any arm): the allreduces' time in their turn
in the probe launches against b2b's last pass (r, mean over the probe launches and both ranks),
the headroom h = sum_compute alone / b2b, and idle comm_first "vs start".  If the graph ends
with its communication, vs start ~ r / h; if with its chain, ~1.  Prints the correlation of
vs start with r / h and the over-1.10 launches by r / h band."""
import re, sys, statistics as st
rows = []
for f in sys.argv[1:]:
    cur = None
    for line in open(f):
        if line.startswith('# launch'):
            cur = dict(turn=[], kind=None); rows.append(cur); continue
        if cur is None: continue
        m = re.match(r'(idle|busy)\s+sum_compute ([\d.]+) ms \(alone\), b2b ([\d.]+)', line)
        if m:
            cur['kind'] = m.group(1)
            if m.group(1) == 'idle': cur['sc'], cur['b2b'] = float(m.group(2)), float(m.group(3))
        m = re.match(r'idle\s+(comm_first|compute_first)\s', line)
        if m: cur[m.group(1)] = float(line.split()[8])
        m = re.match(r'\s+probe \d+ rank \d .*in their turn ([\d.]+) \(b2b\'s last pass ([\d.]+)', line)
        if m and cur['kind'] is None: cur['turn'].append(float(m.group(1)) / float(m.group(2)))
rows = [r for r in rows if 'comm_first' in r and r['turn']]
for r in rows: r['x'] = st.mean(r['turn']) / (r['sc'] / r['b2b'])
def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5
x = [r['x'] for r in rows]
print('launches %d; corr(r/h, comm_first) %.2f, corr(r/h, compute_first) %.2f; corr(r, comm_first) %.2f; corr(h, comm_first) %.2f' % (
      len(rows), corr(x, [r['comm_first'] for r in rows]), corr(x, [r['compute_first'] for r in rows]),
      corr([st.mean(r['turn']) for r in rows], [r['comm_first'] for r in rows]), corr([r['sc'] / r['b2b'] for r in rows], [r['comm_first'] for r in rows])))
print('| r / h (probe launches) | launches | comm_first median | over 1.10 | compute_first median | over 1.10 |')
print('| --- | --- | --- | --- | --- | --- |')
for lo, hi in ((0, 0.9), (0.9, 1.0), (1.0, 1.1), (1.1, 9)):
    s = [r for r in rows if lo <= r['x'] < hi]
    if s:
        print('| %.1f-%s | %d | %.3f | %d | %.3f | %d |' % (lo, '%.1f' % hi if hi < 9 else '', len(s), st.median(r['comm_first'] for r in s),
              sum(r['comm_first'] > 1.10 for r in s), st.median(r['compute_first'] for r in s), sum(r['compute_first'] > 1.10 for r in s)))
