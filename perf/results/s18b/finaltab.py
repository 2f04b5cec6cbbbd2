#!/usr/bin/env python3
"""finaltab.py LABEL=FILE...: markdown rows, base against new per size: q1 / median (us), ratio, slowest launch."""
import sys, statistics as st
def q(v, f):
    v = sorted(v); k = (len(v) - 1) * f; i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)
for arg in sys.argv[1:]:
    lab, f = arg.rsplit('=', 1)
    d = {}
    for l in open(f):
        if l.startswith('#'): continue
        p = l.split()
        if len(p) >= 5: d.setdefault(int(p[3]), {}).setdefault(p[1], []).append(float(p[4]))
    sizes = sorted(d)
    cells = []
    for b in sizes:
        B, N = d[b]['base'], d[b]['new']
        cells.append(f"{q(N,.25):.1f} / {st.median(N):.1f} vs {q(B,.25):.1f} / {st.median(B):.1f} "
                     f"(**{q(N,.25)/q(B,.25):.2f} / {st.median(N)/st.median(B):.2f}**; max {max(N):.0f} vs {max(B):.0f})")
    print(f"| {lab} ({len(d[sizes[0]]['base'])} launches per arm) | " + " | ".join(cells) + " |")
    print("| sizes | " + " | ".join(f"{b // 1024} KiB" for b in sizes) + " |")
