#!/usr/bin/env python3
"""modelfrac.py AB.txt LIMITS.csv...: 2-rank allreduce at 16 and 64 MiB per arm: busbw (N/t, by
q1 and median time over launches), the bytes-moved model's huge-page bound (perf/model.py:
1/(0.5/RA + 0.5/W), limits' cma_add_thp / cma_write_thp pair rows at N; each limits file, then
their mean) and memcpy, and the fractions."""
import sys, statistics as st, collections
T = collections.defaultdict(list)
for ln in open(sys.argv[1]):
    p = ln.split()
    if ln.startswith('#') or len(p) < 5: continue
    T[(int(p[3]), p[1])].append(float(p[4]))
lims = []
for f in sys.argv[2:]:
    d = {}
    for ln in open(f):
        p = ln.strip().split(',')
        if len(p) == 3:
            try: d[p[0]] = float(p[1])
            except ValueError: pass
    lims.append(d)
def q(x, f): x = sorted(x); return x[int((len(x) - 1) * f)]
mc = st.mean(d['memcpy_gbps'] for d in lims)
print('memcpy (GB/s): ' + ', '.join('%.2f' % d['memcpy_gbps'] for d in lims) + ' (mean %.2f)' % mc)
print('| bytes | bound per limits run (GB/s) | mean bound | arm | n | busbw q1 / median (GB/s) | / bound | / memcpy |')
print('| ---: | --- | ---: | --- | ---: | --- | --- | --- |')
for N in (16 << 20, 64 << 20):
    bs = [1 / (0.5 / d['cma_add_thp_pair_gbps_%d' % N] + 0.5 / d['cma_write_thp_pair_gbps_%d' % N]) for d in lims]
    b = st.mean(bs)
    for arm in sorted(a for (n, a) in T if n == N):
        x = T[(N, arm)]
        g1, gm = N / q(x, .25) / 1e3, N / q(x, .5) / 1e3
        print(f"| {N >> 20} MiB | {', '.join('%.2f' % v for v in bs)} | {b:.2f} | {arm} | {len(x)} | {g1:.2f} / {gm:.2f} | {g1 / b:.2f} / {gm / b:.2f} | {g1 / mc:.2f} / {gm / mc:.2f} |")
