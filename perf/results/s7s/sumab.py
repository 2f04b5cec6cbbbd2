#!/usr/bin/env python3
# sumab.py FILE...: per (coll, bytes, name) min / q1 / median of the mean time over ranks,
# and the medians of context switches and CPU ms per launch (abstat.sh lines)
import sys, collections, statistics
d = collections.defaultdict(list); algo = {}
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#') or not l.strip(): continue
        p = l.split()
        try:
            r, name, coll, b, t = p[0], p[1], p[2], int(p[3]), float(p[4])
        except (ValueError, IndexError):
            continue
        kv = dict(x.split('=') for x in p if '=' in x)
        d[(coll, b, name)].append((t, int(kv.get('cs', 0) or 0), int(kv.get('cpu_ms', 0) or 0)))
        algo[(coll, b, name)] = p[7] if len(p) > 7 else '?'
def q(v, f):
    v = sorted(v); k = (len(v) - 1) * f; i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)
print('| coll | bytes | build | algo | min | q1 | median | cs (median) | cpu ms (median) | n |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for k in sorted(d, key=lambda k: (k[0], k[1])):
    v = d[k]; t = [x[0] for x in v]
    print('| %s | %d | %s | %s | %.2f | %.2f | %.2f | %d | %d | %d |' % (k[0], k[1], k[2], algo[k], min(t), q(t, .25), q(t, .5),
          statistics.median([x[1] for x in v]), statistics.median([x[2] for x in v]), len(v)))
