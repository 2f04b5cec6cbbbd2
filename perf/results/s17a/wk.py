#!/usr/bin/env python3
"""wk.py DIR...: per rank, the pt's work call (meet -> work end, us) of the idle iterations, split by
whether the application thread's wake-up (sleep's return) came before that work ended or after."""
import glob, statistics as st, sys
for d in sys.argv[1:]:
    for pf in sorted(glob.glob(d + '/L*.perf.*')):
        base, pid = pf.rsplit('.perf.', 1)
        lib = sorted([list(map(float, l.split())) for l in open(base + '.lib.' + pid)], key=lambda r: r[1])
        per = [list(map(float, l.split())) for l in open(pf)]
        a_in, a_out, j = [], [], 0
        for k, a, b, c, dd in per:
            if k != 0: continue
            while j < len(lib) and lib[j][1] < a: j += 1
            if j >= len(lib) or lib[j][1] > b: continue
            r = lib[j]
            if not (r[4] and r[5]) or r[12] > 2: continue     # whole work in one pt call only
            (a_in if c < r[5] else a_out).append(r[5] - r[4])
        f = lambda x: '%4d x med %6.1f q1 %6.1f' % (len(x), st.median(x), sorted(x)[len(x) // 4]) if x else '   0'
        print('%-28s wake inside work: %s | wake after work: %s' % (pf.split('/')[-2] + '/' + pf.split('/')[-1], f(a_in), f(a_out)))
