#!/usr/bin/env python3
# perf/results/s11o/sum.py FILE...: per arm and size, min / q1 / median over launches of the idle
# overlap, t_comm, total - compute (us), the sleep's overshoot (idle compute - t_comm, us: T is the
# launch's t_comm) and the busy overlap; the launches' uptime load range.  (s8o's sum.py plus the
# last two columns.)
import sys, re, statistics as st
rows = {}; loads = []
for f in sys.argv[1:]:
    arm = None
    for line in open(f):
        m = re.match(r'== round \d+ arm (\S+) .*load average: ([\d.]+)', line)
        if m: arm = m.group(1); loads.append(float(m.group(2))); continue
        p = line.split()
        if arm and len(p) >= 14 and p[0].isdigit():
            size = int(p[0]); tc = float(p[5]); comp = float(p[7]); tot = float(p[8]); ov = float(p[9])
            bov = float(p[12])
            rows.setdefault((arm, size), []).append((ov, tc, tot - comp, comp - tc, bov))
def q(v):
    v = sorted(v); n = len(v)
    return v[0], v[(n - 1) // 4], st.median(v)
print("load average %.2f-%.2f" % (min(loads), max(loads)))
print("| arm | size | n | overlap min / q1 / med | t_comm us min / q1 / med | total-compute us min / q1 / med | overshoot us med | busy overlap q1 / med |")
print("| --- | ---: | ---: | --- | --- | --- | ---: | --- |")
order = []
for (arm, size) in rows:
    if arm not in order: order.append(arm)
for (arm, size) in sorted(rows, key=lambda k: (k[1], order.index(k[0]))):
    v = rows[(arm, size)]
    o = q([x[0] for x in v]); t = q([x[1] for x in v]); l = q([x[2] for x in v])
    os_ = st.median([x[3] for x in v]); b = q([x[4] for x in v])
    print("| %s | %d KiB | %d | %.3f / %.3f / %.3f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.1f | %.3f / %.3f |" % (
        arm, size >> 10, len(v), o[0], o[1], o[2], t[0], t[1], t[2], l[0], l[1], l[2], os_, b[1], b[2]))
