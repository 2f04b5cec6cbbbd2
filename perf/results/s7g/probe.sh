#!/bin/bash
# probe.sh N RANKS [env...]: N launches of graph_bench -m overlap --probe 2 (this tree's
# library), comm_first, idle compute; each launch logs uptime.  Run under qlock x.
n=$1; np=$2; shift 2
for k in $(seq 1 $n); do
  echo "# launch $k n $np env: $* $(uptime)"
  env "$@" timeout 120 ./tools/plexusrun -n $np ./perf/graph_bench -m overlap --iters 3 --compute idle \
      --policies comm_first,compute_first --probe 2
done
