#!/bin/bash
# perf/results/s7t/ab.sh OUT ROUNDS NRANKS COLLS SIZES VARIANT... -- interleaved
# plx_perf launches: per round, each collective, size and variant in turn.
# VARIANT: "base" = main at daead0a installed in /work/wt/integ/_inst, or
# NAME[:ENV=V[,ENV=V...]] = this build tree with those environment settings,
# or "ompi" = Open MPI ob1/vader running $MPIB (mpicc.openmpi -O2 perf/mpi_bench.c).
# With LIMITS=path (cc -O3 perf/limits.c) and NRANKS=2, each round first runs
# limits -p 512K --sizes SIZES --csv (lines "lim metric value").
# Iterations: 300 up to 4 MiB, 60 at 16 MiB, 20 above.  Run under qlock x.
# OUT lines: round variant coll bytes time_us load1
set -u
out=$1; rounds=$2; np=$3; szl=$5; IFS=, read -r -a colls <<<"$4"; IFS=, read -r -a sizes <<<"$5"; shift 5
pre=/work/wt/integ/_inst
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    if [ -n "${LIMITS:-}" ]; then
        "$LIMITS" -p 512K --sizes "$szl" --csv -s 8M -r 3 -t 1000 2>/dev/null |
            awk -F, -v r="$r" '/_[0-9]+,/ { print r, "lim", $1, $2 }' >>"$out"
    fi
    for c in "${colls[@]}"; do for s in "${sizes[@]}"; do for v in "$@"; do
        it=300; case $s in 16M) it=60;; 64M) it=20;; esac
        args=(-c "$c" -b "$s" -e "$s" -n "$it" -w 5)
        ld=$(cut -d' ' -f1 /proc/loadavg)
        if [ "$v" = ompi ]; then
            timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" --mca pml ob1 --mca btl self,vader \
                "$MPIB" "${args[@]}" 2>&1 |
                awk -v r="$r" -v c="$c" -v ld="$ld" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, "ompi", c, $1, $6, ld }' >>"$out"
        elif [ "$v" = base ]; then
            PLX_PREFIX=$pre LD_LIBRARY_PATH=$pre/lib timeout 60 "$pre/bin/plexusrun" -n "$np" "$pre/bin/plx_perf" "${args[@]}" 2>&1 |
                awk -v r="$r" -v c="$c" -v ld="$ld" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, "base", c, $1, $6, ld }' >>"$out"
        else
            name=${v%%:*}; envs=(); [ "$name" != "$v" ] && IFS=, read -r -a envs <<<"${v#*:}"
            env "${envs[@]}" LD_LIBRARY_PATH=.libs timeout 60 ./tools/plexusrun -n "$np" ./perf/.libs/plx_perf "${args[@]}" 2>&1 |
                awk -v r="$r" -v c="$c" -v n="$name" -v ld="$ld" '/^PROBE/ { print "#", r, n, c, $0; next } !/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, ld }' >>"$out"
        fi
    done; done; done
done
echo "# end $(uptime)" >>"$out"
