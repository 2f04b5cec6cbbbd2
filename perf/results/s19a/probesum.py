#!/usr/bin/env python3
"""probesum.py DIR: per arm, size and rank, the median per call of the -DPLX_DIRECT_PROBE
fields (us): meet, work end, drain end, rd (CMA reads), ar (arithmetic), wr (CMA writes),
cp (streaming copy), and the rates of each for its bytes (N/2 per rank each)."""
import glob, sys, os, statistics as st, re
d = sys.argv[1]
rows = {}
for f in glob.glob(os.path.join(d, '*.*.*')):
    arm = os.path.basename(f).split('.')[0]
    for line in open(f):
        t = line.split()
        if t[0] != '3': continue   # allreduce (PLX_COLL_ALLREDUCE)
        b, me = int(t[1]), int(t[3])
        kv = {t[i]: t[i + 1] for i in range(len(t) - 1) if re.match('[a-z]+$', t[i])}
        rows.setdefault((arm, b, me), []).append({k: float(kv[k]) for k in ('meet', 'work', 'drain', 'rd', 'ar', 'wr', 'cp')})
print('| arm | bytes | rank | calls | meet | work end | drain end | rd | ar | wr | cp | rd GB/s | ar GB/s | wr GB/s |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (arm, b, me), v in sorted(rows.items()):
    m = {k: st.median(x[k] for x in v) for k in v[0]}
    # each rank: half the bytes, unless its share differs (claimed): rates per N/2 as the model
    h = b / 2 / 1e3
    r = lambda k: '%.2f' % (h / m[k]) if m[k] > 0 else '-'
    print(f"| {arm} | {b >> 20} MiB | {me} | {len(v)} | {m['meet']:.0f} | {m['work']:.0f} | {m['drain']:.0f} | {m['rd']:.0f} | {m['ar']:.0f} | {m['wr']:.0f} | {m['cp']:.0f} | {r('rd')} | {r('ar')} | {r('wr')} |")
