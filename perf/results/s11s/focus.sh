#!/bin/bash
# focus.sh OUTDIR BEFORE_BUILD AFTER_BUILD [ROUNDS] -- the cells measure.sh left "not excluded"
# with more rounds: bcast and reduce at 4 ranks, bcast at 2 ranks; arms before, aa (= before
# again), after, Open MPI, rotated; each rank count in its own machine-lock hold.
o=${1:?}; b=${2:?}; a=${3:?}; R=${4:-48}
here=$(cd "$(dirname "$0")/../.." && pwd)
${QLOCK:-qlock} x env PERF_PROG=$a timeout 590 $here/small_ratio.sh $o/focus-n4.txt 4 $R bcast,reduce before=$b aa=$b after=$a
${QLOCK:-qlock} x env PERF_PROG=$a timeout 590 $here/small_ratio.sh $o/focus-n2.txt 2 $R bcast before=$b aa=$b after=$a
