#!/bin/bash
# perf/small_ratio.sh -- small sizes (8 B-64 KiB) of several Plexus builds as
# the ratio to Open MPI measured in the same interleaved round: issue 11's
# "no size <= 64 KiB more than 10 % worse (ratio to Open MPI) than before".
# Each round runs, per collective, every build and Open MPI (ob1/vader, the
# binary perf/compare builds), so load changes hit all alike; runs at 2
# ranks land in a fast or slow placement mode per launch, so summarize over
# many rounds (minimum / first quartile per cell, perf/small_ratio_sum.py).
# The order rotates by one each round (round r starts with arm r-1 of
# "builds..., ompi"), so with ROUNDS a multiple of the arm count every arm
# runs in every position equally often: in a fixed order the same build
# run twice differed by 3-5% on average and past 1.10 in 7-10 cells
# (perf/RESULTS.md, issue 11, "sizes <= 64 KiB against before", s9s).
#
#   perf/small_ratio.sh OUT RANKS ROUNDS COLLS NAME=BUILD_DIR...
#
# COLLS: comma-separated (allreduce,bcast,...).  BUILD_DIR: a built tree
# (tools/plexusrun, perf/.libs/plx_perf, .libs/).  Sizes 8 B-64 KiB x2,
# 2000 timed iterations (200 warm-up) per size for every library.
# PERF_PROG=BUILD_DIR: every build runs that build's plx_perf (with its own
# launcher and library): the program changed since before issue 11 and
# alone made 2-rank gather of 8 B-1 KiB 4-23% slower with the same library
# (s9s), so comparing libraries wants one program.
# OUT lines (appended): round name coll bytes time_us algorithm
# ("ompi" as name, "-" as algorithm for Open MPI; "#" lines: uptime).
set -u
if [ $# -lt 5 ]; then
    echo "usage: $0 OUT RANKS ROUNDS COLLS NAME=BUILD_DIR..." >&2
    exit 2
fi
out=$1; n=$2; rounds=$3; IFS=, read -r -a colls <<<"$4"; shift 4
here=$(cd "$(dirname "$0")" && pwd)
bench=${TMPDIR:-/tmp}/small_ratio.mpi_bench.$$
trap 'rm -f "$bench"' EXIT
mpicc.openmpi -O2 -o "$bench" "$here/mpi_bench.c" || exit 1
sweep=(-b 8 -e 64K -f 2 -n 2000 -w 200)
arms=("$@" ompi)
k=${#arms[@]}
[ $((rounds % k)) -eq 0 ] || echo "small_ratio.sh: ROUNDS $rounds is not a multiple of $k arms: positions unbalanced" >&2
for r in $(seq 1 "$rounds"); do
    echo "# round $r ranks $n $(uptime)" >>"$out"
    for c in "${colls[@]}"; do
        for ((j = 0; j < k; j++)); do
            nb=${arms[(r - 1 + j) % k]}
            if [ "$nb" = ompi ]; then
                timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca pml ob1 --mca btl self,vader \
                    "$bench" -L openmpi -c "$c" "${sweep[@]}" 2>&1 |
                    awk -v r="$r" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, "ompi", c, $1, $6, "-" }' >>"$out"
                continue
            fi
            name=${nb%%=*}; d=${nb#*=}
            # the libtool wrapper's target, with the build's own library
            LD_LIBRARY_PATH=$d/.libs timeout 120 "$d/tools/plexusrun" -n "$n" "${PERF_PROG:-$d}/perf/.libs/plx_perf" -c "$c" "${sweep[@]}" 2>&1 |
                awk -v r="$r" -v b="$name" -v c="$c" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6, $NF }' >>"$out"
        done
    done
done
echo "# end $(uptime)" >>"$out"
