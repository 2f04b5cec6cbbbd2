#!/bin/bash
# Step 1: what the selector can already do at 4 ranks, bcast and gather
# 128 KiB-1 MiB: every algorithm forced, shm_slots with larger windows,
# Open MPI.  usage: step1.sh BASE_PREFIX ROUNDS  (MPI_BENCH, UPLOG as sweep.sh)
B=$1 R=${2:-6}; d=$(dirname $0)
$d/sweep.sh gather 128K 1M $R base=$B lin=$B,PLX_TUNE=gather:0-inf@linear bin=$B,PLX_TUNE=gather:0-inf@binomial \
  slots64=$B,PLX_TUNE=gather:0-inf@shm_slots,PLX_SHM_COLL_BYTES=64K \
  slots128=$B,PLX_TUNE=gather:0-inf@shm_slots,PLX_SHM_COLL_BYTES=128K \
  slots256=$B,PLX_TUNE=gather:0-inf@shm_slots,PLX_SHM_COLL_BYTES=256K ompi-ob1 ompi-def
$d/sweep.sh bcast 128K 1M $R base=$B bin=$B,PLX_TUNE=bcast:0-inf@binomial sag=$B,PLX_TUNE=bcast:0-inf@scatter_allgather \
  slots128=$B,PLX_TUNE=bcast:0-inf@shm_slots,PLX_SHM_COLL_BYTES=128K \
  slots256=$B,PLX_TUNE=bcast:0-inf@shm_slots,PLX_SHM_COLL_BYTES=256K \
  slots1M=$B,PLX_TUNE=bcast:0-inf@shm_slots,PLX_SHM_COLL_BYTES=1M ompi-ob1 ompi-def
