#!/bin/bash
# (Ran on an intermediate build of the branch: PLX_S9F_* were temporary knobs, not in
# the final branch; see perf/RESULTS.md, session s9f.)
# bcast at 4 ranks: main against the branch's star bcast (non-roots wait for the
# root's go alone), 256 KiB (the default star range) and 512 KiB (star forced by
# the temporary PLX_S9F_STAR_MAX), Open MPI both setups.
# usage: ab-bstar.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-8}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R main=$B new=$N ompi-ob1 ompi-def
$d/dist.sh bcast 512K $((R-2)) main=$B new=$N%PLX_S9F_STAR_MAX=1048576 ompi-ob1
