import sys, collections
# slowfrac.py FILE...: per cell, launches per arm over 1.25x the cell's fastest launch (both arms)
T = collections.defaultdict(list)
for f in sys.argv[1:]:
    for ln in open(f):
        if ln.startswith('#'): continue
        p = ln.split()
        if len(p) < 5: continue
        T[(p[2], int(p[3]), f)].append((p[1], float(p[4])))
agg = collections.defaultdict(lambda: [0, 0])
for (c, b, f), v in T.items():
    m = min(t for _, t in v)
    for arm, t in v:
        a = agg[(c, b, arm)]; a[0] += t > 1.25 * m; a[1] += 1
for k in sorted(agg):
    print(k[0], k[1], k[2], '%d / %d' % tuple(agg[k]))
