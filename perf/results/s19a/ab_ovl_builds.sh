#!/bin/bash
# ab_ovl_builds.sh OUT LAUNCHES NP "PERF ARGS" LABEL=PREFIX...: as perf/results/s14-lead/ab_ovl_env.sh,
# but one arm per installed build: interleaved PLX_PROGRESS=thread plx_perf --overlap launches,
# order reversed every other launch; "# launch K LABEL" + uptime before each.  Summary: ovlsum.py OUT.
out=$1; n=$2; np=$3; read -r -a args <<<"$4"; shift 4; arms=("$@")
for k in $(seq 1 $n); do
  order=("${arms[@]}")
  if [ $((k % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    label=${a%%=*}; pre=${a#*=}
    echo "# launch $k $label $(uptime)" >> $out
    PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" --overlap >> $out 2>&1
  done
done
