#!/bin/bash
# stepcount.sh (perf/results/s5p) — instructions the layer runs on one MPI_X call that its
# size rule leaves to MPI: 2 ranks of Open MPI, cgloop (../h15g/cgloop.c) at BYTES; rank 0 under
# gdb stops at MPI_X's entry after 200 calls and single-steps until PMPI_X's PLT entry.
# (callgrind cannot: Plexus does not start under valgrind, syscall 434 unhandled.)
#   stepcount.sh LAYER.so [bcast|allreduce|reduce|allgather|alltoall] [bytes]
set -eu
so=$1 coll=${2:-bcast} bytes=${3:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/stepcount.XXXXXX); trap 'rm -rf "$work"' EXIT
mpicc.openmpi -O2 -g -o "$work/cgloop" "$here/../h15g/cgloop.c"
X=$(echo "${coll:0:1}" | tr a-z A-Z)${coll:1}
cat >"$work/cmds" <<G
set pagination off
set breakpoint pending on
break MPI_$X
ignore 1 200
run
python
import gdb
n = 0
seen = []
while True:
    f = gdb.selected_frame()
    nm = f.name() or ""
    if nm.startswith("PMPI_$X"): break
    seen.append(nm) if not seen or seen[-1] != nm else None
    gdb.execute("stepi", to_string=True); n += 1
    if n > 5000: break
print("STEPS %d until %s via %s" % (n, gdb.selected_frame().name(), " ".join(seen)))
end
kill
quit
G
cat >"$work/wrap" <<W
#!/bin/bash
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then exec gdb -q -batch -x $work/cmds --args "\$@"; else exec "\$@"; fi
W
chmod +x "$work/wrap"
(cd "$work" && timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$so" \
    "$work/wrap" "$work/cgloop" "$coll" "$bytes" >"$work/out" 2>&1) || true
grep STEPS "$work/out" || tail -20 "$work/out"
