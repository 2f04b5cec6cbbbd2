#!/bin/bash
# ab1.sh DIR: interleaved A/B of base (main) and the branch (session s14b), under the machine lock.
set -u
D=$1; AB=perf/results/s10g/ab.sh
B=base=${BASE:?}/_inst; N=new=${NEW:?}/_inst
NP=4 bash $AB $D/ab1-n4.txt 10 "scatter gather" "-b 64K -e 4M -f 2" $B $N
NP=5 bash $AB $D/ab1-n5.txt 8 "scatter" "-b 64K -e 4M -f 2" $B $N
NP=3 bash $AB $D/ab1-n3.txt 6 "scatter" "-b 64K -e 4M -f 2" $B $N
