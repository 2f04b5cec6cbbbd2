#!/usr/bin/env python3
"""psum.py FILE: per launch of probe.sh's output, the criterion (idle comm_first /
compute_first "vs start") and where the graph's time went against max(sum_compute alone,
b2b): per timed iteration (median over the 3 and both ranks) the run, the chain's end,
the sleeps' lateness in the graph (late, ms over the 50 sleeps), the tail (last allreduce's
end after the chain's), the main thread's runnable-waiting time, the worker's, and the
c2c round trip before the launch."""
import re, sys, statistics as st
L = []
cur = None
for line in open(sys.argv[1]):
    if line.startswith('# launch'):
        cur = dict(load=line.split('load average:')[1].split(',')[0].strip(), tr={}, kind=None)
        L.append(cur); continue
    if cur is None: continue
    m = re.match(r'# c2c memcpy rtt_ns\s+(\d+)', line)
    if m: cur['rtt'] = int(m.group(1)); continue
    m = re.match(r'(idle|busy)\s+sum_compute ([\d.]+) ms \(alone\), b2b ([\d.]+)', line)
    if m:
        cur['kind'] = m.group(1)
        if m.group(1) == 'idle': cur['sc'], cur['b2b'] = float(m.group(2)), float(m.group(3))
        continue
    m = re.match(r'(idle)\s+(comm_first|compute_first)\s+([\d.]+)(\s+[\d.]+){6}', line)
    if m:
        cur[m.group(2)] = float(line.split()[8]); cur[m.group(2) + '_ms'] = float(m.group(3)); continue
    m = re.match(r'\s+trace it (\d) (\S+)\s+rank (\d): run ([\d.]+) ms .*chain ends ([\d.]+) \(late ([\d.]+) ms, max (\d+) us.*allreduces end ([\d.]+);.*main cpu \S+ on ([\d.]+) wait ([\d.]+) sw (\d+)/(\d+).*worker cpu \S+ on ([\d.]+) wait ([\d.]+) sw (\d+)/(\d+)', line)
    if m and cur['kind'] is None and m.group(2) in ('comm_first', 'compute_first'):
        g = m.groups()
        cur['tr'].setdefault(g[1], []).append(dict(run=float(g[3]), chain=float(g[4]), late=float(g[5]), lmax=int(g[6]),
             aend=float(g[7]), mon=float(g[8]), mwait=float(g[9]), minv=int(g[11]), won=float(g[12]), wwait=float(g[13]), winv=int(g[15])))
print('| launch | load | rtt ns | sum_compute alone | b2b | comm_first vs start | compute_first vs start | cf: run | chain end | sleeps late (50) | tail (aend-chain) | main wait | worker wait | main invol. sw |')
print('| --- ' * 14 + '|')
rows = []
for i, l in enumerate(L, 1):
    t = l['tr'].get('comm_first', [])
    if not t or 'comm_first' not in l: continue
    med = lambda k: st.median(x[k] for x in t)
    rows.append((l, med))
    print('| %d | %s | %s | %.2f | %.2f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f |' % (i, l['load'], l.get('rtt', '?'), l['sc'], l['b2b'],
          l['comm_first'], l.get('compute_first', 0), med('run'), med('chain'), med('late'), max(0, med('aend') - med('chain')), med('mwait'), med('wwait'), med('minv')))
