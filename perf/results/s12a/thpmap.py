#!/usr/bin/env python3
"""thpmap.py PID [MINKB]: for each anonymous mapping over MINKB (default 8192) kB of PID, one
character per 2 MiB-aligned frame it touches: H = on a transparent huge page, p = 4 KiB pages
(present), . = not present, with the mapping's offset from a 2 MiB boundary (root: pagemap PFNs)."""
import sys, re, struct
pid = sys.argv[1]; mink = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
KPF_THP = 1 << 22
pm = open(f'/proc/{pid}/pagemap', 'rb'); kf = open('/proc/kpageflags', 'rb')
for l in open(f'/proc/{pid}/maps'):
    f = l.split()
    a, b = (int(x, 16) for x in f[0].split('-'))
    if (b - a) >> 10 < mink or len(f) > 5: continue
    s = ''
    for fr in range(a & ~(2 << 20) + 1 if False else a - a % (2 << 20), b, 2 << 20):
        lo, hi = max(fr, a), min(fr + (2 << 20), b)
        pm.seek(lo // 4096 * 8); ents = struct.unpack(f'{(hi - lo) // 4096}Q', pm.read((hi - lo) // 4096 * 8))
        thp = pres = 0
        for e in ents:
            if e >> 63:
                pres += 1
                kf.seek((e & ((1 << 55) - 1)) * 8)
                if struct.unpack('Q', kf.read(8))[0] & KPF_THP: thp += 1
        s += 'H' if thp == len(ents) else ('h' if thp else ('p' if pres else '.'))
    print(f'{a:x}-{b:x} {(b - a) >> 10} kB, start at +{(a % (2 << 20)) >> 10} kB of a 2 MiB frame: {s}')
