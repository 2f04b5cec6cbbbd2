#!/usr/bin/env python3
"""ana2.py DIR [BYTES]: per launch, over the 4 ranks: blocking op time (post -> done) q1/med/q3, idle-loop ops
finished by the progress thread before the wake (n, q1/med/q3 of post -> done) and those the waiter finished
(n, post -> done, wake -> done), the iteration's end across ranks (last done - first post), ptfirst percentiles."""
import glob, re, statistics as st, sys
d = sys.argv[1]; B = int(sys.argv[2]) if len(sys.argv) > 2 else 4194304
def q(x, p):
    s = sorted(x); return s[int(p * (len(s) - 1))] if s else float('nan')
def qs(x): return '%5.0f/%5.0f/%5.0f' % (q(x, .25), q(x, .5), q(x, .75))
for txt in sorted(glob.glob(d + '/L*.txt'), key=lambda s: int(re.findall(r'L(\d+)', s)[-1])):
    k = re.findall(r'L(\d+)', txt)[-1]
    f = [l for l in open(txt) if l.split() and l.split()[0] == str(B)][0].split()
    T = float(f[5]) * 1e-6
    ranks = []
    for pf in sorted(glob.glob('%s/L%s.[0-9]*' % (d, k))):
        R = []
        for r in [l.split() for l in open(pf)][1:]:
            if int(r[1]) != B: continue
            post, ptf, drive, done, who = float(r[2]), float(r[3]), float(r[4]), float(r[5]), int(r[6])
            if drive > done: drive = 0
            R.append((post, ptf, drive, done, who))
        ranks.append(R)
    blk, pt, late, latew, ptf, span_b, span_i = [], [], [], [], [], [], []
    for R in ranks:
        b = [r for r in R if r[2] and r[2] - r[0] < 0.3 * T]
        o = [r for r in R if not r[2] or r[2] - r[0] >= 0.3 * T]
        o = o[:len(o) // 2]
        blk += [(r[3] - r[0]) * 1e6 for r in b]
        pt += [(r[3] - r[0]) * 1e6 for r in o if not r[2]]
        late += [(r[3] - r[0]) * 1e6 for r in o if r[2]]
        latew += [(r[3] - r[2]) * 1e6 for r in o if r[2]]
        ptf += [(r[1] - r[0]) * 1e6 for r in o if r[1]]
    print('L%s T %.0f ovl %s | block %s | pt-fin n=%3d %s | late n=%3d op %s wait %s | ptfirst q50/q75/q90 %.0f/%.0f/%.0f' % (
        k, T * 1e6, f[9], qs(blk), len(pt), qs(pt), len(late), qs(late), qs(latew), q(ptf, .5), q(ptf, .75), q(ptf, .9)))
