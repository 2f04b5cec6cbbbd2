#!/usr/bin/env python3
"""probesum.py DIR ARM...: per arm over scprobe launches DIR/ARM-<i> (session s14b): launch means
(us per call), their median / q1 / max, and the share of calls in a 3:1 placement per launch;
launches with all 4 ranks on one CPU (another program held the other CPU) are listed apart."""
import sys, glob, collections, re
d = sys.argv[1]
def launch(pre, n=4):
    recs = []
    for r in range(n):
        recs.append([tuple(map(int, l.split())) for l in open(f"{pre}.{r}") if not l.startswith('#')])
    m = min(len(x) for x in recs)
    per = [(recs[0][i+1][1] - recs[0][i][1]) / 1e3 for i in range(m - 1)]
    kinds = collections.Counter()
    for i in range(m - 1):
        c = collections.Counter(recs[r][i][3] for r in range(n))
        kinds['4:0' if len(c) == 1 else '3:1' if max(c.values()) == 3 else '2:2'] += 1
    return sum(per) / len(per), {k: v / (m - 1) for k, v in kinds.items()}
for arm in sys.argv[2:]:
    files = sorted({re.sub(r'\.\d+$', '', f) for f in glob.glob(f"{d}/{arm}-[0-9]*.0")},
                   key=lambda s: int(s.rsplit('-', 1)[1]))
    ok, held = [], []
    for f in files:
        mean, k = launch(f)
        (held if k.get('4:0', 0) > 0.3 else ok).append((f.rsplit('/', 1)[1], mean, k.get('3:1', 0)))
    ms = sorted(x[1] for x in ok)
    q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
    print(f"{arm}: {len(ok)} launches: launch mean q1 {q(.25):.2f} median {q(.5):.2f} max {ms[-1]:.2f} us; "
          f"launches with >= 20% of calls 3:1: {sum(1 for x in ok if x[2] >= .2)}; calls 3:1 overall "
          f"{sum(x[2] for x in ok) / len(ok):.3f}")
    print("   " + " ".join(f"{m:.1f}/{s:.2f}" for _, m, s in ok) + (f"   (4:0, left out: {' '.join(f'{n} {m:.1f}' for n, m, _ in held)})" if held else ""))
