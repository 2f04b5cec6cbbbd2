#!/usr/bin/env python3
# probesum.py DIR...: per rank of each launch, the waited shm_slots ops (probe records):
# n waited, mean wait us, mean write-phase wait, yields/op, yields that ran another thread/op,
# mean us per yield, sleeps/op, max yield us, cpus seen.
import sys, glob, os, statistics as st
for d in sys.argv[1:]:
    print(os.path.basename(d))
    for f in sorted(glob.glob(d + "/probe.*")):
        rk = f.split(".")[-2]
        rows = [l.split() for l in open(f)]
        rows = rows[len(rows)//10:]  # drop warm-up
        if not rows: print("  rank", rk, "no waits"); continue
        n = len(rows)
        col = lambda i: [float(r[i]) for r in rows]
        tot, tw, y, ysw, yt, ymax, sl = col(4), col(3), col(6), col(7), col(8), col(9), col(10)
        ph = sum(1 for r in rows if r[2] == "0")
        print("  rank %s n=%d (write-phase entry %d) wait mean %.1f med %.1f | yields/op %.1f switched/op %.2f us/yield %.2f max-yield med %.1f | sleeps/op %.2f | cpus %s"
              % (rk, n, ph, st.mean(tot), st.median(tot), st.mean(y), st.mean(ysw),
                 sum(yt) / max(1, sum(y)), st.median(ymax), st.mean(sl), sorted(set(r[12] for r in rows))))
        print("      write copy us mean %.1f med %.1f | read copy/compute us mean %.1f med %.1f" % (st.mean(col(13)), st.median(col(13)), st.mean(col(14)), st.median(col(14))))
