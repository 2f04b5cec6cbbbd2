#!/bin/bash
# perf/results/s12b/ab1.sh BASE NEW OUTDIR: 4 ranks, base against the branch's rows (reduce,
# scatter 128K-1M) and the direct alltoall's knobs on base (256K-4M); 8 rotated rounds.
# Run under qlock x.  Uses perf/results/s10g/ab.sh (NP=4).
B=$1 N=$2 O=$3 R=${R:-8}
AB=$(dirname "$0")/../s10g/ab.sh
NP=4 $AB $O/ab1-rows.txt $R "reduce scatter" "-b 128K -e 1M -f 2" base=$B new=$N
NP=4 $AB $O/ab1-a2a.txt $R "alltoall" "-b 256K -e 4M -f 4" base=$B \
   p512=$B:PLX_DIRECT_PIECE=512K p256=$B:PLX_DIRECT_PIECE=256K \
   stg8=$B:PLX_SHM_DIRECT_STAGE=8M thp0=$B:PLX_DIRECT_THP=0 thp1=$B:PLX_DIRECT_THP=1
