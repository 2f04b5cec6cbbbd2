#!/bin/bash
# perf/results/s7r/ab.sh OUT ROUNDS COLLS SIZES VARIANT... -- interleaved
# launches at NRANKS ranks (default 2); per round every collective, size and
# variant in turn.  VARIANT: name=build[,ENV=value...], build "base" (main at
# daead0a installed in /work/wt/integ/_inst) or "here" (this build tree).
# Iterations: 300 up to 4 MiB, 60 at 16 MiB, 20 above.  Run under qlock x.
# OUT lines: round variant coll bytes time_us algorithm wrong=N (plx_perf: elements wrong)
set -u
out=$1; rounds=$2; IFS=, read -r -a colls <<<"$3"; IFS=, read -r -a sizes <<<"$4"; shift 4
pre=/work/wt/integ/_inst
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    for c in "${colls[@]}"; do for s in "${sizes[@]}"; do for v in "$@"; do
        name=${v%%=*}; rest=${v#*=}; IFS=, read -r -a parts <<<"$rest"; build=${parts[0]}
        envs=("${parts[@]:1}")
        it=300; case $s in 16M) it=60;; 64M) it=20;; esac
        args=(-c "$c" -b "$s" -e "$s" -n "$it" -w 5)
        if [ "$build" = base ]; then
            cmd=(env "${envs[@]}" PLX_PREFIX=$pre LD_LIBRARY_PATH=$pre/lib timeout 60 "$pre/bin/plexusrun" -n "${NRANKS:-2}" "$pre/bin/plx_perf")
        else
            cmd=(env "${envs[@]}" LD_LIBRARY_PATH=.libs timeout 60 ./tools/plexusrun -n "${NRANKS:-2}" ./perf/.libs/plx_perf)
        fi
        "${cmd[@]}" "${args[@]}" 2>&1 |
            awk -v r="$r" -v c="$c" -v n="$name" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, $NF, "wrong=" $(NF-1) } /PROBE/ { print "# " n, $0 }' >>"$out"
    done; done; done
done
echo "# end $(uptime)" >>"$out"
