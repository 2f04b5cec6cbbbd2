import sys, glob, re, statistics as st, collections
# psum.py DIR PREFIX: per launch (files PREFIX.L.ARM.pid), per block size, per rank: medians
d, pre = sys.argv[1], sys.argv[2]
times = {}
for ln in open(d + '/log'):
    if ln.startswith('#'): continue
    f = ln.split()
    times[(f[0], f[1], f[2], int(f[3]))] = float(f[4])
groups = collections.defaultdict(list)
for p in glob.glob(f'{d}/{pre}.*'):
    key = p[len(d)+1:].rsplit('.', 1)[0]
    groups[key].append(p)
def med(x): return st.median(x) if x else float('nan')
for key in sorted(groups, key=lambda k: [int(t) if t.isdigit() else t for t in k.split('.')]):
    parts = key.split('.')
    l = parts[1]; arm = parts[2] if len(parts) > 2 else '-'
    rows = collections.defaultdict(list)
    for p in groups[key]:
        for ln in open(p):
            f = ln.split()
            coll, b, n, me = int(f[0]), int(f[1]), int(f[2]), int(f[3])
            kv = {}
            i = 4
            while i < len(f):
                k = f[i]; i += 1
                vals = []
                while i < len(f) and not re.match('[a-z]', f[i]):
                    vals.append(float(f[i])); i += 1
                kv[k] = vals
            rows[(b, me)].append(kv)
    for b in sorted(set(k[0] for k in rows)):
        tot = b * 4 if pre == 'a2a' else b
        t = times.get(('a2a' if pre == 'a2a' else 'red', l, arm, tot), float('nan'))
        print(f'{pre} L{l} {arm} {tot>>10}K plx_perf {t:.0f} us')
        for me in range(4):
            R = rows.get((b, me), [])[5:]
            if not R: continue
            cpus = collections.Counter(int(r['cpu'][0]) for r in R)
            mv = lambda k, j=0: med([r[k][j] for r in R])
            segs = ' '.join(f'{med([r["seg"][j] for r in R if r["seg"][j] >= 0]):6.0f}' for j in range(len(R[0]['seg'])))
            print(f'  r{me} n={len(R)} cpu0 {dict(cpus)} meet {mv("meet"):6.0f} segs {segs} work {mv("work"):6.0f} drain {mv("drain"):6.0f} run {mv("run"):6.0f} wait {mv("wait"):6.0f} rd {mv("rd"):5.0f} ar {mv("ar"):5.0f} wr {mv("wr"):5.0f} calls {mv("calls"):4.0f}')
