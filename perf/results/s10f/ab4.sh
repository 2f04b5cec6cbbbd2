#!/bin/bash
# allreduce 16 KiB (shm_slots) and 32 KiB (ring) at 4 ranks, 20 rounds:
# base, the branch, the branch with 32 KiB windows.
# usage: ab4.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-20}; d=$(dirname $0)/../s8f
export MPI_BENCH=${MPI_BENCH:-none}
for s in 16K 32K; do $d/dist.sh allreduce $s $R base=$B new=$N new32=$N%PLX_SHM_COLL_BYTES=32K; done
