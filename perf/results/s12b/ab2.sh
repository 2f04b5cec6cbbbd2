#!/bin/bash
# perf/results/s12b/ab2.sh BASE OUTDIR: 4-rank alltoall 1-8 MiB, base against base with
# PLX_DIRECT_PIECE=512K / PLX_DIRECT_THP=1 / both; R (12) rotated rounds.  Under qlock x.
B=$1 O=$2 R=${R:-12}
AB=$(dirname "$0")/../s10g/ab.sh
NP=4 $AB $O/ab2-a2a.txt $R "alltoall" "-b 1M -e 8M -f 2" base=$B \
   p512=$B:PLX_DIRECT_PIECE=512K thp1=$B:PLX_DIRECT_THP=1 p512thp1=$B:PLX_DIRECT_PIECE=512K,PLX_DIRECT_THP=1
