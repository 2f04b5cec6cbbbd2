#!/usr/bin/env python3
# paired.py FILE...: per collective and size of an ab.sh file, the median over
# rounds of fix/base in the same round, with a 90 % bootstrap interval.
import collections, statistics, random, sys
for fn in sys.argv[1:]:
    t = collections.defaultdict(dict)
    for l in open(fn):
        if l.startswith('#'):
            continue
        r, n, c, b, us = l.split()[:5]
        t[(c, int(b), r)][n] = float(us)
    for c, b in sorted(set((c, b) for c, b, r in t)):
        q = [v['fix'] / v['base'] for (cc, bb, r), v in t.items() if (cc, bb) == (c, b) and len(v) == 2]
        random.seed(1)
        bs = sorted(statistics.median(random.choices(q, k=len(q))) for _ in range(2000))
        print(fn, c, b, len(q), '%.3f [%.3f, %.3f]' % (statistics.median(q), bs[100], bs[1899]))
