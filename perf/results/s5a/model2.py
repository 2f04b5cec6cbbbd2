#!/usr/bin/env python3
# model2.py AB.txt... -- 2-rank allgather/alltoall busbw against two bounds, from
# ab.sh output with LIMITS set (limits rows and plx_perf launches interleaved):
#   sum bound:  1 / (1/CP + 1/C), CP and C measured apart (h11a/model.py)
#   exchange:   limits' exchange figure (copy own N/2, then read the peer's
#               N/2 into an N-byte destination, both processes at once: the
#               collective's bytes and working set, no library), best pass
#               and mean of the passes; for alltoall the exch_a2a figure (its
#               inputs hold two blocks: no input byte is read twice)
# Per size: median over rounds of each limits figure; Plexus busbw as
# median and best over launches (busbw = N/2 / time).
import sys, collections, statistics as st
lim = collections.defaultdict(list); t = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        p = l.split()
        if len(p) == 5 and p[0] == 'lim': lim[p[1]].append(float(p[2]))
        elif len(p) == 7 and p[0] in ('base', 'new'): t[(p[0], p[1], int(p[2]))].append(float(p[4]))
med = lambda v: st.median(v) if v else float('nan')
print("| coll | size | sum bound | exchange best / mean | base busbw med / best | new busbw med / best | new med / sum bound | new med / exch best | new med / exch mean | launches |")
print("| --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |")
for (c, N) in sorted({(k[1], k[2]) for k in t}):
    g = lambda m: med(lim.get(f'{m}_{N}', []))
    x = 'cma_exch_a2a' if c == 'alltoall' and f'cma_exch_a2a_pair_gbps_{N}' in lim else 'cma_exch'
    CP, C, XB, XM = g('cma_pair_gbps'), g('cma_copy_pair_gbps'), g(x + '_pair_gbps'), g(x + '_mean_pair_gbps')
    sb = 1 / (1 / CP + 1 / C)
    B, Nw = t[('base', c, N)], t[('new', c, N)]
    print(f"| {c} | {N >> 20} MiB | {sb:.2f} | {XB:.2f} / {XM:.2f} | {med(B):.2f} / {max(B, default=0):.2f} | "
          f"{med(Nw):.2f} / {max(Nw, default=0):.2f} | {med(Nw) / sb:.2f} | {med(Nw) / XB:.2f} | {med(Nw) / XM:.2f} | {len(B)}/{len(Nw)} |")
