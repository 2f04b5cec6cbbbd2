#!/bin/bash
# perf/small_interleave.sh -- interleaved timings of the small collectives
# at 2 ranks over several built trees (e.g. a commit before a change, main,
# a branch): each round runs every collective on every build in turn, so a
# change of the machine's load hits all builds alike.  Timings still move
# with the load: compare instructions first (perf/small_ir.sh), and take
# the minimum and median over rounds of the fast mode (perf/RESULTS.md).
#
#   perf/small_interleave.sh OUT ROUNDS NAME=BUILD_DIR...
#
# BUILD_DIR: a built tree (tools/plexusrun, perf/.libs/plx_perf, .libs/).
# OUT lines: round name coll bytes time_us algorithm ("#" lines: uptime).
# Collectives allreduce, bcast, reduce, allgather, 8 B to 64 KiB (x8), 50000
# iterations per size.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 OUT ROUNDS NAME=BUILD_DIR..." >&2
    exit 2
fi
out=$1; rounds=$2; shift 2
: >"$out"
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    for c in allreduce bcast reduce allgather; do
        for nb in "$@"; do
            name=${nb%%=*}; d=${nb#*=}
            # the libtool wrapper's target, with the build's own library
            LD_LIBRARY_PATH=$d/.libs timeout 300 "$d/tools/plexusrun" -n 2 "$d/perf/.libs/plx_perf" -c $c -b 8 -e 64K -f 8 -n 50000 2>&1 |
                awk -v r="$r" -v b="$name" -v c=$c '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6, $NF }' >>"$out"
        done
    done
done
echo "# end $(uptime)" >>"$out"
