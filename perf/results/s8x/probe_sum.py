#!/usr/bin/env python3
"""probe_sum.py DIR...: per launch directory (two files PID.txt of the temporary
S8X_PROBE timeline, one per rank), per collective and size, medians over the calls
(last 80 %) of each rank's phases in us: meet wait, own copy, peer read, drain
wait, total, and the cpu each rank ran on; 'late' = share of calls where this rank
finished its work last.  Coll ids: plexus' enum (printed as found)."""
import sys, os, glob, statistics as st
def med(x): return statistics_med(x)
def statistics_med(x): return st.median(x) if x else float('nan')
def q1(x):
    x = sorted(x); return x[len(x)//4] if x else float('nan')
for d in sys.argv[1:]:
    ranks = {}
    for f in glob.glob(os.path.join(d, '*.txt')):
        rows = []; r = None
        for ln in open(f):
            if ln.startswith('#'):
                r = int(ln.split()[2]); hdr = ln.strip(); continue
            p = ln.split()
            rows.append((int(p[0]), int(p[1]), *map(float, p[2:7]), int(p[7]), int(p[8])))
        ranks[r] = (rows, hdr)
    if len(ranks) != 2: print(d, 'ranks', list(ranks)); continue
    a, b = ranks[0][0], ranks[1][0]
    print('##', d, '|', ranks[0][1], '|', ranks[1][1])
    keys = sorted(set((x[0], x[1]) for x in a))
    for k in keys:
        ia = [i for i, x in enumerate(a) if (x[0], x[1]) == k]
        ib = [i for i, x in enumerate(b) if (x[0], x[1]) == k]
        n = min(len(ia), len(ib)); s = n // 5
        ia, ib = ia[s:n], ib[s:n]
        out = []
        late = [0, 0]
        for r, rows, idx in ((0, a, ia), (1, b, ib)):
            mw = [ (rows[i][3] - rows[i][2]) * 1e6 for i in idx]
            own = [ (rows[i][4] - rows[i][3]) * 1e6 for i in idx]
            rd = [ (rows[i][5] - rows[i][4]) * 1e6 for i in idx]
            dr = [ (rows[i][6] - max(rows[i][4], rows[i][5])) * 1e6 for i in idx]
            tot = [ (rows[i][6] - rows[i][2]) * 1e6 for i in idx]
            cpus = set(rows[i][7] for i in idx) | set(rows[i][8] for i in idx)
            out.append('r%d cpu%s meet %5.1f own %6.1f read %6.1f drain %5.1f tot %6.1f' % (
                r, ''.join(map(str, sorted(cpus))), med(mw), med(own), med(rd), med(dr), med(tot)))
        for i, j in zip(ia, ib):
            ea, eb = max(a[i][4], a[i][5]), max(b[j][4], b[j][5])
            late[0 if ea > eb else 1] += 1
        # start skew: rank1's t1 (met) - rank0's t1
        sk = [ (b[j][3] - a[i][3]) * 1e6 for i, j in zip(ia, ib)]
        print('  coll %d %8d n %4d | %s | %s | late r0 %.2f | met skew r1-r0 %.1f' % (
            k[0], k[1], len(ia), out[0], out[1], late[0] / max(1, len(ia)), med(sk)))
