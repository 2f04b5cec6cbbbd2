#!/usr/bin/env python3
"""pt0.py DIR...: per rank, the progress thread's start after an idle iteration's post (medians, us):
b->seen: from the post's return (the app thread then sleeps) to the lingering thread seeing the post;
seen->adv: from there to its first advance of the op (lock, transport poll); share of ops it saw while lingering."""
import glob, statistics as st, sys
for d in sys.argv[1:]:
    for pf in sorted(glob.glob(d + '/L*.perf.*')):
        base, pid = pf.rsplit('.perf.', 1)
        lib = sorted([list(map(float, l.split())) for l in open(base + '.lib.' + pid)], key=lambda r: r[1])
        per = [list(map(float, l.split())) for l in open(pf)]
        x1, x2, n, j = [], [], 0, 0
        for k, a, b, c, dd in per:
            if k != 0: continue
            while j < len(lib) and lib[j][1] < a: j += 1
            if j >= len(lib) or lib[j][1] > b: continue
            r = lib[j]; n += 1
            if r[14] and r[2] and r[14] <= r[2]: x1.append(r[14] - b); x2.append(r[2] - r[14])
        print('%-24s n %4d seen %3d%%  b->seen %.1f (q1 %.1f)  seen->adv %.1f' % (pf.split('/')[-2] + '/' + pf.split('/')[-1], n, 100 * len(x1) // max(n, 1),
              st.median(x1), sorted(x1)[len(x1) // 4], st.median(x2)))
