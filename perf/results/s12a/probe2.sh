#!/bin/bash
# probe2.sh BASE: plx_perf alltoall / allgather 4-64 MiB with base, default iterations and -n 300
D=$1
for c in alltoall allgather; do for n in "" "-n 300"; do
  echo "### $c [$n] $(uptime)"
  LD_LIBRARY_PATH=$D/.libs $D/tools/plexusrun -n 2 $D/perf/.libs/plx_perf --coll $c -b 4M -e 64M -f 4 $n | grep -v '^#' | grep .
done; done
