#!/bin/bash
# layer_cost.sh (perf/results/h15g) — instructions per call that libplexus-mpi adds, load-independent
# (callgrind: no PMU in this VM).  1 rank of Open MPI, cgloop.c: 2000 calls per collective at 8 B,
# counted between callgrind client requests, plain and with the layer preloaded; prints per call
# plain, through the layer, and the difference.
#   layer_cost.sh LAYER.so [PLX_MPI_COLLS value ("" = the default table)] [collectives] [bytes]
set -eu
so=$1 colls_env=${2:-} which=${3:-allreduce,reduce,bcast,allgather,alltoall,barrier} bytes=${4:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/layer_cost.XXXXXX); trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -o "$work/cgloop" "$here/cgloop.c"
run() {     # tag [env...]
    local tag=$1; shift
    (cd "$work" && env "$@" valgrind --tool=callgrind --callgrind-out-file="$work/cg.$tag" \
        "$work/cgloop" "$which" "$bytes" >/dev/null 2>"$work/vg.$tag.err") || { tail -5 "$work/vg.$tag.err"; exit 1; }
}
run plain PLX_UNUSED=1
run layer ${colls_env:+PLX_MPI_COLLS=$colls_env} LD_PRELOAD="$so"
for f in "$work"/cg.plain.* "$work"/cg.layer.*; do
    d=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f"); t=$(sed -n 's/^totals: //p;s/^summary: //p' "$f" | head -1)
    [ -n "$d" ] && echo "${f##*/cg.} $d $t"
done | awk '{ split($1, p, "."); v[p[1], $2] = $3; c[$2] = 1 }
    END { for (k in c) printf "%-10s plain %7.1f  layer %7.1f  added %6.1f instructions per call\n", k,
          v["plain", k] / 2000, v["layer", k] / 2000, (v["layer", k] - v["plain", k]) / 2000 }' | sort
