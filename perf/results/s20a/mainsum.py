#!/usr/bin/env python3
"""mainsum.py FILE...: graph_bench --probe lines (idle kind, rank 0 and 1), per arm: the probe
launch's allreduces in their turn and b2b's last pass (ms), the main thread's time on a CPU and
runnable-waiting in the probe launch against b2b's last pass, its involuntary switches, and the
worker's time on a CPU: medians over launches and ranks."""
import re, sys, statistics as st, collections as C
d = C.defaultdict(lambda: C.defaultdict(list))
for f in sys.argv[1:]:
    arm = kind = None; pend = None; b2b_main = {}
    for line in open(f):
        m = re.match(r'# launch \d+ (\S+)', line)
        if m: arm = m.group(1); kind = None; continue
        if re.match(r'(idle|busy)\s+sum_compute', line): kind = line.split()[0]; continue
        if kind is not None: continue
        m = re.match(r'\s+probe (\d+) rank (\d) .*in their turn ([\d.]+) \(b2b\'s last pass ([\d.]+)', line)
        if m: pend = dict(turn=float(m.group(3)), b2b=float(m.group(4)), rank=m.group(2)); continue
        m = re.match(r'\s+rank (\d) b2b\'s last pass [\d.]+ ms: +rank \d main +tid \d+: on cpu ([\d.]+) ms, runnable waiting ([\d.]+)', line)
        if m: b2b_main[m.group(1)] = (float(m.group(2)), float(m.group(3))); continue
        m = re.match(r'\s+rank (\d) (main|worker) +tid \d+: on cpu ([\d.]+) ms, runnable waiting ([\d.]+) ms, switches (\d+) voluntary (\d+) involuntary', line)
        if m and pend:
            r = d[arm]
            if m.group(2) == 'main':
                r['turn'].append(pend['turn']); r['b2b'].append(pend['b2b'])
                r['on'].append(float(m.group(3))); r['wait'].append(float(m.group(4))); r['invol'].append(int(m.group(6)))
                if m.group(1) in b2b_main: r['on_b2b'].append(b2b_main[m.group(1)][0])
            else:
                r['won'].append(float(m.group(3)))
print('| arm | probe launches x ranks | allreduces in turn ms | b2b last pass ms | main on CPU (b2b pass) ms | main runnable waiting ms | main involuntary switches | worker on CPU ms |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
for a, r in d.items():
    md = lambda k: st.median(r[k]) if r[k] else float('nan')
    print('| %s | %d | %.2f | %.2f | %.2f (%.2f) | %.2f | %.0f | %.2f |' % (a, len(r['turn']), md('turn'), md('b2b'), md('on'), md('on_b2b'), md('wait'), md('invol'), md('won')))
