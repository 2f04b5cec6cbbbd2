#!/bin/bash
# ab_agfrom.sh TAG PREFIX: allgather inputs from 128 KiB on huge pages (PLX_TMP_AG_FROM=131072, a
# measuring knob of a temporary build over this branch; default 512 KiB, DIRECT_THP_FROM) against
# the branch as committed, same build, interleaved, 8 launches per arm, 2-4 ranks.
set -u
tag=$1; P=$2; cd "$(dirname "$0")"
for np in 2 3 4; do
  NP=$np bash ../s10g/ab.sh $tag-n$np.txt 8 "allgather" "-b 256K -e 4M -f 2" base=$P new=$P:PLX_TMP_AG_FROM=131072
done
