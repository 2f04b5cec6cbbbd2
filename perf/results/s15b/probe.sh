#!/bin/bash
# probe.sh OUT LAUNCHES NP "PERF ARGS" [ENV...]: PLX_PROGRESS=thread plx_perf --overlap launches of
# the probe build (probe.patch: per idle iteration the sleep's overrun and the wait; per thread of
# each rank its last CPU, run / runqueue-wait time per iteration, nonvoluntary switches; the host's
# steal ticks), "# launch K" + uptime before each.
out=$1; n=$2; np=$3; read -r -a args <<<"$4"; shift 4
pre=$(cd "$(dirname "$0")/../../.." && pwd)/_inst
for k in $(seq 1 $n); do
  echo "# launch $k $(uptime)" >> $out
  env "$@" PLX_PERF_PROBE=${PROBE:-1} PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" --overlap >> $out 2>&1
done
