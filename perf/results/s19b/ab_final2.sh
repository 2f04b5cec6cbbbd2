#!/bin/bash
# ab_final2.sh: the final build (3-4 ranks) against base: allgather 4 ranks 256K-1M (12 rounds),
# 5 ranks 512K-1M (8 rounds: code as base there), reduce 4 ranks 128K-256K (8 rounds: the shared
# helper, same rule).  Run under qlock x.
: "${B:?base install prefix}" "${N:?new install prefix}"; AB=../s10g/ab.sh
NP=4 $AB ab2-n4.txt 12 allgather "-b 256K -e 1M" base=$B new=$N
NP=5 $AB ab2-n5.txt 8 allgather "-b 512K -e 1M" base=$B new=$N
NP=4 $AB ab2-reduce-n4.txt 8 reduce "-b 128K -e 256K" base=$B new=$N
