#!/usr/bin/env python3
# calib.py BASE AA FILE... -- A/A calibration of perf/small_ratio_sum.py's rule: for candidate
# statistics and interval levels, how often the same build against itself (arms BASE and AA)
# is called "worse" (interval above 1.10) or "not excluded" (straddling), how often the interval
# misses the true 1.00 (should be about 1 - level), the spread of the point quotients, and the
# old rule's flags (min and q1 quotients both > 1.10). --rounds K: only the first K rounds of
# each file.  Run from perf/results/s11s (imports ../../small_ratio_sum.py).
import sys, math, statistics
sys.path.insert(0, '../..')
import small_ratio_sum as S

def q1of(f):
    return lambda rows, x, b: S.q1([f(v, x) for v in rows]) / S.q1([f(v, b) for v in rows])
def minof(f):
    return lambda rows, x, b: min(f(v, x) for v in rows) / min(f(v, b) for v in rows)
def medof(f):
    return lambda rows, x, b: statistics.median([f(v, x) for v in rows]) / statistics.median([f(v, b) for v in rows])
ratio = lambda v, n: v[n] / v['ompi']
raw = lambda v, n: v[n]
def paired_med(rows, x, b):
    return statistics.median([v[x] / v[b] for v in rows])
def paired_q1(rows, x, b):   # q1 of the per-round quotient: slow rounds of x removed
    return S.q1([v[x] / v[b] for v in rows])
STATS = [('q1 ratio', q1of(ratio)), ('q1 raw', q1of(raw)), ('min ratio', minof(ratio)),
         ('median ratio', medof(ratio)), ('paired median', paired_med)]
args = sys.argv[1:]
K = None
if args[0] == '--rounds':
    K = int(args[1]); args = args[2:]
base, aa, files = args[0], args[1], args[2:]
t, algo, names, colls = S.load(files)
if K:
    t = {k: v for k, v in t.items() if int(k[1]) <= K}
cs = S.cells(t, colls)
nr = max(len(r) for r in cs.values())
old = 0
for rows in cs.values():
    a = min(v[aa] for v in rows) / min(v[base] for v in rows)
    q = S.q1([v[aa] for v in rows]) / S.q1([v[base] for v in rows])
    old += a > 1.10 and q > 1.10
print('%s: %d cells, %d rounds; old rule flags %d' % (' '.join(files), len(cs), nr, old))
print('| statistic | gSD of Q | Q > 1.10 | level | worse | not excl. | CI misses 1.00 | median CI width |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
for sn, f in STATS:
    ps = [f(rows, aa, base) for rows in cs.values()]
    gsd = math.exp(statistics.pstdev([math.log(p) for p in ps]))
    for lv in (0.80, 0.90, 0.95):
        w = ne = miss = 0; widths = []
        for rows in cs.values():
            p, lo, hi = S.boot(rows, aa, base, stat=f, level=lv, reps=1000)
            v = S.verdict(lo, hi, 1.10)
            w += v == 'worse'; ne += v == 'not excluded'; miss += lo > 1.0 or hi < 1.0
            widths.append(hi / lo)
        print('| %s | %.3f | %d | %.2f | %d | %d | %d (%.0f%%) | %.2f |' % (sn, gsd, sum(p > 1.10 for p in ps), lv, w, ne, miss, 100.0 * miss / len(cs), statistics.median(widths)))
