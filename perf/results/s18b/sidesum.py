#!/usr/bin/env python3
"""sidesum.py OUT...: per collective, size and arm of side.sh / ab.sh files: launches, min, q1,
median, max (us), and the launch times sorted; ratios q1/median to the best MPI arm."""
import sys, statistics as st
d = {}
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#'): continue
        p = l.split()
        if len(p) < 5: continue
        d.setdefault((p[2], int(p[3])), {}).setdefault(p[1], []).append(float(p[4]))
def q(v, f):
    v = sorted(v); k = (len(v) - 1) * f; i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)
for (c, b), arms in sorted(d.items()):
    print(f"## {c} {b // 1024} KiB")
    mpi = [a for a in arms if a.startswith(('ompi', 'mpich'))]
    best = min(mpi, key=lambda a: st.median(arms[a])) if mpi else None
    for a, v in arms.items():
        r = ''
        if best and a not in mpi:
            r = f" best-MPI({best})/this q1 {q(arms[best], .25) / q(v, .25):.2f} med {st.median(arms[best]) / st.median(v):.2f}"
        print(f"  {a:10s} n={len(v):2d} min {min(v):8.1f} q1 {q(v, .25):8.1f} med {st.median(v):8.1f} max {max(v):8.1f}{r}")
        print("             " + " ".join(f"{x:.0f}" for x in v))
