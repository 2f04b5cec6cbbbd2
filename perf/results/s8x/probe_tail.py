#!/usr/bin/env python3
"""probe_tail.py DIR...: per launch, collective, size and rank: mean / median / p90 / max of the
call (turn..done) and of the gap to the next call (done..next turn), us; the mean of each
phase; calls > 2x the median."""
import sys, os, glob, statistics as st
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, '*.txt'))):
        rows = []; hdr = ''
        for ln in open(f):
            if ln.startswith('#'): hdr = ln.split(); continue
            p = ln.split(); rows.append((int(p[0]), int(p[1]), *map(float, p[2:7])))
        for key in sorted(set((r[0], r[1]) for r in rows)):
            idx = [i for i, r in enumerate(rows) if (r[0], r[1]) == key]
            idx = idx[len(idx)//5:]
            tot = [(rows[i][6]-rows[i][2])*1e6 for i in idx]
            gap = [(rows[i+1][2]-rows[i][6])*1e6 for i in idx if i+1 < len(rows) and (rows[i+1][0], rows[i+1][1]) == key]
            mw = [(rows[i][3]-rows[i][2])*1e6 for i in idx]
            dr = [(rows[i][6]-max(rows[i][4], rows[i][5]))*1e6 for i in idx]
            wk = [(max(rows[i][4], rows[i][5])-rows[i][3])*1e6 for i in idx]
            m = st.median(tot); s = sorted(tot)
            print('%-22s r%s %8d call mean %6.1f med %6.1f p90 %6.1f max %7.1f >2x %3d | gap mean %5.1f med %4.1f max %7.1f | mean meet %5.1f work %6.1f drain %5.1f' % (
                os.path.basename(d), hdr[2], key[1], st.mean(tot), m, s[len(s)*9//10], s[-1], sum(t > 2*m for t in tot),
                st.mean(gap), st.median(gap), max(gap), st.mean(mw), st.mean(wk), st.mean(dr)))
