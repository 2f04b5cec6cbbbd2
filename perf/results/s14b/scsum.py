#!/usr/bin/env python3
"""scsum.py PREFIX [NP]: summary of one scprobe launch (session s14b).
Per call i: its period = rank 0's start(i+1) - start(i); placement = the
ranks' CPUs at the call's start (e.g. '01|23' = ranks 0,1 on CPU 0, 2,3 on CPU 1).
Prints: launch mean per call, the share of calls and the median period per placement,
percentiles of the periods, each rank's median call duration and schedstat."""
import sys, statistics as st, collections
pre = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
recs, tail = [], []
for r in range(n):
    rows, t = [], ''
    for line in open(f"{pre}.{r}"):
        if line.startswith('#'): t = line.strip(); continue
        i, s, d, c0, c1 = map(int, line.split()); rows.append((s, d, c0, c1))
    recs.append(rows); tail.append(t)
m = min(len(x) for x in recs)
per = [(recs[0][i+1][0] - recs[0][i][0]) / 1e3 for i in range(m - 1)]
def place(i):
    cpus = collections.defaultdict(list)
    for r in range(n): cpus[recs[r][i][2]].append(str(r))
    return '|'.join(''.join(cpus[c]) for c in sorted(cpus))
by = collections.defaultdict(list)
for i in range(m - 1): by[place(i)].append(per[i])
def pct(v, q): v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))]
mean = sum(per) / len(per)
print(f"launch {pre}: calls {m-1} mean {mean:.2f} us  p10 {pct(per,.1):.2f} p50 {pct(per,.5):.2f} p90 {pct(per,.9):.2f} p99 {pct(per,.99):.2f}")
for k, v in sorted(by.items(), key=lambda kv: -len(kv[1])):
    print(f"  place {k:10s} share {len(v)/(m-1):.3f} median {st.median(v):.2f} mean {sum(v)/len(v):.2f} us")
for r in range(n):
    d = [x[1] / 1e3 for x in recs[r][:m]]
    mig = sum(1 for x in recs[r][:m] if x[2] != x[3])
    print(f"  rank {r}: call median {st.median(d):.2f} p90 {pct(d,.9):.2f} us, migrated-in-call {mig}  {tail[r]}")
