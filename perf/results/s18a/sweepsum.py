#!/usr/bin/env python3
"""sweepsum.py RAW...: from perf/tune_sweep --raw files, per collective, ranks, size: each
algorithm's q1 / median over the rounds (us), the winner by both, and what the default ran.
Forced arms that fell through to another algorithm are left out.  Marks '*' the arm fastest in both q1 and median; '?' when q1 and median disagree."""
import sys, re, statistics as st, collections
T = collections.defaultdict(list); D = {}; loads = []
for f in sys.argv[1:]:
    n = int(re.search(r'-n(\d+)', f).group(1))
    for ln in open(f):
        if ln.startswith('#'):
            m = re.search(r'load average: ([0-9.]+)', ln)
            if m: loads.append(float(m.group(1)))
            continue
        p = ln.split()
        if len(p) < 6: continue
        c, b, a, t = p[1], int(p[2]), p[3], float(p[4])
        if a.startswith('default='): D[(c, n, b)] = p[5]; a = 'default'
        elif a != p[5]: continue   # a forced arm that could not run and fell through
        T[(c, n, b, a)].append(t)
def q(x, f): x = sorted(x); return x[int((len(x) - 1) * f)] if len(x) > 1 else x[0]
print('load1 %.2f-%.2f' % (min(loads), max(loads)))
for c, n in sorted(set((k[0], k[1]) for k in T)):
    algos = sorted(set(k[3] for k in T if k[:2] == (c, n) and k[3] != 'default'))
    print('\n### %s, %d ranks: q1 / median us (rounds)' % (c, n))
    print('| bytes | ' + ' | '.join(algos) + ' | default (ran) | best |')
    print('| ---: |' + ' ---: |' * len(algos) + ' --- | --- |')
    for b in sorted(set(k[2] for k in T if k[:2] == (c, n))):
        cells, q1s, mds = [], {}, {}
        for a in algos:
            x = T.get((c, n, b, a))
            if not x: cells.append('-'); continue
            q1s[a], mds[a] = q(x, .25), st.median(x)
            cells.append('%.1f / %.1f (%d)' % (q1s[a], mds[a], len(x)))
        bq = min(q1s, key=q1s.get); bm = min(mds, key=mds.get)
        best = bq + ('*' if bq == bm else ' ? med ' + bm)
        dx = T.get((c, n, b, 'default'), [])
        dcell = '%.1f / %.1f %s' % (q(dx, .25), st.median(dx), D.get((c, n, b), '')) if dx else '-'
        print('| %d | %s | %s | %s |' % (b, ' | '.join(cells), dcell, best))
