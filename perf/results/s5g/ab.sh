#!/bin/bash
# ab.sh N LAUNCHES OUT LAYER_MS: graph_bench -m overlap, the same binary against the base library
# (main at ebfa0e7, /work/wt/integ/_inst/lib) and the new one (this branch), alternating, the order
# swapped every launch; each launch: default (compute = sum_comm/50) then --layer-ms LAYER_MS
n=$1; L=$2; out=$3; lms=$4
W=/work/wt/s5g
for i in $(seq 1 $L); do
  if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    if [ $b = base ]; then lib=/work/wt/integ/_inst/lib; else lib=$W/.libs; fi
    for v in default fixed; do
      if [ $v = default ]; then extra=(); else extra=(--layer-ms $lms); fi
      echo "# launch $i $b $v n $n $(uptime)" >> $out
      LD_LIBRARY_PATH=$lib timeout 100 $W/tools/plexusrun -n $n $W/perf/.libs/graph_bench -m overlap --iters 3 \
        --compute idle --policies comm_first,compute_first "${extra[@]}" >> $out 2>&1
    done
  done
done
echo "# end $(uptime)" >> $out
