#!/usr/bin/env python3
# pos.py FILE... -- position bias of small_ratio.sh runs: for each pair of
# arms, the geometric mean over cells (coll, bytes) of the q1 quotient and
# how many cells exceed 1.10 by both min and q1 (the criterion's flag).
import sys, collections, math, itertools
def q1(v):
    v = sorted(v); k = (len(v) - 1) * 0.25; i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)
t = collections.defaultdict(lambda: collections.defaultdict(list))
algo = {}
names = []
for fn in sys.argv[1:]:
    for line in open(fn):
        if line.startswith('#') or not line.strip(): continue
        r, n, c, b, us, al = line.split()[:6]
        t[(fn, c, int(b))][n].append(float(us)); algo[(fn, n, c, int(b))] = al
        if n not in names and n != 'ompi': names.append(n)
for a, b in itertools.combinations(names, 2):
    lq, flags, cells = [], 0, 0
    for k, v in t.items():
        if a not in v or b not in v: continue
        if algo[(k[0], a, k[1], k[2])].split('/')[0] != algo[(k[0], b, k[1], k[2])].split('/')[0]: continue
        cells += 1
        qa, qb = q1(v[b]) / q1(v[a]), min(v[b]) / min(v[a])
        lq.append(math.log(qa))
        flags += (qa > 1.10 and qb > 1.10) or (1 / qa > 1.10 and 1 / qb > 1.10)
    print('%s/%s: %d cells (same algorithm), geomean q1 quotient %.3f, cells either way past 1.10 (min and q1): %d'
          % (b, a, cells, math.exp(sum(lq) / len(lq)), flags))
