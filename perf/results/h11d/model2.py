#!/usr/bin/env python3
# perf/results/h11d/model2.py COMPARE.csv LIMITS_DIR -- the 2-rank bytes-moved
# model of perf/RESULTS.md ("Issue 11, 2-rank data path"): for allreduce,
# allgather, alltoall and reduce at each size N of the compare run, the bound
# implied by perf/limits figures measured with both processes at once at the
# bytes each rank moves (LIMITS_DIR/limits-<N/2 bytes>.csv, from
# `limits -c N/2 --csv`), against Plexus' and the best MPI's busbw.
#   allreduce  each rank: read-and-add N/2, write N/2 (hot piece) into the peer
#              t = N/2/RA + N/2/W                      busbw = N / t
#   reduce     root: read-and-add f N; other: read-and-add (1-f) N, write it
#              t = max(f N/RA, (1-f) N (1/RA + 1/W))   busbw = N / t  (f = 36/64)
#   allgather, alltoall  each rank: read the peer's N/2, memcpy its own N/2
#              t = N/2/CP + N/2/C                      busbw = N/2 / t
# RA, W, CP, C: cma_add_pair, cma_write_pair, cma_pair, cma_copy_pair (GB/s).
import csv, os, sys
F = 36 / 64
def limits(d, b):
    v = {}
    for r in csv.reader(open(os.path.join(d, f"limits-{b}.csv"))):
        if len(r) >= 2 and r[0] != 'metric': v[r[0]] = float(r[1])
    return v
def bound(c, N, L):
    RA, W, CP, C = L['cma_add_pair_gbps'], L['cma_write_pair_gbps'], L['cma_pair_gbps'], L['cma_copy_pair_gbps']
    if c == 'allreduce': return 1 / (0.5 / RA + 0.5 / W)
    if c == 'reduce': return 1 / max(F / RA, (1 - F) * (1 / RA + 1 / W))
    return 1 / (1 / CP + 1 / C)
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    d[(r['library'], r['collective'], int(r['bytes']))] = float(r['busbw_gbps'])
memcpy = next((v for (l, c, b), v in d.items() if l == 'limits'), 0)
print("| collective | bytes | RA / W / CP / C (GB/s, each, both at once) | bound | Plexus | best MPI | Plexus / MPI | Plexus / bound | Plexus / memcpy |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for c in ['allreduce', 'allgather', 'alltoall', 'reduce']:
    for N in sorted({k[2] for k in d if k[1] == c and k[0] == 'plexus'}):
        try: L = limits(sys.argv[2], N // 2)
        except OSError: continue
        p = d[('plexus', c, N)]
        m = max(d.get(('openmpi', c, N), 0), d.get(('mpich', c, N), 0))
        b = bound(c, N, L)
        print(f"| {c} | {N >> 20} MiB | {L['cma_add_pair_gbps']:.2f} / {L['cma_write_pair_gbps']:.2f} / "
              f"{L['cma_pair_gbps']:.2f} / {L['cma_copy_pair_gbps']:.2f} | {b:.2f} | {p:.2f} | {m:.2f} | "
              f"{p / m if m else 0:.2f} | {p / b:.2f} | {p / memcpy if memcpy else 0:.2f} |")
