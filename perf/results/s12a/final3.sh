#!/bin/bash
# final3.sh OUTDIR NEW: a second perf/compare window of the final branch, with perf/limits after it
O=$1; N=$2
echo "### compare $(uptime)" > $O/final3.log
PLX_PREFIX=$N/_inst $N/perf/compare -n 2 -c allgather,alltoall -b 1M -e 64M -f 4 --csv $O/compare3-n2.csv > $O/compare3-n2.txt 2>&1
echo "### limits $(uptime)" >> $O/final3.log
gcc -O3 -o /tmp/limits_s12a $N/perf/limits.c && /tmp/limits_s12a -p 512K --sizes 1M,4M,16M,64M --csv > $O/limits3-sizes.csv 2>$O/limits3-sizes.err
echo "### end $(uptime)" >> $O/final3.log
