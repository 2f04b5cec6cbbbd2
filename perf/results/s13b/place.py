import sys, glob, collections, statistics as st
# place.py DIR PREFIX: per launch and arm: plx_perf time, and the share of calls in a 3:1 placement
# (by each rank's CPU at the start of the call), and median call time (drain end) in 3:1 / 2:2 calls
d, pre = sys.argv[1], sys.argv[2]
times = {}
for ln in open(d + '/log'):
    if ln.startswith('#'): continue
    f = ln.split(); times[(f[0], f[1], f[2])] = float(f[4])
groups = collections.defaultdict(list)
for p in glob.glob(f'{d}/{pre}.*'):
    groups[p[len(d)+1:].rsplit('.', 1)[0]].append(p)
agg = collections.defaultdict(lambda: [0, 0, [], [], []])
for key in sorted(groups, key=lambda k: (int(k.split('.')[1]), k)):
    ks = key.split('.'); l = ks[1]; arm = ks[2] if len(ks) > 2 else '-'
    per = {}
    for p in groups[key]:
        R = []
        for ln in open(p):
            f = ln.split()
            i = f.index('cpu'); j = f.index('drain')
            R.append((int(f[i+1]), float(f[j+1]), int(f[1])))
        per[int(open(p).readline().split()[3])] = R
    if len(per) < 4: continue
    n = min(len(v) for v in per.values())
    big = max(v[-1][2] for v in per.values())
    c31 = c22 = 0; t31 = []; t22 = []
    for k in range(n):
        if per[0][k][2] != big: continue
        cpus = collections.Counter(per[m][k][0] for m in range(4))
        t = max(per[m][k][1] for m in range(4))
        if max(cpus.values()) >= 3: c31 += 1; t31.append(t)
        else: c22 += 1; t22.append(t)
    tt = times.get(('a2a' if pre == 'a2a' else 'red', l, arm), 0)
    a = agg[arm]; a[0] += c31; a[1] += c22; a[2] += t31; a[3] += t22; a[4].append(tt)
    print(f'{pre} L{l} {arm:4s} perf {tt:6.0f} us  3:1 calls {c31:4d} / {c31+c22:4d}  med 3:1 {st.median(t31) if t31 else 0:6.0f} 2:2 {st.median(t22) if t22 else 0:6.0f}')
for arm, a in agg.items():
    print(f'{pre} {arm}: 3:1 share {a[0]/(a[0]+a[1]):.2f}, med 3:1 {st.median(a[2]) if a[2] else 0:.0f} 2:2 {st.median(a[3]) if a[3] else 0:.0f}, perf {sorted(int(x) for x in a[4])}')
