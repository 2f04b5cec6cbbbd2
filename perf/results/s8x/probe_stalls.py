#!/usr/bin/env python3
"""probe_stalls.py DIR...: every call above 500 us in either rank, both ranks' phases
(meet wait, own copy, read, drain wait, in us) side by side, and the cpu."""
import sys, os, glob
for d in sys.argv[1:]:
    R = {}
    for f in glob.glob(os.path.join(d, '*.txt')):
        rows = []; r = None
        for ln in open(f):
            if ln.startswith('#'): r = int(ln.split()[2]); continue
            p = ln.split(); rows.append((int(p[0]), int(p[1]), *map(float, p[2:7]), int(p[7]), int(p[8])))
        R[r] = rows
    a, b = R[0], R[1]
    t00 = a[0][2]
    n = 0; tot = 0
    for i in range(min(len(a), len(b))):
        ta = (a[i][6] - a[i][2]) * 1e6; tb = (b[i][6] - b[i][2]) * 1e6
        if max(ta, tb) < 500: continue
        n += 1; tot += max(ta, tb)
        def ph(x):
            own = (x[4] - x[3]) * 1e6 if x[4] else 0
            return 'st %8.0f meet %6.0f own %6.0f read %6.0f drain %6.0f cpu %d%d' % ((x[2]-t00)*1e6, (x[3]-x[2])*1e6, own,
                   (x[5]-x[4])*1e6, (x[6]-max(x[4], x[5]))*1e6, x[7], x[8])
        print('%s #%d %d | r0 %s | r1 %s' % (os.path.basename(d), i, a[i][1], ph(a[i]), ph(b[i])))
    print('%s: %d calls > 500 us, %.0f us in them' % (d, n, tot))
