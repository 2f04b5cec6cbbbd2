#!/usr/bin/env python3
# perf/results/s11o/total.py FILE...: per arm and size, min / q1 / median over launches of the idle
# iteration's total - t_comm (us; T = t_comm, so this is the sleep's overshoot plus the wait after it:
# what one overlapped iteration costs beyond T, whichever side of the sleep's end it falls on).
import sys, re, statistics as st, collections
d = collections.defaultdict(list); order = []
for f in sys.argv[1:]:
    arm = None
    for l in open(f):
        m = re.match(r'== round \d+ arm (\S+)', l)
        if m:
            arm = m.group(1)
            if arm not in order: order.append(arm)
            continue
        p = l.split()
        if arm and len(p) >= 14 and p[0].isdigit():
            d[(arm, int(p[0]))].append(float(p[8]) - float(p[5]))
def q(v):
    v = sorted(v); return v[0], v[(len(v) - 1) // 4], st.median(v)
print("| arm | size | n | idle total - t_comm us min / q1 / med |")
print("| --- | ---: | ---: | --- |")
for (arm, size) in sorted(d, key=lambda k: (k[1], order.index(k[0]))):
    print("| %s | %d KiB | %d | %.1f / %.1f / %.1f |" % ((arm, size >> 10, len(d[(arm, size)])) + q(d[(arm, size)])))
