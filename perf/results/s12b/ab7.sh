#!/bin/bash
# perf/results/s12b/ab7.sh BASE OUTDIR: 4 ranks, the 2 MiB cells: alltoall 1-4 MiB with a 4 MiB
# staging area (2 MiB staged too) and reduce 1-4 MiB with other pieces, on base; R (12) rounds.
B=$1 O=$2 R=${R:-12}
AB=$(dirname "$0")/../s10g/ab.sh
NP=4 $AB $O/ab7-a2a.txt $R "alltoall" "-b 1M -e 4M -f 2" base=$B stg4=$B:PLX_SHM_DIRECT_STAGE=4M
NP=4 $AB $O/ab7-red.txt $R "reduce" "-b 1M -e 4M -f 2" base=$B p2m=$B:PLX_DIRECT_PIECE=2M p512=$B:PLX_DIRECT_PIECE=512K
