#!/bin/bash
# size_rule_cost.sh (perf/results/s5p) — instructions libplexus-mpi's own functions spend on a
# call the size rule leaves to MPI (bcast 8 B on 2 ranks of Open MPI: its table routes bcast at
# 512 B-8 KiB only), load-independent: callgrind on both ranks of ../h15g/cgloop.c, self cost of
# the layer's functions (everything in the .so) over the 2000 calls of one dump, per call.
# Spinning inside Open MPI varies with timing, so only the layer's own instructions are counted.
#   size_rule_cost.sh LAYER.so [collective] [bytes]
set -eu
so=$1 which=${2:-bcast} bytes=${3:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/size_rule_cost.XXXXXX); trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -o "$work/cgloop" "$here/../h15g/cgloop.c"
(cd "$work" && timeout 240 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$so" \
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$work/cgloop" "$which" "$bytes" \
    >"$work/out" 2>&1) || { tail -20 "$work/out"; exit 1; }
lib=$(basename "$so")
for f in "$work"/cg.*.*; do
    grep -q "Trigger: Client Request: $which" "$f" || continue
    # self cost per function of the layer's object
    callgrind_annotate --threshold=100 --inclusive=no "$f" 2>/dev/null | grep "$lib\|libplexus-mpi" |
        awk -v f="${f##*/}" '{ gsub(",", "", $1); s += $1; printf "  %s %s\n", f, $0 } END { printf "%s: layer self %d instructions, %.1f per call\n", f, s, s / 2000 }'
done
