#!/bin/bash
# (Ran on an intermediate build of the branch: PLX_S9F_* were temporary knobs, not in
# the final branch; see perf/RESULTS.md, session s9f.)
# bcast 256 KiB at 4 ranks: main, the branch's star bcast, the star with the root
# writing the last non-root's copy (temporary PLX_S9F_STAR_ROOTW=1), Open MPI.
# usage: ab-bstar2.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (MPI_BENCH, UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-14}; d=$(dirname $0)/../s8f
$d/dist.sh bcast 256K $R main=$B new=$N rootw=$N%PLX_S9F_STAR_ROOTW=1 ompi-ob1 ompi-def
