#!/usr/bin/env python3
"""xtab.py DIR K...: idle-loop iterations of probe.sh's launches, the ranks aligned by the op's end:
late (some rank's waiter finished the op after its wake) against a straggler (some rank's progress
thread made its first pass > 700 us after the iteration's first post), and the median end of the op
after the first post in each class."""
import bisect, glob, statistics as st, sys
d = sys.argv[1]; B = 4194304; TH = 700e-6
for k in sys.argv[2:]:
    T = float([l for l in open('%s/L%s.txt' % (d, k)) if l.split() and l.split()[0] == str(B)][0].split()[5]) * 1e-6
    ranks = []
    for pf in sorted(glob.glob('%s/L%s.[0-9]*' % (d, k))):
        R = []
        for r in [l.split() for l in open(pf)][1:]:
            if int(r[1]) != B: continue
            x = dict(post=float(r[2]), ptf=float(r[3]), drive=float(r[4]), done=float(r[5]), who=int(r[6]))
            if x['drive'] > x['done']: x['drive'] = 0
            R.append(x)
        o = [x for x in R if not x['drive'] or x['drive'] - x['post'] >= 0.3 * T]
        ranks.append(o[:len(o) // 2])
    def match(R, t):
        ds = [x['done'] for x in R]; j = bisect.bisect_left(ds, t)
        c = [jj for jj in (j - 1, j) if 0 <= jj < len(R)]
        jj = min(c, key=lambda jj: abs(ds[jj] - t))
        return R[jj] if abs(ds[jj] - t) < 0.5 * T else None
    tab = {}
    for i in range(len(ranks[0])):
        xs = [match(R, ranks[0][i]['done']) for R in ranks]
        if None in xs or any(not x['ptf'] for x in xs): continue
        p0 = min(x['post'] for x in xs)
        strag = max(x['ptf'] - p0 for x in xs) > TH
        late = any(x['drive'] for x in xs)
        end = (max(x['done'] for x in xs) - p0) * 1e6
        tab.setdefault((late, strag), []).append(end)
    n = sum(len(v) for v in tab.values())
    print('L%s T %.0f us, %d iterations: ' % (k, T * 1e6, n) + '; '.join('%s %s: %d (end %.0f us)' % ('late' if a else 'in time', 'straggler' if b else 'no straggler', len(v), st.median(v)) for (a, b), v in sorted(tab.items())))
