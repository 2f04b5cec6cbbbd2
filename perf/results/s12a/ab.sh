#!/bin/bash
# ab.sh ROUNDS "PLX_PERF ARGS" LABEL=DIR[:ENV=V,...]...: interleaved plx_perf launches, 2 ranks
# (-n NP via NP=), the arms' order rotated each round, uptime before every launch.
R=$1; A=$2; shift 2; V=("$@"); k=${#V[@]}
for ((r = 0; r < R; r++)); do
  for ((i = 0; i < k; i++)); do
    v=${V[$(( (i + r) % k ))]}; lab=${v%%=*}; rest=${v#*=}; d=${rest%%:*}; e=""
    [[ $rest == *:* ]] && e=${rest#*:} && e=${e//,/ }
    echo "### $lab round $r $(uptime)"
    env $e LD_LIBRARY_PATH=$d/.libs $d/tools/plexusrun -n ${NP:-2} $d/perf/.libs/plx_perf $A | grep -v '^#' | grep . | sed "s/^/$lab /"
  done
done
