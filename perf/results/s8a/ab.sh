#!/bin/bash
# perf/results/s8a/ab.sh OUT ROUNDS BASE_PREFIX HERE_DIR [VARIANT...] -- interleaved NP-rank (default 2)
# launches of `plx_perf -c allreduce -b 1M -e 16M -f 4` (SIZES=... to change -b/-e), one per
# variant per round, `uptime` before every launch.  VARIANT: name=base|here[,ENV=value...]
# (default: base=base here=here).  BASE_PREFIX: an installed build (its bin/, lib/);
# HERE_DIR: a build tree (its .libs, tools/, perf/.libs).  Run under qlock x.
# OUT lines: round variant coll bytes time_us algorithm wrong=N
set -u
out=$1; rounds=$2; pre=$3; here=$4; shift 4
[ $# -gt 0 ] || set -- base=base here=here
B=${B:-1M}; E=${E:-16M}; IT=${IT:-200}
for r in $(seq 1 "$rounds"); do
    for v in "$@"; do
        name=${v%%=*}; rest=${v#*=}; IFS=, read -r -a parts <<<"$rest"; build=${parts[0]}
        envs=("${parts[@]:1}")
        echo "# round $r $name $(uptime)" >>"$out"
        args=(-c allreduce -b "$B" -e "$E" -f 4 -n "$IT" -w 5)
        if [ "$build" = base ]; then
            cmd=(env "${envs[@]}" PLX_PREFIX=$pre LD_LIBRARY_PATH=$pre/lib timeout 60 "$pre/bin/plexusrun" -n "${NP:-2}" "$pre/bin/plx_perf")
        else
            cmd=(env "${envs[@]}" LD_LIBRARY_PATH=$here/.libs timeout 60 $here/tools/plexusrun -n "${NP:-2}" $here/perf/.libs/plx_perf)
        fi
        "${cmd[@]}" "${args[@]}" 2>&1 |
            awk -v r="$r" -v n="$name" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "allreduce", $1, $6, $NF, "wrong=" $(NF-1) } /PROBE/ { print "# " n, $0 }' >>"$out"
    done
done
echo "# end $(uptime)" >>"$out"
