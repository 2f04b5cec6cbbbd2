#!/usr/bin/env python3
"""summ.py FILE...: min / q1 / median of plx_perf's time per (arm, collective label, bytes), and
each arm against the first arm ("base") by q1 and median.  Lines: 'ARM  bytes count type op root time ...'
after '### ARM round R' (ab.sh); the collective is taken from the file's '#@ coll' lines or 'coll'."""
import sys, statistics as st, collections
d = collections.defaultdict(list); arms = []; coll = 'coll'
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#@'): coll = l.split()[1]; continue
        if l.startswith('###'):
            a = l.split()[1]
            if a not in arms: arms.append(a)
            continue
        x = l.split()
        if len(x) > 7 and x[1].isdigit(): d[(coll, int(x[1]), x[0])].append(float(x[6]))
def q(v, p):
    v = sorted(v); i = (len(v) - 1) * p; lo = int(i); return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)
print('| coll | bytes | ' + ' | '.join(f'{a} min / q1 / med (n)' for a in arms) + ' | ' + ' | '.join(f'{a}/{arms[0]} q1, med' for a in arms[1:]) + ' |')
print('|' + ' --- |' * (2 + 2 * len(arms) - 1))
for c, b in sorted({(k[0], k[1]) for k in d}):
    row = []; rat = []
    for a in arms:
        v = d.get((c, b, a), [])
        row.append(f'{min(v):.1f} / {q(v,.25):.1f} / {q(v,.5):.1f} ({len(v)})' if v else '-')
    base = d.get((c, b, arms[0]), [])
    for a in arms[1:]:
        v = d.get((c, b, a), [])
        rat.append(f'{q(v,.25)/q(base,.25):.3f}, {q(v,.5)/q(base,.5):.3f}' if v and base else '-')
    print(f'| {c} | {b >> 20 if b >= 1<<20 else b} {"MiB" if b >= 1<<20 else "B"} | ' + ' | '.join(row) + ' | ' + ' | '.join(rat) + ' |')
