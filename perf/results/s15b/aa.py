#!/usr/bin/env python3
"""aa.py DIR: per launch of aa_blocking.sh (5 warmup, 1 sizing, N blocking ops), each rank: mean
rd+ar and op end (us) of the first and second half of the blocking loop, and second / first."""
import glob, lzma, re, sys
d = sys.argv[1]
def opn(f): return lzma.open(f, 'rt') if f.endswith('.xz') else open(f)
for txt in sorted(glob.glob(d + '/L*.txt'), key=lambda s: int(re.search(r'L(\d+)', s).group(1))):
    L = int(re.search(r'L(\d+)\.txt', txt).group(1)); out = 'L%-2d' % L
    for f in sorted(glob.glob('%s/L%d.[0-9]*' % (d, L))):
        ops = [l.split() for l in opn(f) if l.split()[1] == '16777216'][6:]
        h = len(ops) // 2; a, b = ops[:h], ops[h:]
        def m(v, i, j=None): return sum(float(o[i]) + (float(o[j]) if j else 0) for o in v) / len(v)
        out += ' | r%s rd+ar %6.1f -> %6.1f (x%.2f) end %6.1f -> %6.1f (x%.2f)' % (
            ops[0][3], m(a, 23, 25), m(b, 23, 25), m(b, 23, 25) / m(a, 23, 25), m(a, 12), m(b, 12), m(b, 12) / m(a, 12))
    print(out)
