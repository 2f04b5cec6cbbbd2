#!/usr/bin/env python3
# sum_raw.py FILE... -- per collective, size and arm of perf/tune_sweep --raw
# files (round coll bytes arm time_us ran): launches, min / q1 / median us.
# A forced arm's rows count only where that algorithm really ran; the
# default arm is named "default=ALGO".  Also reads ab.sh files
# (round arm coll bytes time_us ran, arm not starting with a digit).
import sys, collections

def q(v, f):
    v = sorted(v)
    k = (len(v) - 1) * f
    i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)

t = collections.defaultdict(list)
for fn in sys.argv[1:]:
    for line in open(fn):
        if line.startswith('#') or not line.strip():
            continue
        w = line.split()
        r, c, b, arm, us, ran = w[:6]
        if not b.isdigit():                 # ab.sh order: round arm coll bytes us ran
            r, arm, c, b, us, ran = w[:6]
            arm = '%s=%s' % (arm, ran.split('/')[0])
        elif not arm.startswith('default=') and ran != arm:
            continue
        t[(c, int(b), arm)].append(float(us))
print('| coll | bytes | arm | n | min | q1 | median |')
print('| --- | ---: | --- | ---: | ---: | ---: | ---: |')
for (c, b, arm) in sorted(t):
    v = t[(c, b, arm)]
    print('| %s | %d | %s | %d | %.2f | %.2f | %.2f |' % (c, b, arm, len(v), min(v), q(v, .25), q(v, .5)))
