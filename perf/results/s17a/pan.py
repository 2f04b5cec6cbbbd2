#!/usr/bin/env python3
"""pan.py DIR: per launch and rank, the probe (probe.patch) split of one size's idle overlap iterations
and of its blocking (t_comm) loop.  Times in us from the post's start (overlap) / the op's post (blocking).
P = post cost; pt0 = progress thread's first advance; meet, work = end of meet / of the work; end = op end;
wake = sleep's return; W = wait (wake -> return); unf = share of wake-ups that found the op unfinished;
fin = who finished it (pt / app)."""
import glob, os, re, statistics as st, sys
d = sys.argv[1]
def med(x): return st.median(x) if x else float('nan')
for txt in sorted(glob.glob(d + '/L*.txt'), key=lambda p: int(re.findall(r'L(\d+)', p)[-1])):
    base = txt[:-4]
    tcomm = None
    for l in open(txt):
        f = l.split()
        if f and f[0].isdigit() and len(f) > 12: tcomm = float(f[5]); ov = float(f[-6])
    if tcomm is None: continue
    print('%s t_comm %.1f idle overlap %.3f' % (os.path.basename(base), tcomm, ov))
    for pf in sorted(glob.glob(base + '.perf.*')):
        pid = pf.split('.')[-1]
        lib = [list(map(float, l.split())) for l in open(base + '.lib.' + pid)]
        per = [list(map(float, l.split())) for l in open(pf)]
        first = min(p[1] for p in per)
        blk = [r for r in lib if r[1] < first and r[0] >= 1 << 20][-200:]
        # blocking: app first advance at post; ends
        be = [r[6] - r[1] for r in blk]; bm = [r[4] - r[1] for r in blk if r[4]]; bw = [r[5] - r[1] for r in blk if r[5]]
        bin_ = [r[11] for r in blk]; bc = [r[13] for r in blk]; bwk = [r[5] - r[4] for r in blk if r[4] and r[5]]
        rows = []
        j = 0
        lib.sort(key=lambda r: r[1])
        for k, a, b, c, dd in per:
            if k != 0: continue
            while j < len(lib) and lib[j][1] < a: j += 1
            if j >= len(lib) or lib[j][1] > b: continue
            r = lib[j]
            rows.append(dict(P=b - a, pt0=(r[2] - a) if r[2] else float('nan'), meet=(r[4] - a) if r[4] else float('nan'),
                             work=(r[5] - a) if r[5] else float('nan'), end=r[6] - a, wake=c - a, over=c - b - tcomm,
                             W=dd - c, unf=r[6] > c, fin=int(r[7]), app=(r[3] - a) if r[3] else float('nan'),
                             ptp=r[8], appp=r[9], ptin=r[10], appin=r[11], ptc=r[12], appc=r[13],
                             wk=(r[5] - r[4]) if r[4] and r[5] else float('nan')))
        rows = rows[len(rows) // 10:]   # drop the warm-up share
        if not rows: continue
        g = lambda k: med([x[k] for x in rows if x[k] == x[k]])
        unf = [x for x in rows if x['unf']]
        mean = lambda k: st.mean([x[k] for x in rows])
        print('  pid %s blocking: n %d end %.1f meet %.1f work-meet %.1f in-adv %.1f calls %d' % (pid, len(blk), med(be), med(bm), med(bwk), med(bin_), med(bc)))
        print('    idle n %d: P %.1f pt0 %.1f meet %.1f work-meet %.1f end %.1f | pt in-adv %.1f calls %d app in-adv %.1f | wake %.1f over %.1f W med %.1f mean %.1f P mean %.2f' % (
            len(rows), g('P'), g('pt0'), g('meet'), g('wk'), g('end'), g('ptin'), g('ptc'), g('appin'), g('wake'), g('over'), g('W'), mean('W'), mean('P')))
        print('  pid %s blocking: n %d end %.1f meet %.1f work %.1f | idle n %d: P %.1f pt0 %.1f meet %.1f work %.1f end %.1f wake %.1f (over %.1f) W %.1f | unf %d%% fin_app %d%% | unf: end-wake %.1f W %.1f app_takeover %.1f'
              % (pid, len(blk), med(be), med(bm), med(bw), len(rows), g('P'), g('pt0'), g('meet'), g('work'), g('end'), g('wake'), g('over'), g('W'),
                 100 * len(unf) // len(rows), 100 * sum(x['fin'] == 2 for x in rows) // len(rows),
                 med([x['end'] - x['wake'] for x in unf]), med([x['W'] for x in unf]), med([x['app'] - x['wake'] for x in unf if x['app'] == x['app']])))
