#!/usr/bin/env python3
"""ovlsum.py OUT: per arm and size, the idle overlap of every launch, min / q1 / median."""
import collections, re, sys
v = collections.OrderedDict(); arm = None
for l in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) (\S+)', l)
    if m: arm = m.group(2); continue
    f = l.split()
    if arm and f and f[0].isdigit() and len(f) > 12:
        # bytes ... idle:comp total overlap busy:comp total overlap #wrong alg
        try: ov = float(f[-6])
        except ValueError: continue
        v.setdefault((int(f[0]), arm), []).append(ov)
def q(x, p): s = sorted(x); return s[int(p * (len(s) - 1))]
for (b, a), x in sorted(v.items()):
    print('%9d %-8s n=%2d min %.3f q1 %.3f med %.3f : %s' % (b, a, len(x), min(x), q(x, .25), q(x, .5), ' '.join('%.3f' % y for y in x)))
