#!/usr/bin/env python3
"""modes.py SMALL_RATIO_OUT: per arm and size, min, median and the share of
launches slower than 1.8x that arm's minimum (the slow mode of 4 ranks on
2 cores) in a perf/small_ratio.sh file."""
import collections, sys
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    f = l.split()
    d[(f[1], int(f[3]))].append(float(f[4]))
arms = sorted({a for a, _ in d})
print('| bytes | ' + ' | '.join('%s min / median / slow share' % a for a in arms) + ' |')
print('| ---: |' + ' --- |' * len(arms))
for b in sorted({b for _, b in d}):
    cells = []
    for a in arms:
        v = sorted(d[(a, b)])
        cells.append('%.2f / %.2f / %.2f' % (v[0], v[len(v) // 2], sum(x > 1.8 * v[0] for x in v) / len(v)))
    print('| %d | %s |' % (b, ' | '.join(cells)))
