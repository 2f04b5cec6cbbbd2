#!/bin/bash
# probe_ab.sh RANKS LAUNCHES OUT: this tree, graph_bench --probe 2, alternating the kernel's worker
# slice (PLX_GRAPH_WORKER_SLICE_US unset) and a 100 us one.  Run under qlock x.
np=$1; L=$2; out=$3
for k in $(seq 1 $L); do
  for v in 0 100; do
    echo "# launch $k slice $v n $np $(uptime)" >> $out
    PLX_GRAPH_WORKER_SLICE_US=$v timeout 120 ./tools/plexusrun -n $np ./perf/graph_bench -m overlap --iters 3 \
      --compute idle --policies comm_first,compute_first --probe 2 >> $out 2>&1
  done
done
