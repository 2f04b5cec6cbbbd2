#!/usr/bin/env python3
"""armsum.py FILE...: per arm, every launch's vs max() (comm_first, compute_first) in launch order,
then min / q1 / median per arm and policy, and launches over 1.10."""
import re, sys, collections
v = collections.OrderedDict()
for fn in sys.argv[1:]:
    arm = None
    for line in open(fn):
        m = re.match(r'# launch (\d+) (\S+)', line)
        if m: arm = m.group(2); continue
        m = re.match(r'idle\s+(comm_first|compute_first)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)', line)
        if m and arm: v.setdefault((arm, m.group(1)), []).append(float(m.group(3)))
def q(x, f):
    s = sorted(x); k = (len(s) - 1) * f; i = int(k)
    return s[i] if i + 1 >= len(s) else s[i] + (s[i + 1] - s[i]) * (k - i)
for (arm, pol), x in v.items():
    print(f"{arm:45s} {pol:13s} n={len(x):2d} min {min(x):.3f} q1 {q(x,.25):.3f} med {q(x,.5):.3f} over1.10 {sum(1 for y in x if y > 1.10)}: " + ", ".join("%.3f" % y for y in x))
