#!/bin/bash
# ab_env.sh OUT LAUNCHES NP ARGS LABEL=TREE[:VAR=V[:VAR=V]]...: interleaved graph_bench -m overlap
# launches (ARGS after --iters 3) of built trees, order reversed every other launch, each arm
# with its environment values; "# launch K LABEL" + uptime before each.
out=$1; n=$2; np=$3; args=$4; shift 4; arms=("$@")
for k in $(seq 1 $n); do
  order=("${arms[@]}")
  if [ $((k % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    label=${a%%=*}; rest=${a#*=}; t=${rest%%:*}; envs=()
    [ "$rest" != "$t" ] && IFS=: read -ra envs <<< "${rest#*:}"
    echo "# launch $k $label ${envs[*]} $(uptime)" >> $out
    env "${envs[@]}" timeout 240 $t/tools/plexusrun -n $np $t/perf/graph_bench -m overlap --iters 3 $args >> $out 2>&1
  done
done
