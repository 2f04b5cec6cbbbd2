#!/bin/bash
# run_ab2.sh BASE NEW: the tail's engagement (strace -c of one launch at 4 MiB: process_vm_writev
# calls are the helper's), then the A/B of ab.sh, 8 rounds, base and new interleaved.
set -u
base=$1; new=$2; R=$new/perf/results/s8x
echo "# strace $(uptime)" > $R/strace-tail.txt
for c in allgather alltoall; do
  LD_LIBRARY_PATH=$new/.libs timeout 60 $new/tools/plexusrun -n 2 strace -f -c -e trace=process_vm_readv,process_vm_writev \
    $new/perf/.libs/plx_perf --coll $c -b 4M -e 4M -n 300 -w 5 >>$R/strace-tail.txt 2>&1
done
LIMITS=/tmp/s8x/limits $R/ab.sh $R/ab2-tail.txt 8 "$base" "$new" base new
