#!/bin/bash
# measure.sh OUTDIR BEFORE_BUILD AFTER_BUILD [ROUNDS] -- issue 11's <= 64 KiB cells with an A/A
# arm: before, aa (= before again), after, Open MPI; 2 ranks (allreduce,bcast,reduce,gather) and
# 4 ranks (allreduce,bcast,reduce), each in its own machine-lock hold (run from the tree's root).
o=${1:?}; b=${2:?}; a=${3:?}; R=${4:-24}
here=$(cd "$(dirname "$0")/../.." && pwd)
${QLOCK:-qlock} x env PERF_PROG=$a timeout 590 $here/small_ratio.sh $o/small-n2.txt 2 $R allreduce,bcast,reduce,gather before=$b aa=$b after=$a
${QLOCK:-qlock} x env PERF_PROG=$a timeout 590 $here/small_ratio.sh $o/small-n4.txt 4 $R allreduce,bcast,reduce before=$b aa=$b after=$a
