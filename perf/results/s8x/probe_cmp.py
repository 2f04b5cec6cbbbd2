#!/usr/bin/env python3
"""probe_cmp.py DIR: for probe2.sh's launches, per variant and collective: per launch the
calls over 500 us (either rank) and the time in them, the meet waits over 500 us (a rank
waiting for the peer's next header: the peer came back late from a wait) and their time."""
import sys, os, glob, collections
o = sys.argv[1]; agg = collections.defaultdict(list)
for d in sorted(glob.glob(os.path.join(o, '*-l*-*'))):
    v, l, c = os.path.basename(d).split('-')
    R = {}
    for f in glob.glob(os.path.join(d, '*.txt')):
        rows = []; r = None
        for ln in open(f):
            if ln.startswith('#'): r = int(ln.split()[2]); continue
            p = ln.split(); rows.append(tuple(map(float, p[2:7])))
        R[r] = rows
    if len(R) != 2: continue
    a, b = R[0], R[1]; n = min(len(a), len(b))
    skip = {0, 306, 307}
    big = [max(a[i][4]-a[i][0], b[i][4]-b[i][0]) for i in range(n) if i not in skip]
    mt = [x[1]-x[0] for rr in (a, b) for i, x in enumerate(rr[:n]) if i not in skip]
    s = [t for t in big if t > 5e-4]; m = [t for t in mt if t > 5e-4]
    agg[(v, c)].append((len(s), sum(s)*1e3, len(m), sum(m)*1e3))
print('| variant | coll | launches | calls > 500 us per launch | ms in them | meet waits > 500 us | ms in them |')
print('| --- | --- | ---: | --- | --- | --- | --- |')
for (v, c), x in sorted(agg.items()):
    f = lambda k, fmt: ' '.join(fmt % y[k] for y in x)
    print('| %s | %s | %d | %s | %s | %s | %s |' % (v, c, len(x), f(0, '%d'), f(1, '%.0f'), f(2, '%d'), f(3, '%.0f')))
