#!/usr/bin/env python3
# pool_tcomm.py FILE...: t_comm (us) per arm and size, min / q1 / median over launches, from
# both plain runs (time column) and --overlap runs (t_comm column) of ab.sh.
import sys, re, statistics as st
rows = {}
for f in sys.argv[1:]:
    arm = None
    for line in open(f):
        m = re.match(r'== round \d+ arm (\S+) ', line)
        if m: arm = m.group(1); continue
        p = line.split()
        if arm and len(p) >= 9 and p[0].isdigit():
            rows.setdefault((arm, int(p[0])), []).append(float(p[5]))
for (arm, size) in sorted(rows, key=lambda k: (k[1], k[0])):
    v = sorted(rows[(arm, size)]); n = len(v)
    print("| %s | %d KiB | %d | %.1f / %.1f / %.1f |" % (arm, size >> 10, n, v[0], v[(n - 1) // 4], st.median(v)))
