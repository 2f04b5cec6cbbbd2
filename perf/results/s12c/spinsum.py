#!/usr/bin/env python3
"""spinsum.py FILE.sum...: from tracesum.py's tables, per arm: timed runs, runs where one rank's main
thread was on a CPU > 1.5x the median of the others (a lone spinner: 3:1), and the run's time past its
compute chain's end (ms; min / median / mean / max)."""
import sys, collections, statistics
d = collections.OrderedDict()
for fn in sys.argv[1:]:
    for line in open(fn):
        f = [x.strip() for x in line.split('|')]
        if len(f) < 8 or not f[0][:2].strip().isdigit(): continue
        arm = f[0].split()[1]
        run, chain = float(f[2]), float(f[3])
        on = sorted(float(x) for x in f[7].split())
        spin = on[-1] > 1.5 * statistics.median(on[:-1])
        d.setdefault(arm, []).append((spin, run - chain))
for arm, v in d.items():
    past = sorted(x[1] for x in v)
    print(f"{arm:45s} runs {len(v):3d} lone spinner {sum(x[0] for x in v):3d}  past chain end ms min {past[0]:.2f} med {statistics.median(past):.2f} mean {statistics.mean(past):.2f} max {past[-1]:.2f}")
