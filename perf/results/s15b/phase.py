#!/usr/bin/env python3
"""phase.py DIR [BYTES]: per launch of dprobe.sh, the direct probe's per-op times split into the
blocking loop (t_comm) and the idle overlap loop, each rank: mean rd (us reading the peer's input
in reductions) + ar (arithmetic), the op's end since its start, ops the application thread finished
(tcall >= 0: it woke before the op was done); with the launch's t_comm, idle overlap, and the
plx_perf probe's mean sleep overrun and wait.  Ops in a launch: 5 warmup, 1 sizing, n blocking,
5 warmup + n idle + 1 check, 5 + n busy + 1 (n from the PRB line)."""
import glob, lzma, os, re, sys
d = sys.argv[1]; want = sys.argv[2] if len(sys.argv) > 2 else '16777216'
def opn(f): return lzma.open(f, 'rt') if f.endswith('.xz') else open(f)
rows = []
for txt in sorted(glob.glob(d + '/L*.txt'), key=lambda s: int(re.search(r'L(\d+)', s).group(1))):
    L = int(re.search(r'L(\d+)\.txt', txt).group(1))
    t = open(txt).read()
    m = re.search(r'^\s+%s\s+\d+\s+\S+\s+\S+\s+\S+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+([-\d.]+)' % want, t, re.M)
    prb = re.findall(r'PRB r(\d) count \d+ T ([\d.]+) n (\d+) .*?over mean ([\d.]+) .*?wait mean ([\d.]+)', t)
    if not m or not prb: continue
    n = int(prb[0][2])
    out = 'L%-2d tcomm %7.1f ovl %.3f |' % (L, float(m.group(1)), float(m.group(4)))
    for f in sorted(glob.glob('%s/L%d.[0-9]*' % (d, L))):
        ops = [l.split() for l in opn(f) if l.split()[1] == want]
        blk = ops[6:6 + n]; idle = ops[6 + n + 5:6 + 2 * n + 5]
        def mean(v): return sum(v) / len(v) if v else float('nan')
        rb = mean([float(o[23]) + float(o[25]) for o in blk]); ri = mean([float(o[23]) + float(o[25]) for o in idle])
        eb = mean([float(o[12]) for o in blk]); ei = mean([float(o[12]) for o in idle])
        late = sum(1 for o in idle if float(o[33]) >= 0)
        out += ' r%s rd+ar blk %6.1f idle %6.1f (x%.2f) end blk %6.1f idle %6.1f late %2d/%d |' % (ops[0][3], rb, ri, ri / rb, eb, ei, late, len(idle))
    out += ' ' + ' '.join('r%s over %s wait %s' % (p[0], p[3], p[4]) for p in prb)
    rows.append(out)
print('\n'.join(rows))
