#!/usr/bin/env python3
"""rttsum.py OUT: abc.sh files split by the c2c round trip logged before each launch (one die:
< 150 ns; two dies: >= 150 ns): per size and arm, launches, q1 and median (us), ratio to base."""
import sys, statistics as st
d = {}
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#'): continue
        p = l.split()
        if len(p) < 7: continue
        mode = 'one-die' if float(p[6]) < 150 else 'two-dies'
        for m in (mode, 'all'):
            d.setdefault((p[2], int(p[3]), m), {}).setdefault(p[1], []).append(float(p[4]))
def q(v, f):
    v = sorted(v); k = (len(v) - 1) * f; i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)
for (c, b, m), arms in sorted(d.items()):
    print(f"## {c} {b // 1024} KiB, {m}")
    base = arms.get('base')
    for a, v in arms.items():
        r = f"  {q(v, .25) / q(base, .25):.2f} / {st.median(v) / st.median(base):.2f}" if base and a != 'base' else ''
        print(f"  {a:9s} n={len(v):2d} q1 {q(v, .25):7.1f} med {st.median(v):7.1f} min {min(v):7.1f} max {max(v):7.1f}{r}")
