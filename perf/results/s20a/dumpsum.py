#!/usr/bin/env python3
"""dumpsum.py FILE: from probe.sh's --dump blocks (rank 0, comm_first, one launch each), each
bucket's time in its turn (its end minus the later of its post and the previous one's end)
against its time in b2b's last pass, summed by size class over all launches; and each sleep's
lateness (its length minus the asked) by what the main thread was in at the sleep's end."""
import re, sys, collections as C
cls = lambda b: '<=64K' if b <= 65536 else '64K-2M' if b < 2 << 20 else '2M-4M' if b < 4 << 20 else '4M+'
turn = C.defaultdict(float); b2b = C.defaultdict(float); cnt = C.Counter()
late = C.defaultdict(list)
asked = None
blocks = []; cur = []
for line in open(sys.argv[1]):
    m = re.search(r'compute ([\d.]+) ms per layer', line)
    if m: asked = float(m.group(1))
    m = re.match(r'\s+(\d+) (\S+)\s+(\d+)\s+compute\s+([\d.]+)-\s*([\d.]+)\s+allreduce\s+([\d.]+)-\s*([\d.]+) \(([\d.]+) ms; alone ([\d.]+), back to back ([\d.]+)', line)
    if m:
        g = m.groups(); cur.append((int(g[2]), float(g[3]), float(g[4]), float(g[5]), float(g[6]), float(g[9])))
        if int(g[0]) == 49: blocks.append((asked, cur)); cur = []
blocks = blocks[0::2]   # per launch the idle kind's dump comes first, then busy's
for asked, b in blocks:
    pe = 0
    for i, (by, cs, ce, as_, ae, bb) in enumerate(b):
        st = max(as_, pe); turn[cls(by)] += ae - st; b2b[cls(by)] += bb; cnt[cls(by)] += 1; pe = ae
    for i, (by, cs, ce, as_, ae, bb) in enumerate(b):
        if i == 0: continue
        l = (ce - cs) - asked
        inflight = [x for x in b if x[3] <= ce <= x[4]]
        # the one in its turn: the earliest posted among those in flight
        what = cls(inflight[0][0]) if inflight else 'none'
        late[what].append(l * 1e3)
print('launches', len(blocks))
print('| size class | buckets | in turn ms | b2b ms | ratio |')
print('| --- | --- | --- | --- | --- |')
for k in ['4M+', '2M-4M', '64K-2M', '<=64K']:
    print('| %s | %d | %.2f | %.2f | %.2f |' % (k, cnt[k], turn[k], b2b[k], turn[k] / b2b[k] if b2b[k] else 0))
print('| sleep ends during | sleeps | lateness median us | mean us |')
print('| --- | --- | --- | --- |')
import statistics as S
for k, v in sorted(late.items()):
    print('| %s | %d | %.0f | %.0f |' % (k, len(v), S.median(v), S.mean(v)))
