#!/usr/bin/env python3
"""ptwait.py DIR K: join probe.sh's per-op records of launch K with `perf sched timehist -w --state`
(DIR/LK.ths, recorded with -k CLOCK_MONOTONIC): for each idle-loop op whose progress thread made its
first pass > 300 us after the post, was that thread off its CPU runnable (R: preempted or yielded,
on a runqueue) or asleep (S) since before the post, and who ran on the CPUs meanwhile."""
import collections, glob, re, sys
d, k = sys.argv[1], sys.argv[2]
B = 4194304
T = float([l for l in open('%s/L%s.txt' % (d, k)) if l.split() and l.split()[0] == str(B)][0].split()[5]) * 1e-6
outs = collections.defaultdict(list)   # tid -> [(time, state)] switch-outs
runs = []                              # (time_out, cpu, comm, run_ms)
lines = collections.Counter()
for l in open('%s/L%s.ths' % (d, k)):
    f = l.split()
    if len(f) < 4 or not re.match(r'\d+\.\d+$', f[0]) or 'awakened' in l: continue
    m = re.match(r'(.*)\[(\d+)(?:/(\d+))?\]$', f[2])
    if not m or len(f) < 7: continue
    tid = int(m.group(2)); pid = int(m.group(3) or m.group(2))
    outs[tid].append((float(f[0]), f[6]))
    runs.append((float(f[0]), f[1], f[2], float(f[5])))
    lines[(pid, tid)] += 1
res = collections.Counter(); n = 0
for pf in sorted(glob.glob('%s/L%s.[0-9]*' % (d, k))):
    pid = int(pf.rsplit('.', 1)[1])
    cands = [(c, t) for (p, t), c in lines.items() if p == pid and t != pid]
    if not cands: continue
    pt = max(cands)[1]
    so = outs[pt]
    for r in [l.split() for l in open(pf)][1:]:
        if int(r[1]) != B: continue
        post, ptf, drive = float(r[2]), float(r[3]), float(r[4])
        if not ptf or (drive and drive - post < 0.3 * T): continue
        if ptf - post < 300e-6: res['<300us'] += 1; continue
        prev = [x for x in so if x[0] <= ptf - 1e-6]
        last = prev[-1] if prev else None
        if last and last[0] < post: state = 'off since before post, ' + last[1]
        else: state = 'ran between post and first pass'
        res[state] += 1
        if n < 6:
            n += 1
            busy = collections.Counter()
            for (t, cpu, comm, ms) in runs:
                if post < t < ptf: busy[(cpu, comm.split('[')[0] + ('-pt' if '/' in comm else ''))] += ms
            print('pid %d op %s: first pass +%.0f us, %s; CPU time in the window (ms): %s' % (pid, r[0], (ptf - post) * 1e6, state,
                  ', '.join('%s %s %.2f' % (c, m, v) for (c, m), v in sorted(busy.items()))))
print(dict(res))
