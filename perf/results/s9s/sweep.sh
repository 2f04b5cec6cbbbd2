#!/bin/bash
# sweep.sh PREFIX OUT RANKS ROUNDS [MIN MAX [FACTOR]] -- perf/tune_sweep of allreduce
# over every algorithm, interleaved, raw launches (with uptime) to OUT.raw,
# the median table to OUT.txt.  PREFIX: an installed build.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
p=$1 out=$2 n=$3 rounds=$4 lo=${5:-8K} hi=${6:-256K} f=${7:-2}
PLX_PREFIX=$p "$here/tune_sweep" -n "$n" -c allreduce -b "$lo" -e "$hi" -f "$f" --rounds "$rounds" \
    --raw "$out.raw" --csv "$out.csv" >"$out.txt" 2>&1
echo "# end $(uptime)" >>"$out.raw"
