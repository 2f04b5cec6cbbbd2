#!/usr/bin/env python3
# matrix.py ARM FILE... -- ARM against before by small_ratio_sum.py's rule, one row per
# collective, one column per size: Q [lo-hi] and the verdict (w: worse, n: not excluded, blank: ok).
import sys
sys.path.insert(0, '../..')
import small_ratio_sum as S
arm = sys.argv[1]
t, algo, names, colls = S.load(sys.argv[2:])
cs = S.cells(t, colls)
sizes = sorted({b for c, b in cs})
lab = lambda b: '%dK' % (b // 1024) if b >= 1024 else '%d' % b
print('| coll | ' + ' | '.join(lab(b) for b in sizes) + ' |')
print('| --- |' + ' --- |' * len(sizes))
for c in colls:
    row = []
    for b in sizes:
        if (c, b) not in cs: row.append('-'); continue
        p, lo, hi = S.boot(cs[(c, b)], arm, 'before')
        v = S.verdict(lo, hi, 1.10)
        row.append('%.2f [%.2f-%.2f]%s' % (p, lo, hi, {'worse': ' **w**', 'not excluded': ' n', 'ok': ''}[v]))
    print('| %s | ' % c + ' | '.join(row) + ' |')
