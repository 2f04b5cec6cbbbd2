#!/bin/bash
# ab_final.sh TAG: the kept build (new) against base, interleaved (perf/results/s10g/ab.sh):
# allgather at 4 ranks 128K-1M (12 rounds), 3 and 5 ranks 128K-1M (8 rounds), 4 ranks 8K-64K (8 rounds).
# Run under qlock x, one part per call: PART=n4|n35|small.
set -u
: "${B:?base install prefix}" "${N:?new install prefix}"; AB=../s10g/ab.sh; t=$1
case ${PART:-n4} in
n4) NP=4 $AB ab-$t-n4.txt 12 allgather "-b 128K -e 1M" base=$B new=$N ;;
n35) NP=3 $AB ab-$t-n3.txt 8 allgather "-b 128K -e 1M" base=$B new=$N
     NP=5 $AB ab-$t-n5.txt 8 allgather "-b 128K -e 1M" base=$B new=$N ;;
small) NP=4 $AB ab-$t-small-n4.txt 8 allgather "-b 8K -e 64K" base=$B new=$N ;;
esac
