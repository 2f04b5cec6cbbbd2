#!/usr/bin/env python3
# perf/results/s7r/sum.py OUT... -- min / first quartile / median time (us) per
# (coll, bytes, variant) of ab.sh files, the algorithm(s) plx_perf printed, and
# each variant's q1 and median over the first variant's of that cell
import sys, collections
d = collections.defaultdict(list); al = collections.defaultdict(set); order = []
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#') or not l.strip(): continue
        w = l.split()
        r, v, c, b, t = w[:5]
        if v not in order: order.append(v)
        d[(c, int(b), v)].append(float(t))
        if len(w) > 5: al[(c, int(b), v)].add(w[5])
def q(x, p):
    x = sorted(x); k = (len(x) - 1) * p; i = int(k)
    return x[i] if i + 1 >= len(x) else x[i] + (x[i + 1] - x[i]) * (k - i)
for (c, b) in sorted({(k[0], k[1]) for k in d}):
    base = None
    for v in order:
        x = d.get((c, b, v))
        if not x: continue
        m, q1, md = min(x), q(x, .25), q(x, .5)
        if base is None: base = (q1, md)
        print(f"{c:14s} {b:>9d} {v:10s} n={len(x):2d} min {m:8.1f} q1 {q1:8.1f} med {md:8.1f}"
              f"  q1/md vs {order[0] if base else ''}: {q1 / base[0]:.3f} {md / base[1]:.3f}  {','.join(sorted(al[(c, b, v)]))}")
