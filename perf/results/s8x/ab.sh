#!/bin/bash
# perf/results/s8x/ab.sh OUT ROUNDS BASE_DIR NEW_DIR [VARIANT...]: interleaved 2-rank
# plx_perf launches (--coll allgather, then alltoall, -b 1M -e 4M -f 4 -n 300 -w 5), per round
# each variant in turn after `perf/limits -p 512K --sizes 1M,4M,16M,64M --csv` (LIMITS=binary).
# VARIANT: base (BASE_DIR/_inst), new (NEW_DIR build tree), or new:ENV=V[,ENV=V] .
# OUT lines: round variant coll bytes time_us load1 ; "lim" lines: round lim metric value.
# Run under qlock x.
set -u
out=$1; rounds=$2; base=$3; new=$4; shift 4
vars=("$@"); [ ${#vars[@]} -eq 0 ] && vars=(base new)
args=(-b 1M -e 4M -f 4 -n 300 -w 5)
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    if [ -n "${LIMITS:-}" ]; then
        "$LIMITS" -p 512K --sizes 1M,4M,16M,64M --csv 2>/dev/null |
            awk -F, -v r="$r" '/_[0-9]+[MK]?,/ { print r, "lim", $1, $2 }' >>"$out"
    fi
    for c in allgather alltoall; do for v in "${vars[@]}"; do
        ld=$(cut -d' ' -f1 /proc/loadavg)
        echo "# $r $v $(uptime)" >>"$out"
        if [ "$v" = base ]; then
            PLX_PREFIX=$base/_inst LD_LIBRARY_PATH=$base/_inst/lib timeout 60 "$base/_inst/bin/plexusrun" -n 2 \
                "$base/_inst/bin/plx_perf" --coll $c "${args[@]}" 2>&1
        else
            name=${v%%:*}; envs=(); [ "$name" != "$v" ] && IFS=, read -r -a envs <<<"${v#*:}"
            env "${envs[@]}" LD_LIBRARY_PATH=$new/.libs timeout 60 "$new/tools/plexusrun" -n 2 \
                "$new/perf/.libs/plx_perf" --coll $c "${args[@]}" 2>&1
        fi | awk -v r="$r" -v n="${v%%:*}" -v ld="$ld" -v c=$c '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, ld }
              /rror|FAIL/ { print "#", $0 }' >>"$out"
    done; done
done
echo "# end $(uptime)" >>"$out"
