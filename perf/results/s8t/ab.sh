#!/bin/bash
# ab.sh BASE NEW OUT LAUNCHES: 2 ranks, plx_perf --coll C -b 1M -e 16M -f 4 for C in bcast, reduce,
# reduce_scatter, allgather, alltoall; launches alternating BASE / NEW (built trees), uptime before each.
A=$1; B=$2; O=$3; L=${4:-6}; mkdir -p "$O"
for i in $(seq 1 "$L"); do
  for c in bcast reduce reduce_scatter allgather alltoall; do
  for d in "$A" "$B"; do
    t=$([ "$d" = "$A" ] && echo base || echo new)
    echo "== $t $c launch $i $(date -u +%T) $(uptime)" >> "$O/ab.txt"
    LD_LIBRARY_PATH=$d/.libs timeout 200 $d/tools/plexusrun -n 2 $d/perf/.libs/plx_perf \
      --coll $c -b 1M -e 16M -f 4 >> "$O/ab.txt" 2>&1
  done
  done
done
echo "== done $(date -u +%T) $(uptime)" >> "$O/ab.txt"
