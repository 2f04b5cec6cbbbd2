#!/usr/bin/env python3
# perf/results/s11o/sched_split.py TIMEHIST: from `perf sched timehist` of one 2-rank plx_perf
# --overlap launch, per rank, the idle overlap phase cut into iterations (from one sleep of the
# application thread to the next: a switch-out followed by a 100-400 us wait), and per iteration
# the on-CPU time of the application thread, its progress thread, other tasks and idle on the
# rank's CPU; the application thread's scheduling delay after each sleep (wake-up to running).
import sys, re, statistics as st, collections
L = []
for l in open(sys.argv[1]):
    p = l.split()
    if len(p) < 6 or not p[0][0].isdigit(): continue
    try:
        ts = float(p[0]); cpu = int(p[1].strip('[]')); name = ' '.join(p[2:-3]); w, d, r = map(float, p[-3:])
    except ValueError:
        continue
    L.append((ts, cpu, name, w * 1e3, d * 1e3, r * 1e3))
names = collections.Counter(x[2] for x in L if x[2].startswith('plx_perf['))
mains = sorted(n for n in names if '/' not in n)
for main in mains:
    pid = main[len('plx_perf['):-1]
    pts = [n for n in names if n.endswith('/' + pid + ']')]
    pt = max(pts, key=lambda n: names[n])
    m = [x for x in L if x[2] == main]
    cpu = collections.Counter(x[1] for x in m).most_common(1)[0][0]
    sl = [k for k in range(1, len(m)) if 100 < m[k][3] < 400]
    bounds = [m[k - 1][0] for k in sl]
    its = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1) if bounds[i + 1] - bounds[i] < 0.001]
    C = [x for x in L if x[1] == cpu]
    per = []
    j0 = 0
    for (a, b) in its:
        s = collections.Counter()
        while j0 < len(C) and C[j0][0] < a: j0 += 1
        for x in C[j0:]:
            s0 = x[0] - x[5] / 1e6
            if s0 > b: break
            ov = (min(x[0], b) - max(s0, a)) * 1e6
            if ov <= 0: continue
            k = 'app' if x[2] == main else 'progress' if x[2] == pt else 'idle' if 'idle' in x[2] else 'other'
            s[k] += ov
        s['iteration'] = (b - a) * 1e6
        per.append(s)
    print('%s (progress thread %s) cpu %d: %d iterations; us per iteration:' % (main, pt, cpu, len(per)))
    for k in ['iteration', 'app', 'progress', 'other', 'idle']:
        v = sorted(p[k] for p in per)
        print('  %-9s p10 %6.1f  median %6.1f  mean %6.1f  p90 %6.1f' % (k, v[len(v) // 10], st.median(v), sum(v) / len(v), v[9 * len(v) // 10]))
    d = sorted(m[k][4] for k in sl)
    print('  app thread scheduling delay after its sleeps: p10 %.1f median %.1f p90 %.1f us' % (d[len(d) // 10], st.median(d), d[9 * len(d) // 10]))
