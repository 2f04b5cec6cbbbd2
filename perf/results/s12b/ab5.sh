#!/bin/bash
# perf/results/s12b/ab5.sh BASE NEW OUTDIR: 4-rank reduce 32-128 KiB, base against the branch with
# the reduce row widened to 34K-257K (PLX_TUNE); R (8) rotated rounds; then ab4.sh.  Under qlock x.
B=$1 N=$2 O=$3 R=${R:-8}
NP=4 $(dirname "$0")/../s10g/ab.sh $O/ab5-n4.txt $R "reduce" "-b 32K -e 128K -f 2" base=$B \
    slots=$N:PLX_TUNE=reduce:34K-257K/4-4@shm_slots
$(dirname "$0")/ab4.sh $B $O
