#!/usr/bin/env python3
# power.py AA FILE... -- what the rule would call a uniform slowdown by f of the A/A arm AA
# against before: Q and its interval scale by f exactly, so a cell is "worse" when f * lo > 1.10
# and "ok" when f * hi <= 1.10.  Prints, per f, the share of cells called worse / ok.
import sys
sys.path.insert(0, '../..')
import small_ratio_sum as S
aa = sys.argv[1]
t, algo, names, colls = S.load(sys.argv[2:])
ci = [S.boot(rows, aa, 'before')[1:] for rows in S.cells(t, colls).values()]
print('| f | worse | ok | (of %d cells) |' % len(ci))
print('| --- | --- | --- | --- |')
for f in (1.00, 1.05, 1.10, 1.15, 1.20, 1.30, 1.50):
    print('| %.2f | %d | %d | |' % (f, sum(f * lo > 1.10 for lo, hi in ci), sum(f * hi <= 1.10 for lo, hi in ci)))
