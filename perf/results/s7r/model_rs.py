#!/usr/bin/env python3
# perf/results/s7r/model_rs.py LIMITS.csv COMPARE.csv... -- 2-rank direct
# reduce_scatter against its bytes-moved bound: each rank read-and-adds its
# own block (N/2 of the total N) from the peer, nothing else, so
#   t = (N/2) / RA,  busbw = (1/2) N / t = RA
# with RA = perf/limits' cma_add_pair_gbps_N (both processes at once, N/2 each).
import csv, sys
L = {r[0]: float(r[1]) for r in csv.reader(open(sys.argv[1])) if len(r) >= 2 and r[0] != 'metric'}
d = {}
for f in sys.argv[2:]:
    for r in csv.DictReader(open(f)):
        d[(r['library'], r['collective'], int(r['bytes']))] = float(r['busbw_gbps'])
print("| reduce_scatter | RA = bound | Plexus | best MPI | Plexus / MPI | Plexus / bound |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for N in sorted({k[2] for k in d if k[1] == 'reduce_scatter' and k[0] == 'plexus'}):
    b = L[f'cma_add_pair_gbps_{N}']
    p = d[('plexus', 'reduce_scatter', N)]
    m = max(d.get(('openmpi', 'reduce_scatter', N), 0), d.get(('mpich', 'reduce_scatter', N), 0))
    print(f"| {N >> 20} MiB | {b:.2f} | {p:.2f} | {m:.2f} | {p / m:.2f} | {p / b:.2f} |")
