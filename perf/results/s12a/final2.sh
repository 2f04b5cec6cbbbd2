#!/bin/bash
# final2.sh OUTDIR BASE NEW: with the final branch (end pages and 2 MiB shared-read pieces): one
# perf/compare run (2 ranks, allgather and alltoall 1-64 MiB), perf/limits' per-size figures, then base
# against the branch, 2 ranks 4-64 MiB, 8 rounds
O=$1; B=$2; N=$3; H=$(dirname $0)
echo "### compare $(uptime)" > $O/final2.log
PLX_PREFIX=$N/_inst $N/perf/compare -n 2 -c allgather,alltoall -b 1M -e 64M -f 4 --csv $O/compare2-n2.csv > $O/compare2-n2.txt 2>&1
echo "### limits $(uptime)" >> $O/final2.log
gcc -O3 -o /tmp/limits_s12a $N/perf/limits.c && /tmp/limits_s12a -p 512K --sizes 1M,4M,16M,64M --csv > $O/limits2-sizes.csv 2>$O/limits2-sizes.err
echo "### ab $(uptime)" >> $O/final2.log
for c in alltoall allgather; do
  echo "#@ $c" >> $O/ab7-final2.txt
  $H/ab.sh 8 "--coll $c -b 4M -e 64M -f 4" base=$B new=$N >> $O/ab7-final2.txt
done
echo "### end $(uptime)" >> $O/final2.log
