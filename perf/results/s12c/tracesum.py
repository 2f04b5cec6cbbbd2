#!/usr/bin/env python3
"""tracesum.py FILE: per launch and timed iteration (graph_bench --trace), the run (rank 0's), when the
ranks' compute chains and allreduces ended (max over ranks), and where the ranks' main threads were:
the CPUs they started / ended the run on (e.g. 3:1 = three on one CPU) and their on-CPU ms."""
import re, sys, collections
cur = None
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) (\S+)', line)
    if m:
        cur = (int(m.group(1)), m.group(2)); continue
    m = re.match(r'\s+trace it (\d+) (\S+)\s+rank (\d+): run ([\d.]+) ms .*?chain ends ([\d.]+) \(late ([\d.]+) ms.*?allreduces end ([\d.]+); ideal pass a ([\d.]+) c ([\d.]+) \| main cpu (-?\d+)->(-?\d+) on ([\d.]+) wait ([\d.]+) sw (\d+)/(\d+) mig (\d+) \| worker cpu (-?\d+)->(-?\d+) on ([\d.]+) wait ([\d.]+)', line)
    if m:
        it, pol, r = int(m.group(1)), m.group(2), int(m.group(3))
        rows.setdefault((cur, it, pol), []).append([float(x) for x in m.groups()[3:]])
    m = re.match(r'idle\s+(comm_first|compute_first)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)', line)
    if m: rows[(cur, 'vsmax', m.group(1))] = float(m.group(2))
print("launch arm | it policy | run ms | chain end | ar end | a c (max) | main cpus start / end | main on-cpu ms | vs max() of the launch")
for k, v in rows.items():
    if k[1] == 'vsmax': continue
    (launch, arm), it, pol = k
    run = v[0][0]; chain = max(x[1] for x in v); ar = max(x[3] for x in v)
    a = max(x[4] for x in v); c = max(x[5] for x in v)
    st = collections.Counter(int(x[6]) for x in v); en = collections.Counter(int(x[7]) for x in v)
    f = lambda cn: "%d:%d" % (cn.get(0, 0), cn.get(1, 0))
    on = " ".join("%.0f" % x[8] for x in v)
    vm = rows.get(((launch, arm), 'vsmax', pol), '')
    print(f"{launch:2d} {arm:5s} | {it} {pol:13s} | {run:6.2f} | {chain:6.2f} | {ar:6.2f} | {a:5.2f} {c:5.2f} | {f(st)} / {f(en)} | {on} | {vm}")
