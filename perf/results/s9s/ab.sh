#!/bin/bash
# ab.sh OUT RANKS ROUNDS COLL MIN MAX NAME=BUILD_DIR... -- interleaved A/B of
# plx_perf (default selector) between builds: every round runs each build
# once, the order rotated by one each round; "# uptime" before each launch.
# F=FACTOR: plx_perf -f (default 2); PERF_ARGS: more plx_perf options;
# PERF_PROG=BUILD_DIR: every build runs that build's plx_perf.
# OUT lines: round name coll bytes time_us algorithm/transport
set -u
out=$1 n=$2 rounds=$3 c=$4 lo=$5 hi=$6; shift 6
arms=("$@")
for r in $(seq 1 "$rounds"); do
    order=(); for ((i = 0; i < ${#arms[@]}; i++)); do order+=("${arms[(r - 1 + i) % ${#arms[@]}]}"); done
    for nb in "${order[@]}"; do
        name=${nb%%=*} d=${nb#*=}
        echo "# round $r $name $(uptime)" >>"$out"
        LD_LIBRARY_PATH=$d/.libs timeout 120 "$d/tools/plexusrun" -n "$n" "${PERF_PROG:-$d}/perf/.libs/plx_perf" -c "$c" -b "$lo" -e "$hi" -f "${F:-2}" ${PERF_ARGS:-} 2>&1 |
            awk -v r="$r" -v b="$name" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6, $NF }' >>"$out"
    done
done
echo "# end $(uptime)" >>"$out"
