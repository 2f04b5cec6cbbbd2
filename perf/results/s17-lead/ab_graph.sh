#!/bin/bash
# ab_graph.sh OUT LAUNCHES NP LABEL=TREE...: interleaved graph_bench -m overlap --iters 3
# launches of built trees (TREE/tools/plexusrun, TREE/perf/graph_bench), order reversed every
# other launch; "# launch K LABEL" + uptime before each.
out=$1; n=$2; np=$3; shift 3; arms=("$@")
for k in $(seq 1 $n); do
  order=("${arms[@]}")
  if [ $((k % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    label=${a%%=*}; t=${a#*=}
    echo "# launch $k $label $(uptime)" >> $out
    timeout 240 $t/tools/plexusrun -n $np $t/perf/graph_bench -m overlap --iters 3 >> $out 2>&1
  done
done
