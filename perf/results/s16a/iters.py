#!/usr/bin/env python3
"""iters.py DIR K [FROM N]: idle-loop iterations of launch K side by side over the ranks, times in us from
the iteration's first post: per rank post, pt first pass (+), wake (w, '.' = none: done before it),
done (d; * = waiter finished), CPU of the post / pt's CPUs (mask) / app CPUs."""
import glob, sys
d, k = sys.argv[1], sys.argv[2]; a = int(sys.argv[3]) if len(sys.argv) > 3 else 0; n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
B = 4194304
T = float([l for l in open('%s/L%s.txt' % (d, k)) if l.split() and l.split()[0] == str(B)][0].split()[5]) * 1e-6
ranks = []
for pf in sorted(glob.glob('%s/L%s.[0-9]*' % (d, k))):
    R = []
    for r in [l.split() for l in open(pf)][1:]:
        if int(r[1]) != B: continue
        x = dict(post=float(r[2]), ptf=float(r[3]), drive=float(r[4]), done=float(r[5]), who=int(r[6]), cp=int(r[7]), ptc=int(r[10], 16), apc=int(r[11], 16), pts=int(r[15]), ptsu=float(r[16]))
        if x['drive'] > x['done']: x['drive'] = 0
        R.append(x)
    o = [x for x in R if not x['drive'] or x['drive'] - x['post'] >= 0.3 * T]
    ranks.append(o[:len(o) // 2])
# align the ranks by the collective's end (the same op ends within ~100 us on every rank)
import bisect
def match(R, t):
    ds = [x['done'] for x in R]; j = bisect.bisect_left(ds, t)
    c = [jj for jj in (j - 1, j) if 0 <= jj < len(R)]
    jj = min(c, key=lambda jj: abs(ds[jj] - t))
    return R[jj] if abs(ds[jj] - t) < 0.5 * T else None
for i in range(a, min(len(ranks[0]), a + n)):
    xs = [match(R, ranks[0][i]['done']) for R in ranks]
    if None in xs: continue
    p0 = min(x['post'] for x in xs)
    s = []
    for x in xs:
        u = lambda t: (t - p0) * 1e6
        s.append('p%4.0f +%5.0f w%5s d%5.0f%s c%d/%d/%d s%d' % (u(x['post']), (x['ptf'] - x['post']) * 1e6 if x['ptf'] else -1,
                 '%5.0f' % u(x['drive']) if x['drive'] else '    .', u(x['done']), '*' if x['who'] == 0 else ' ', x['cp'], x['ptc'], x['apc'], x['pts']))
    print('%3d ' % i + ' | '.join(s))
