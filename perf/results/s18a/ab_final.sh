#!/bin/bash
# perf/results/s18a/ab_final.sh NP ROUNDS: this branch's installed build (new defaults) against
# main's (base), every node-local collective, 4 KiB-1 MiB, interleaved
# (perf/results/s10g/ab.sh), into perf/results/s18a/ab-final-nNP.txt.  BASE=<prefix of main's
# build> in the environment.  Run under qlock x from the worktree.
set -u
NP=$1 bash perf/results/s10g/ab.sh perf/results/s18a/ab-final-n$1.txt "$2" \
    "allreduce bcast reduce allgather reduce_scatter alltoall gather scatter" "-b 4K -e 1M -f 2" \
    base="$BASE" new="$PWD/_inst"
