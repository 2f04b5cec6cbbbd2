#!/usr/bin/env python3
"""sidesum.py FILE...: (also ab.sh files, no rtt) per arm and size, launches, q1 / median / min-max of time_us, and the
launches with rtt >= 200 ns (two dies by the c2c probe) apart.  Lines: round arm coll bytes us load rtt."""
import sys, statistics as st
from collections import defaultdict
d = defaultdict(list)
order = []
for f in sys.argv[1:]:
    for ln in open(f):
        if ln.startswith('#') or not ln.strip(): continue
        p = ln.split()
        if len(p) < 7: continue
        k = (p[1], int(p[3]))
        if p[1] not in order: order.append(p[1])
        try: rtt = float(p[6])
        except ValueError: rtt = 0   # (ab.sh lines: the algorithm there)
        d[k].append((float(p[4]), rtt))
def q(v, f):
    v = sorted(v); i = f * (len(v) - 1); lo = int(i); return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)
sizes = sorted({k[1] for k in d})
for s in sizes:
    print(f"== {s // 1024} KiB")
    for a in order:
        v = d.get((a, s))
        if not v: continue
        t = [x for x, _ in v]
        print(f"  {a:10s} n={len(t):2d} q1 {q(t,.25):9.1f} med {st.median(t):9.1f} min {min(t):9.1f} max {max(t):9.1f}  launches: {' '.join('%.0f%s' % (x, '*' if r >= 200 else '') for x, r in v)}")
