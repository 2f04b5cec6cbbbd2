#!/usr/bin/env python3
"""pcsum.py FILE...: the "pc" lines of ab.sh (percall.c, base build; or "pc-base" / "pc-new" of
ab_thp.sh, then new / base per round): per collective and kind
(lib, raw+b, raw, raw-copy, raw-read), over the rounds: the slower rank's median call and
mean call (median over rounds, and the range), and lib / raw+b per round (median call).
With the "lim" lines of the same rounds: the exchange figure (best, mean pass) as us per call."""
import sys, statistics as st, collections
D = collections.defaultdict(dict); L = collections.defaultdict(list)
for f in sys.argv[1:]:
    for ln in open(f):
        p = ln.split()
        if len(p) > 3 and p[1] == 'lim': L[p[2]].append(float(p[3]))
        if len(p) < 6 or not p[1].startswith('pc'): continue
        r, rank, coll, n, kind = p[0], p[2], p[3], int(p[4]), p[5]
        if p[1] != 'pc': kind = p[1][3:] + ':' + kind   # ab_thp.sh: pc-base, pc-new
        kv = dict(x.split('=') for x in p[6:])
        d = D[(coll, n, kind)].setdefault(r, {})
        for k in ('med', 'mean', 'p25'):
            d[k] = max(d.get(k, 0), float(kv[k]))
for (coll, n) in sorted(set(k[:2] for k in D)):
    print('%s %d (%d rounds)' % (coll, n, max(len(v) for k, v in D.items() if k[:2] == (coll, n))))
    kinds = ('lib', 'raw+b', 'raw', 'raw-copy', 'raw-read')
    labels = sorted(set(k[2].split(':')[0] for k in D if k[:2] == (coll, n) and ':' in k[2]))
    if labels: kinds = [l + ':' + k for k in kinds for l in labels]
    for kind in kinds:
        x = D.get((coll, n, kind))
        if not x: continue
        meds = [v['med'] for v in x.values()]; means = [v['mean'] for v in x.values()]
        print('  %-9s median call %.1f (%.1f-%.1f)  mean call %.1f (%.1f-%.1f)' % (kind, st.median(meds), min(meds), max(meds),
              st.median(means), min(means), max(means)))
    if labels:
        b_, n_ = D[(coll, n, 'base:lib')], D[(coll, n, 'new:lib')]
        rat = sorted(n_[r]['med'] / b_[r]['med'] for r in n_ if r in b_)
        print('  new / base library median call, per round: ' + ' '.join('%.3f' % v for v in rat))
        continue
    lib, rb = D[(coll, n, 'lib')], D[(coll, n, 'raw+b')]
    rat = sorted(lib[r]['med'] / rb[r]['med'] for r in lib if r in rb)
    print('  lib / raw+b by median call, per round: ' + ' '.join('%.3f' % v for v in rat))
    key = 'cma_exch_pair_gbps_%d' if coll == 'allgather' else 'cma_exch_a2a_pair_gbps_%d'
    mkey = 'cma_exch_mean_pair_gbps_%d' if coll == 'allgather' else 'cma_exch_a2a_mean_pair_gbps_%d'
    if L.get(key % n):
        b, m = st.median(L[key % n]), st.median(L[mkey % n])
        print('  limits exchange: best pass %.1f us (%.2f GB/s), mean pass %.1f us (%.2f GB/s)' % (n / 2 / b / 1e3, b, n / 2 / m / 1e3, m))
