#!/bin/bash
# perf/results/s12b/ab6.sh BASE NEW OUTDIR: the final rows, defaults of both builds: reduce and
# scatter 32-256 KiB (plx_perf totals) at 3, 4, 5 ranks; R (8) rotated rounds.  Under qlock x.
B=$1 N=$2 O=$3 R=${R:-8}
for np in 3 4 5; do
    NP=$np $(dirname "$0")/../s10g/ab.sh $O/ab6-n$np.txt $R "reduce scatter" "-b 32K -e 256K -f 2" base=$B new=$N
done
