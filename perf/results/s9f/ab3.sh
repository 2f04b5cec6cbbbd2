#!/bin/bash
# (Ran on an intermediate build of the branch: PLX_S9F_* were temporary knobs, not in
# the final branch; see perf/RESULTS.md, session s9f.)
# 4 ranks: main against the branch (star bcast with the root writing the last
# non-root's copy and the non-roots waiting for the root's go; scatter's non-roots
# waiting for the go), the star without go (temporary PLX_S9F_GO=0), the star at
# 512 KiB / 1 MiB (temporary PLX_S9F_STAR_MAX), Open MPI.
# usage: ab3.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-10}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R main=$B new=$N nogo=$N%PLX_S9F_GO=0 ompi-ob1 ompi-def
$d/dist.sh bcast 512K $((R-4)) main=$B new=$N%PLX_S9F_STAR_MAX=1048576 ompi-ob1
$d/dist.sh bcast 1M $((R-4)) main=$B new=$N%PLX_S9F_STAR_MAX=1048576 ompi-ob1
$d/dist.sh scatter 256K $R main=$B new=$N ompi-ob1 ompi-def
