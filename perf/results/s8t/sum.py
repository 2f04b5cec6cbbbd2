#!/usr/bin/env python3
# sum.py AB.TXT: per collective and size, time (us) min / q1 / median per arm and new / base
import sys, re, statistics as st
d = {}; arm = coll = None
for line in open(sys.argv[1]):
    m = re.match(r'== (base|new) (\w+) launch', line)
    if m: arm, coll = m.groups(); continue
    f = line.split()
    if len(f) >= 10 and f[0].isdigit() and not line.startswith('#'):
        d.setdefault((coll, int(f[0]), arm), []).append(float(f[5]))
def q(v):
    v = sorted(v); return v[0], st.quantiles(v, n=4)[0] if len(v) > 1 else v[0], st.median(v)
print("| collective | bytes | base min / q1 / median (us) | new min / q1 / median | new / base (q1, median) | launches |")
print("| --- | ---: | --- | --- | --- | --- |")
for (c, n) in sorted({k[:2] for k in d}):
    b, a = d.get((c, n, 'base')), d.get((c, n, 'new'))
    if not a or not b: continue
    qb, qa = q(b), q(a)
    print(f"| {c} | {n} | {qb[0]:.0f} / {qb[1]:.0f} / {qb[2]:.0f} | {qa[0]:.0f} / {qa[1]:.0f} / {qa[2]:.0f} | {qa[1]/qb[1]:.2f} / {qa[2]/qb[2]:.2f} | {len(b)} / {len(a)} |")
