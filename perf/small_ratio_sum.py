#!/usr/bin/env python3
# perf/small_ratio_sum.py -- the table of perf/small_ratio.sh runs: per
# collective and size, each build's time as the ratio to Open MPI's in the
# same run (first quartile over rounds of each; 2-rank launches are
# bimodal, the low statistics see the fast mode), and each build against
# the first one (BASE) as the quotient of those ratios, which within one
# interleaved run is the quotient of the builds' minima and first
# quartiles.
#
#   perf/small_ratio_sum.py [--base NAME] [--sizes 8,64,...] FILE...
#
# Prints a markdown table: coll bytes, per build "min / q1 time (us)",
# Open MPI's, per build q1 / Open MPI's q1, per build other than BASE
# "x/BASE by min, by q1" (a "!" marks a quotient above 1.10 in both), and
# the number of rounds.
import sys, collections

def q1(v):
    v = sorted(v)
    if not v:
        return float('nan')
    k = (len(v) - 1) * 0.25
    i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)

args = sys.argv[1:]
base, sizes = None, None
while args and args[0].startswith('--'):
    if args[0] == '--base':
        base = args[1]; args = args[2:]
    elif args[0] == '--sizes':
        sizes = {int(x) for x in args[1].split(',')}; args = args[2:]
    else:
        sys.exit('unknown option ' + args[0])
t = collections.defaultdict(dict)        # (file, round, coll, bytes) -> {name: us}
algo = {}
names, colls = [], []
for fn in args:
    for line in open(fn):
        if line.startswith('#') or not line.strip():
            continue
        r, name, c, b, us, al = line.split()[:6]
        b = int(b)
        if sizes and b not in sizes:
            continue
        t[(fn, r, c, b)][name] = float(us)
        if name != 'ompi':
            algo[(name, c, b)] = al
            if name not in names:
                names.append(name)
        if c not in colls:
            colls.append(c)
base = base or names[0]
others = [n for n in names if n != base]
hdr = ['coll', 'bytes'] + ['%s min/q1 (algo)' % n for n in names] + ['ompi min/q1'] + \
      ['%s/ompi (q1)' % n for n in names] + ['%s/%s (min, q1)' % (n, base) for n in others] + ['rounds']
print('| ' + ' | '.join(hdr) + ' |')
print('| ' + ' | '.join(['---'] * len(hdr)) + ' |')
for c in colls:
    for b in sorted({k[3] for k in t if k[2] == c}):
        rows = [v for k, v in t.items() if k[2] == c and k[3] == b and 'ompi' in v]
        tm = {n: [v[n] for v in rows if n in v] for n in names + ['ompi']}
        cells = ['%s' % c, '%d' % b]
        for n in names:
            cells.append('%.2f / %.2f (%s)' % (min(tm[n]), q1(tm[n]), algo.get((n, c, b), '?').split('/')[0]))
        cells.append('%.2f / %.2f' % (min(tm['ompi']), q1(tm['ompi'])))
        for n in names:
            cells.append('%.2f' % (q1(tm[n]) / q1(tm['ompi'])))
        # the ratios to Open MPI of one run share its figure: their quotient
        # is the quotient of the builds' statistics
        for n in others:
            a = min(tm[n]) / min(tm[base])
            q = q1(tm[n]) / q1(tm[base])
            cells.append('%s%.2f, %.2f' % ('! ' if a > 1.10 and q > 1.10 else '', a, q))
        cells.append('%d' % len(rows))
        print('| ' + ' | '.join(cells) + ' |')
