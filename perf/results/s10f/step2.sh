#!/bin/bash
# Step 2: shm_slots at 3-5 ranks: gather with the default window (blocks up
# to 32 KiB) and a 64 KiB one, bcast with a 1 MiB one, against main's default.
# usage: step2.sh BASE_PREFIX ROUNDS  (MPI_BENCH, UPLOG as sweep.sh)
B=$1 R=${2:-6}; d=$(dirname $0)
for n in 4 3 5; do
  NR=$n $d/sweep.sh gather 1K 256K $R base=$B slots=$B,PLX_TUNE=gather:0-inf@shm_slots \
      slots64=$B,PLX_TUNE=gather:0-inf@shm_slots,PLX_SHM_COLL_BYTES=64K | sed "s/^gather/gather-n$n/"
done
for n in 3 5; do
  NR=$n $d/sweep.sh bcast 128K 512K $R base=$B slots1M=$B,PLX_TUNE=bcast:0-inf@shm_slots,PLX_SHM_COLL_BYTES=1M | sed "s/^bcast/bcast-n$n/"
done
