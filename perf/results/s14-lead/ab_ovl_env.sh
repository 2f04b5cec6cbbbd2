#!/bin/bash
# ab_ovl_env.sh OUT LAUNCHES NP PREFIX "PERF ARGS" ARM=ENV[,ENV]...: interleaved
# PLX_PROGRESS=thread plx_perf --overlap launches of one installed build, one arm per environment
# ("base=" for none), order reversed every other launch; "# launch K ARM" + uptime before each.
# Summary: ovlsum.py OUT.
out=$1; n=$2; np=$3; pre=$4; read -r -a args <<<"$5"; shift 5; arms=("$@")
for k in $(seq 1 $n); do
  order=("${arms[@]}")
  if [ $((k % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    label=${a%%=*}; e=(); [ -n "${a#*=}" ] && IFS=, read -r -a e <<<"${a#*=}"
    echo "# launch $k $label $(uptime)" >> $out
    env "${e[@]}" PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" --overlap >> $out 2>&1
  done
done
