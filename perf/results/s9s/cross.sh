#!/bin/bash
# cross.sh OUT ROUNDS BEFORE NEW -- gather 8 B-1 KiB at 2 ranks, -n 2000 -w 200:
# each build's plx_perf with each build's library (4 arms, rotated per
# round): is a difference the library or the benchmark program?
set -u
out=$1 rounds=$2 b=$3 s=$4
arms=("before-prog+before-lib $b $b" "before-prog+new-lib $b $s" "new-prog+before-lib $s $b" "new-prog+new-lib $s $s")
for r in $(seq 1 "$rounds"); do
    for ((i = 0; i < 4; i++)); do
        read -r name prog lib <<<"${arms[(r - 1 + i) % 4]}"
        echo "# round $r $name $(uptime)" >>"$out"
        LD_LIBRARY_PATH=$lib/.libs timeout 60 "$prog/tools/plexusrun" -n 2 "$prog/perf/.libs/plx_perf" -c gather -b 8 -e 1K -f 2 -n 2000 -w 200 2>&1 |
            awk -v r="$r" -v n="$name" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "gather", $1, $6, $NF }' >>"$out"
    done
done
