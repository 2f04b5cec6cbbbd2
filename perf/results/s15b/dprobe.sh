#!/bin/bash
# dprobe.sh OUTDIR LAUNCHES "PERF ARGS" [ENV...]: 2-rank PLX_PROGRESS=thread plx_perf --overlap
# launches of a build with -DPLX_DIRECT_PROBE (each op's phase times per rank: DIR/L<k>.<pid>) and
# the plx_perf probe (PLX_PERF_PROBE=2: per idle iteration post time, overrun, wait): DIR/L<k>.txt
d=$1; n=$2; read -r -a args <<<"$3"; shift 3
pre=$(cd "$(dirname "$0")/../../.." && pwd)/_inst
mkdir -p $d
for k in $(seq 1 $n); do
  echo "# launch $k $(uptime)" > $d/L$k.txt
  env "$@" PLX_DIRECT_PROBE_OUT=$d/L$k PLX_PERF_PROBE=2 PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n 2 $pre/bin/plx_perf "${args[@]}" --overlap >> $d/L$k.txt 2>&1
done
