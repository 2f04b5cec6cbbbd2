#!/bin/bash
# perf/results/s7t/run2.sh -- 2 ranks: A/A of this branch (no library change)
# against main at 64 KiB-256 KiB; compare-style sweep launches (1M..64M in one
# launch, default iterations) against the single-size launches of run 1; the
# final perf/compare.  Run under qlock x from the worktree root.
cd "$(dirname "$0")/../../.." || exit 1
R=perf/results/s7t
uptime
$R/ab.sh $R/ab2-small-n2.txt 8 2 alltoall,allgather 64K,256K base new
uptime
for r in 1 2 3 4 5 6 7 8; do
  echo "# sweep launch $r $(uptime)"
  LD_LIBRARY_PATH=.libs timeout 60 ./tools/plexusrun -n 2 ./perf/.libs/plx_perf -c alltoall -b 1M -e 4M -f 4 2>&1 | grep -v "^#"
done > $R/sweep-n2.txt
uptime
timeout 230 perf/compare -n 2 -c alltoall,allgather -b 1M -e 64M -f 4 --rounds 3 --csv $R/compare-n2.csv --keep /tmp/s7t-cmp2 > $R/compare-n2.txt 2>&1
echo "compare rc=$?"
uptime
