#!/usr/bin/env python3
# arms_sum.py FILE... -- min / q1 / median (us) per arm, collective and size of lines
# "round arm coll bytes time_us algorithm" (the launches of each arm).
import sys, collections
sys.path.insert(0, '../..')
from small_ratio_sum import q1, median
t = collections.defaultdict(list); arms = []
for fn in sys.argv[1:]:
    for l in open(fn):
        if l.startswith('#') or not l.strip(): continue
        r, a, c, b, us = l.split()[:5]
        t[(c, int(b), a)].append(float(us))
        if a not in arms: arms.append(a)
keys = sorted({(c, b) for c, b, a in t})
print('| coll | bytes | ' + ' | '.join(arms) + ' |')
print('| --- | --- |' + ' --- |' * len(arms))
for c, b in keys:
    print('| %s | %d | ' % (c, b) + ' | '.join('%.3f / %.3f / %.3f (%d)' % (min(v), q1(v), median(v), len(v)) if v else '-' for v in [t[(c, b, a)] for a in arms]) + ' |')
