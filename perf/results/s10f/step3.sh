#!/bin/bash
# Step 3: with a 256 KiB window, where shm_slots starts and ends paying:
# bcast 16 KiB-512 KiB and gather 128 KiB-1 MiB totals at 3-5 ranks, against main's default.
# usage: step3.sh BASE_PREFIX ROUNDS  (UPLOG as sweep.sh)
B=$1 R=${2:-6}; d=$(dirname $0)
for n in 4 3 5; do
  NR=$n $d/sweep.sh bcast 16K 512K $R base=$B slots=$B,PLX_TUNE=bcast:0-inf@shm_slots,PLX_SHM_COLL_BYTES=256K | sed "s/^bcast/bcast-n$n/"
  NR=$n $d/sweep.sh gather 128K 1M $R base=$B slots=$B,PLX_TUNE=gather:0-inf@shm_slots,PLX_SHM_COLL_BYTES=256K | sed "s/^gather/gather-n$n/"
done
