#!/usr/bin/env python3
"""summ.py FILE...: per collective, size and variant: launches, min / q1 / median time per
call (us) over launches, ratio to base (q1, median), and busbw (bytes/2/t at 2 ranks) as a
fraction of limits' exchange figure (best pass; median over the rounds of the same files):
cma_exch_pair_gbps_N for allgather, cma_exch_a2a_pair_gbps_N for alltoall."""
import sys, statistics as st, collections
T = collections.defaultdict(list); L = collections.defaultdict(list); loads = []
for f in sys.argv[1:]:
    for ln in open(f):
        if ln.startswith('#'): continue
        p = ln.split()
        if len(p) < 4: continue
        if p[1] == 'lim': L[p[2]].append(float(p[3])); continue
        if p[1] == 'pc': continue
        T[(p[2], int(p[3]), p[1])].append(float(p[4])); loads.append(float(p[5]))
def q(x, f): x = sorted(x); return x[int((len(x) - 1) * f)] if len(x) > 1 else x[0]
print('load1 %.2f-%.2f' % (min(loads), max(loads)))
print('| coll | bytes | variant | n | min | q1 | median | /base q1, median | q1, median / exch bound (GB/s) |')
print('| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |')
for c, b in sorted(set((k[0], k[1]) for k in T)):
    key = ('cma_exch_pair_gbps_%d' if c == 'allgather' else 'cma_exch_a2a_pair_gbps_%d') % b
    bound = st.median(L[key]) if L.get(key) else None
    base = T.get((c, b, 'base'))
    for v in sorted(set(k[2] for k in T if k[:2] == (c, b)), key=lambda v: (v != 'base', v)):
        x = T[(c, b, v)]
        q1, md = q(x, .25), st.median(x)
        rb = '%.3f, %.3f' % (q1 / q(base, .25), md / st.median(base)) if base and v != 'base' else ''
        fb = ''
        if bound: fb = '%.2f, %.2f (%.2f)' % (b / 2 / q1 / 1e3 / bound, b / 2 / md / 1e3 / bound, bound)
        print('| %s | %d | %s | %d | %.1f | %.1f | %.1f | %s | %s |' % (c, b, v, len(x), min(x), q1, md, rb, fb))
