#!/usr/bin/env python3
# summ.py AB.txt...: per (coll, bytes) min / first quartile / median time (us) of base and new, and new/base
import sys, collections
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        p = l.split()
        if len(p) == 7 and p[0] in ('base', 'new'):
            d[(p[1], int(p[2]), p[0])].append(float(p[3]))
def q(v, f):
    v = sorted(v); return v[int(f * (len(v) - 1))]
print("| coll | bytes | n | base min / q1 / med | new min / q1 / med | new/base min / q1 / med |")
print("| --- | ---: | ---: | --- | --- | --- |")
for (c, b) in sorted({(k[0], k[1]) for k in d}):
    B, N = d[(c, b, 'base')], d[(c, b, 'new')]
    if not B or not N: continue
    s = [q(B, 0), q(B, .25), q(B, .5)]; t = [q(N, 0), q(N, .25), q(N, .5)]
    print(f"| {c} | {b >> 20} MiB | {len(B)}/{len(N)} | " + " / ".join(f"{x:.0f}" for x in s) + " | " +
          " / ".join(f"{x:.0f}" for x in t) + " | " + " / ".join(f"{y / x:.2f}" for x, y in zip(s, t)) + " |")
