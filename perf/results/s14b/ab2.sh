#!/bin/bash
# ab2.sh DIR: the second window (session s14b), under the machine lock: scatter as perf/compare
# runs it (256 KiB the first size), 12 rounds; 16 more probe launches; <= 64 KiB at 4 ranks.
set -u
D=$1; AB=perf/results/s10g/ab.sh
B=base=${BASE:?}/_inst; N=new=${NEW:?}/_inst
NP=4 bash $AB $D/ab2-n4.txt 12 "scatter" "-b 256K -e 1M -f 2" $B $N
bash $(dirname $0)/probe2.sh /tmp/s14b_p3 16
bash perf/small_ratio.sh $D/small-n4.txt 4 6 scatter,gather base=${BASE:?} new=${NEW:?} > $D/small-n4.log 2>&1
