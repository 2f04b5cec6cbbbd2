#!/bin/bash
# perf/results/s7t/run6.sh -- final: perf/compare at 4 ranks (alltoall 256K-4M)
# and a second one at 2 ranks, this branch's build tree.  Under qlock x.
cd "$(dirname "$0")/../../.." || exit 1
R=perf/results/s7t
uptime
timeout 200 perf/compare -n 4 -c alltoall -b 256K -e 4M -f 4 --rounds 3 --no-limits --csv $R/compare-n4.csv --keep /tmp/s7t-cmp4 > $R/compare-n4.txt 2>&1
echo "compare n4 rc=$?"
uptime
timeout 200 perf/compare -n 2 -c alltoall,allgather -b 1M -e 64M -f 4 --rounds 3 --csv $R/compare2-n2.csv --keep /tmp/s7t-cmp2b > $R/compare2-n2.txt 2>&1
echo "compare n2 rc=$?"
uptime
