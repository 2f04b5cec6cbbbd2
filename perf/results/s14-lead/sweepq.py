#!/usr/bin/env python3
"""sweepq.py RAW NPS: min / q1 / median per (ranks, bytes, algorithm) of a
perf/tune_sweep --raw file written by one sweep per rank count, in the order
NPS (comma-separated); each sweep's rounds are told apart by the round number
going back to 1."""
import collections, statistics, sys
raw, nps = sys.argv[1], [int(x) for x in sys.argv[2].split(',')]
d = collections.defaultdict(list)
sweep, last = -1, None
for l in open(raw):
    if l.startswith('#'):
        r = int(l.split()[2])
        if r == 1 and last != 1: sweep += 1
        last = r
        continue
    f = l.split()
    alg = f[3].split('=')[0] if not f[3].startswith('default') else 'default'
    d[(nps[sweep], int(f[2]), alg)].append(float(f[4]))
def q(v, p): v = sorted(v); return v[int(p * (len(v) - 1))]
print('| ranks | bytes | algorithm | n | min | q1 | median |')
print('| ---: | ---: | --- | ---: | ---: | ---: | ---: |')
for k in sorted(d):
    v = d[k]
    print('| %d | %d | %s | %d | %.2f | %.2f | %.2f |' % (k + (len(v), min(v), q(v, .25), statistics.median(v))))
