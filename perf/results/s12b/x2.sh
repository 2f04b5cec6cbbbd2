#!/bin/bash
# perf/results/s12b/x2.sh BASE NEW OUTDIR: ab3.sh (3 and 5 ranks), then one perf/compare -n 4 of
# the branch (alltoall reduce scatter gather, 256K-4M x2, 3 rounds, raw rounds kept).  Under qlock x.
B=$1 N=$2 O=$3
$(dirname "$0")/ab3.sh $B $O
echo "# compare start $(uptime)" > $O/compare-n4.log
PLX_PREFIX=$N timeout 500 perf/compare -n 4 -c alltoall,reduce,scatter,gather -b 256K -e 4M -f 2 --rounds 3 \
    --no-limits --keep $O/compare-n4-keep --csv $O/compare-n4.csv > $O/compare-n4.txt 2>&1
echo "# compare end $(uptime)" >> $O/compare-n4.log
