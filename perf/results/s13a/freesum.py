#!/usr/bin/env python3
"""freesum.py FILE...: per arm, graph_bench -m overlap's blocking figures of every launch (ab.sh output):
"b2b" (the allreduces back to back, blocking, no compute: the '# b2b:' line) and "free" (blocking
allreduces with a compute thread, no graph: the 'free (both at once, no graph)' figure), ms,
min / q1 / median / max and the launches' values in order.  These go through the engine's blocking
wait and back-off, not plx_graph_run."""
import re, sys, collections
v = collections.OrderedDict()
for fn in sys.argv[1:]:
    arm = None
    for line in open(fn):
        m = re.match(r'# launch (\d+) (\S+)', line)
        if m: arm = m.group(2); continue
        m = re.match(r'# b2b: .*: ([\d.]+) ms', line)
        if m and arm: v.setdefault((arm, 'b2b'), []).append(float(m.group(1)))
        m = re.search(r'free \(both at once, no graph\) ([\d.]+) ms', line)
        if m and arm: v.setdefault((arm, 'free'), []).append(float(m.group(1)))
def q(x, f):
    s = sorted(x); k = (len(s) - 1) * f; i = int(k)
    return s[i] if i + 1 >= len(s) else s[i] + (s[i + 1] - s[i]) * (k - i)
for (arm, what), x in sorted(v.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"{arm:20s} {what:5s} n={len(x):2d} min {min(x):.2f} q1 {q(x,.25):.2f} med {q(x,.5):.2f} max {max(x):.2f}: "
          + ", ".join("%.2f" % y for y in x))
