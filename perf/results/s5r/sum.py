#!/usr/bin/env python3
# perf/results/s5r/sum.py OUT... -- min / first quartile / median time (us) per
# (coll, bytes, variant) of ab_env.sh or ab_build.sh files
import sys, collections
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#') or not l.strip(): continue
        r, v, c, b, t = l.split()[:5]
        d[(c, int(b), v)].append(float(t))
def q(x, p):
    x = sorted(x); k = (len(x) - 1) * p; i = int(k)
    return x[i] if i + 1 >= len(x) else x[i] + (x[i + 1] - x[i]) * (k - i)
for (c, b, v) in sorted(d):
    x = d[(c, b, v)]
    print(f"{c:10s} {b:>9d} {v:8s} n={len(x):2d} min {min(x):8.1f} q1 {q(x,.25):8.1f} med {q(x,.5):8.1f}")
