#!/usr/bin/env python3
# summ.py FILE...: per (coll, bytes, variant) launches, min / q1 / median time (us),
# and each variant's q1 and median against the first variant listed (base if present)
import sys, collections
d = collections.defaultdict(list); order = []
for f in sys.argv[1:]:
    for l in open(f):
        p = l.split()
        if len(p) == 6 and not l.startswith('#') and p[1] != 'lim':
            d[(p[2], int(p[3]))].append((p[1], float(p[4])))
def q(v, f):
    v = sorted(v); return v[int(f * (len(v) - 1))]
print("| coll | bytes | variant | n | min / q1 / median us | q1, median vs first |")
print("| --- | ---: | --- | ---: | --- | --- |")
for (c, b) in sorted(d):
    vs = []
    for n, t in d[(c, b)]:
        if n not in vs: vs.append(n)
    if 'base' in vs: vs.remove('base'); vs.insert(0, 'base')
    ref = None
    for n in vs:
        t = [x for m, x in d[(c, b)] if m == n]
        s = (q(t, 0), q(t, .25), q(t, .5))
        if ref is None: ref = s
        print(f"| {c} | {b} | {n} | {len(t)} | {s[0]:.1f} / {s[1]:.1f} / {s[2]:.1f} | {s[1]/ref[1]:.2f}, {s[2]/ref[2]:.2f} |")
