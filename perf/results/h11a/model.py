#!/usr/bin/env python3
# perf/results/h11a/model.py [--balanced] LIMITS.csv COMPARE.csv... -- the 2-rank bytes-moved
# model of perf/RESULTS.md with inputs per size: `limits --sizes ... --csv`
# rows cma_*_pair_gbps_N (both processes at once, N/2 per rank).
#   allreduce  each rank: read-and-add N/2, write N/2       busbw = 1 / (0.5/RA + 0.5/W)
#   reduce     root: read-and-add f N; other: read-and-add (1-f) N and write it (f = 36/64)
#              t = max(f N/RA, (1-f) N (1/RA + 1/W))      busbw = N / t
#              --balanced: claimed pieces (s5r) balance the two ranks, so f is where
#              both terms are equal: f* = (1/RA + 1/W) / (2/RA + 1/W)
#   allgather, alltoall  each rank: read N/2, memcpy N/2   busbw = 1 / (1/CP + 1/C)
import csv, sys
F = 36 / 64
balanced = len(sys.argv) > 1 and sys.argv[1] == '--balanced'
if balanced: del sys.argv[1]
L = {r[0]: float(r[1]) for r in csv.reader(open(sys.argv[1])) if len(r) >= 2 and r[0] != 'metric'}
d = {}
for f in sys.argv[2:]:
    for r in csv.DictReader(open(f)):
        d[(r['library'], r['collective'], int(r['bytes']))] = float(r['busbw_gbps'])
print("| collective | bytes | RA / W / CP / C | bound | Plexus | best MPI | Plexus / MPI | Plexus / bound | MPI / bound |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for c in ['allreduce', 'allgather', 'alltoall', 'reduce']:
    for N in sorted({k[2] for k in d if k[1] == c and k[0] == 'plexus'}):
        g = lambda m: L[f'{m}_{N}']
        RA, W, CP, C = g('cma_add_pair_gbps'), g('cma_write_pair_gbps'), g('cma_pair_gbps'), g('cma_copy_pair_gbps')
        if c == 'allreduce': b = 1 / (0.5 / RA + 0.5 / W)
        elif c == 'reduce':
            f = (1 / RA + 1 / W) / (2 / RA + 1 / W) if balanced else F
            b = 1 / max(f / RA, (1 - f) * (1 / RA + 1 / W))
        else: b = 1 / (1 / CP + 1 / C)
        p = d[('plexus', c, N)]
        m = max(d.get(('openmpi', c, N), 0), d.get(('mpich', c, N), 0))
        print(f"| {c} | {N >> 20} MiB | {RA:.2f} / {W:.2f} / {CP:.2f} / {C:.2f} | {b:.2f} | {p:.2f} | {m:.2f} | "
              f"{p / m:.2f} | {p / b:.2f} | {m / b:.2f} |")
