#!/bin/bash
# perf/results/s11r/ab.sh (a copy of s10g's) OUT ROUNDS "COLLS" "PERF ARGS" VARIANT...: interleaved 2-rank
# plx_perf launches (NP ranks, default 2), rounds alternate the variant order.
# VARIANT: LABEL=PREFIX[:ENV=V,ENV=V...]   (PREFIX: an installed build, e.g. <dir>/_inst).
# OUT lines: round label coll bytes time_us load1 algorithm; "# ..." lines carry uptime.
# Run under qlock x.  Summary: perf/results/s8x/summ.py OUT (base = the label "base").
set -u
out=$1; rounds=$2; colls=$3; read -r -a args <<<"$4"; shift 4
vars=("$@")
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
    order=("${vars[@]}")
    if [ $((r % 2)) -eq 0 ]; then order=(); for ((i=${#vars[@]}-1; i>=0; i--)); do order+=("${vars[$i]}"); done; fi
    for c in $colls; do for v in "${order[@]}"; do
        label=${v%%=*}; rest=${v#*=}; pre=${rest%%:*}; envs=()
        [ "$pre" != "$rest" ] && IFS=, read -r -a envs <<<"${rest#*:}"
        ld=$(cut -d' ' -f1 /proc/loadavg)
        echo "# $r $label $c $(uptime)" >>"$out"
        env "${envs[@]}" PLX_PREFIX=$pre timeout 120 "$pre/bin/plexusrun" -n "${NP:-2}" \
            "$pre/bin/plx_perf" --coll $c "${args[@]}" 2>&1 |
            awk -v r="$r" -v n="$label" -v ld="$ld" -v c=$c '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, ld, $NF }
              /rror|FAIL/ { print "#", $0 }' >>"$out"
    done; done
done
echo "# end $(uptime)" >>"$out"
