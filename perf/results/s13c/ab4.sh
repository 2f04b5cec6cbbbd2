#!/bin/bash
# ab4.sh: 2-rank allreduce and reduce at 4 MiB alone (-b 4M -e 4M), 8 rounds: the same code path in
# both builds at this size; ab2/ab3 had them at 1.02-1.09x.
D=$(dirname "$0"); B=$1; N=$2
NP=2 bash perf/results/s10g/ab.sh $D/ab4-n2-reductions.txt 8 "allreduce reduce" "-b 4M -e 4M" base=$B new=$N
