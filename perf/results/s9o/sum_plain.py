#!/usr/bin/env python3
# sum_plain.py FILE...: per arm and size, min / q1 / median over launches of plx_perf's time (us)
# in plain (not --overlap) runs of ab.sh; the launches' uptime load range.
import sys, re, statistics as st
rows = {}; loads = []
for f in sys.argv[1:]:
    arm = None
    for line in open(f):
        m = re.match(r'== round \d+ arm (\S+) .*load average: ([\d.]+)', line)
        if m: arm = m.group(1); loads.append(float(m.group(2))); continue
        p = line.split()
        if arm and 9 <= len(p) < 14 and p[0].isdigit():
            rows.setdefault((arm, int(p[0])), []).append(float(p[5]))
def q(v):
    v = sorted(v); n = len(v)
    return v[0], v[(n - 1) // 4], st.median(v)
print("load average %.2f-%.2f" % (min(loads), max(loads)))
print("| arm | size | n | time us min / q1 / med |")
print("| --- | ---: | ---: | --- |")
for (arm, size) in sorted(rows, key=lambda k: (k[1], k[0])):
    t = q(rows[(arm, size)])
    print("| %s | %d KiB | %d | %.1f / %.1f / %.1f |" % (arm, size >> 10, len(rows[(arm, size)]), *t))
