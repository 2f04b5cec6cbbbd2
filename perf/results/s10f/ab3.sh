#!/bin/bash
# Small shm_slots collectives at 4 ranks (same algorithm in both builds):
# does the 256 KiB window cost them?  new32 = the branch with PLX_SHM_COLL_BYTES=32K.
# usage: ab3.sh MAIN_PREFIX NEW_PREFIX ROUNDS  (UPLOG as s8f/dist.sh)
B=$1 N=$2 R=${3:-12}; d=$(dirname $0)/../s8f
export MPI_BENCH=${MPI_BENCH:-none}
for s in 4K 16K 32K; do $d/dist.sh allreduce $s $R base=$B new=$N new32=$N%PLX_SHM_COLL_BYTES=32K; done
$d/dist.sh allgather 16K $R base=$B new=$N new32=$N%PLX_SHM_COLL_BYTES=32K
