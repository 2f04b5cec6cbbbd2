#!/bin/bash
# perf/results/s5r/ab_build.sh OUT ROUNDS COLLS SIZES -- interleaved launches,
# NRANKS ranks (environment, default 2):
# 2 ranks: "before" = main at ebfa0e7 installed in /work/wt/integ/_inst,
# "after" = this build tree; per round, collective and size both in turn.
# Iterations: 300 up to 4 MiB, 60 at 16 MiB, 20 above.  Run under qlock x.
# OUT lines: round variant coll bytes time_us
set -u
out=$1; rounds=$2; IFS=, read -r -a colls <<<"$3"; IFS=, read -r -a sizes <<<"$4"
pre=/work/wt/integ/_inst
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    for c in "${colls[@]}"; do for s in "${sizes[@]}"; do
        it=300; case $s in 16M) it=60;; 64M) it=20;; esac
        args=(-c "$c" -b "$s" -e "$s" -n "$it" -w 5)
        PLX_PREFIX=$pre LD_LIBRARY_PATH=$pre/lib timeout 60 "$pre/bin/plexusrun" -n "${NRANKS:-2}" "$pre/bin/plx_perf" "${args[@]}" 2>&1 |
            awk -v r="$r" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, "before", c, $1, $6 }' >>"$out"
        LD_LIBRARY_PATH=.libs timeout 60 ./tools/plexusrun -n "${NRANKS:-2}" ./perf/.libs/plx_perf "${args[@]}" 2>&1 |
            awk -v r="$r" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, "after", c, $1, $6 }' >>"$out"
    done; done
done
echo "# end $(uptime)" >>"$out"
