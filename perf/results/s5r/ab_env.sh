#!/bin/bash
# perf/results/s5r/ab_env.sh OUT ROUNDS COLLS SIZES VARIANT... -- interleaved
# launches of one build under different environments (VARIANT: name=ENV,ENV
# or name=- for none); per round, per collective and size, every variant in
# turn.  OUT lines: round variant coll bytes time_us
set -u
out=$1; rounds=$2; IFS=, read -r -a colls <<<"$3"; IFS=, read -r -a sizes <<<"$4"; shift 4
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    for c in "${colls[@]}"; do for s in "${sizes[@]}"; do for v in "$@"; do
        name=${v%%=*}; e=${v#*=}; envs=()
        [ "$e" != - ] && IFS=, read -r -a envs <<<"$e"
        env "${envs[@]}" timeout 60 ./tools/plexusrun -n 2 ./perf/plx_perf -c "$c" -b "$s" -e "$s" -n 300 -w 20 2>&1 |
            awk -v r="$r" -v b="$name" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6 }' >>"$out"
    done; done; done
done
echo "# end $(uptime)" >>"$out"
