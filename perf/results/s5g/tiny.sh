#!/bin/bash
# tiny.sh OUT: new library, 2 ranks, 8 launches: compute 1 us per layer (no sleeping worker) vs 0.44 ms
W=/work/wt/s5g; out=$1
for i in $(seq 1 8); do
  for lms in 0.001 0.44; do
    echo "# launch $i new lms$lms n 2 $(uptime)" >> $out
    LD_LIBRARY_PATH=$W/.libs timeout 100 $W/tools/plexusrun -n 2 $W/perf/.libs/graph_bench -m overlap --iters 3 \
      --compute idle --policies comm_first,compute_first --layer-ms $lms >> $out 2>&1
  done
done
echo "# end $(uptime)" >> $out
