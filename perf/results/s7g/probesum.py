import re, sys, statistics as st
# probe_ab.sh output: per slice setting, per (launch, probe, rank): launch ms, chain end, slept over,
# in-turn, excess over b2b's last pass, idle; main on cpu / runnable waiting; worker on cpu / waiting
rows = {}
cur = None; last = None
for line in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) slice (\d+) n (\d+)', line)
    if m: cur = m.group(2); continue
    m = re.match(r'\s+probe (\d+) rank (\d+) .*launch ([\d.]+) ms; chain ends ([\d.]+) \(slept ([\d.]+), ([\d.-]+) over.*in their turn ([\d.]+) \(b2b.s last pass ([\d.]+), excess ([\d.-]+)\), no allreduce in flight ([\d.]+)', line)
    if m:
        last = dict(zip(('launch','chain','slept','over','turn','b2b','excess','idle'), map(float, m.groups()[2:])))
        rows.setdefault(cur, []).append(last); continue
    m = re.match(r'\s+rank \d+ (main|worker)\s+tid \d+: on cpu ([\d.]+) ms, runnable waiting ([\d.]+) ms, switches (\d+) voluntary (\d+) involuntary', line)
    if m and last is not None:
        last[m.group(1)+'_cpu'] = float(m.group(2)); last[m.group(1)+'_wait'] = float(m.group(3))
        last[m.group(1)+'_invol'] = int(m.group(5))
for k, v in sorted(rows.items()):
    print("slice %s: %d rank-launches" % (k, len(v)))
    for f in ('launch','chain','over','turn','excess','idle','main_cpu','main_wait','main_invol','worker_cpu','worker_wait'):
        x = sorted(r[f] for r in v if f in r)
        if x: print("   %-11s med %8.2f  min %8.2f  max %8.2f" % (f, st.median(x), x[0], x[-1]))
