#!/usr/bin/env python3
"""wsplit.py DIR...: per rank, the mean of the idle wait W (wake -> wait's return, us) split into
left = max(0, op end - wake) (work still to do at the wake) and rest = W - left (hand-over and return);
the deficit t_total - t_compute per iteration is P + W.  Also W's quantiles."""
import glob, statistics as st, sys
for d in sys.argv[1:]:
    for pf in sorted(glob.glob(d + '/L*.perf.*')):
        base, pid = pf.rsplit('.perf.', 1)
        lib = sorted([list(map(float, l.split())) for l in open(base + '.lib.' + pid)], key=lambda r: r[1])
        per = [list(map(float, l.split())) for l in open(pf)]
        rows, j = [], 0
        for k, a, b, c, dd in per:
            if k != 0: continue
            while j < len(lib) and lib[j][1] < a: j += 1
            if j >= len(lib) or lib[j][1] > b: continue
            r = lib[j]
            rows.append((b - a, dd - c, max(0.0, r[6] - c), r[7]))
        rows = rows[len(rows) // 10:]
        W = sorted(x[1] for x in rows)
        q = lambda p: W[int(p * (len(W) - 1))]
        print('%-24s n %4d P %.2f W mean %5.1f = left %5.1f + rest %5.1f | W q50 %.1f q90 %.1f q99 %.1f'
              % (pf.split('/')[-2] + '/' + pf.split('/')[-1], len(rows), st.mean(x[0] for x in rows), st.mean(W),
                 st.mean(x[2] for x in rows), st.mean(x[1] - x[2] for x in rows), q(.5), q(.9), q(.99)))
