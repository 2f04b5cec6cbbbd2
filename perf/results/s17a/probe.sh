#!/bin/bash
# probe.sh OUTDIR LAUNCHES NP "PERF ARGS" [ENV=VALUE...]: PLX_PROGRESS=thread plx_perf --overlap launches of the
# probe build (probe.patch): DIR/L<k>.txt (output, uptime), DIR/L<k>.lib.<pid>, DIR/L<k>.perf.<pid>
d=$1; n=$2; np=$3; read -r -a args <<<"$4"; shift 4   # then ENV=VALUE... for every launch
pre=$(cd "$(dirname "$0")/../../.." && pwd)/_inst
mkdir -p $d
for k in $(seq 1 $n); do
  echo "# launch $k $(uptime)" > $d/L$k.txt
  env "$@" PLX_S17_OUT=$d/L$k PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" --overlap >> $d/L$k.txt 2>&1
done
