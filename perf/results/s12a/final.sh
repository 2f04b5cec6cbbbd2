#!/bin/bash
# final.sh OUTDIR BASE NEW: one perf/compare run with the branch (2 ranks, allgather and alltoall
# 1-64 MiB), perf/limits' per-size figures, then base against the branch where the first A/B
# was closest (2 ranks 1-2 MiB: the staged path; 4 ranks 256 KiB-1 MiB), 10 rounds
O=$1; B=$2; N=$3; H=$(dirname $0)
echo "### compare $(uptime)" > $O/final.log
PLX_PREFIX=$N/_inst $N/perf/compare -n 2 -c allgather,alltoall -b 1M -e 64M -f 4 --csv $O/compare-n2.csv > $O/compare-n2.txt 2>&1
echo "### limits $(uptime)" >> $O/final.log
gcc -O3 -o /tmp/limits_s12a $N/perf/limits.c && /tmp/limits_s12a -p 512K --sizes 1M,4M,16M,64M --csv > $O/limits-sizes.csv 2>$O/limits-sizes.err
echo "### ab $(uptime)" >> $O/final.log
for c in alltoall allgather; do
  echo "#@ $c" >> $O/ab4-check.txt
  $H/ab.sh 10 "--coll $c -b 1M -e 2M -f 2" base=$B new=$N >> $O/ab4-check.txt
  echo "#@ $c-n4" >> $O/ab4-check.txt
  NP=4 $H/ab.sh 10 "--coll $c -b 256K -e 1M -f 4" base=$B new=$N >> $O/ab4-check.txt
done
echo "### end $(uptime)" >> $O/final.log
