#!/bin/bash
# tests/multinode.sh — several nodes simulated on this machine
# (plexusrun --nodes K sets PLX_NODE_ID per rank): ranks of one "node" talk
# through shared memory, ranks of different nodes through UCX.
#   1. coll_check at 4 ranks as 2 nodes x 2 (block): every collective and
#      every algorithm checked; the default picks the hierarchical ones.
#      Then plx_perf of each hierarchical collective with PLX_LOG=debug,
#      which makes each rank log at finalize how many messages each
#      transport carried: the node leaders (ranks 0 and 2) must have sent
#      over ucx, ranks 1 and 3 (same node as their leader) never.
#   2. coll_check --nb at 5 ranks as 2 nodes, cyclic (uneven nodes).
#   3. p2p_check at 2 ranks with PLX_TRANSPORTS=ucx: UCX even on one node.
# Skipped (exit 77) in a build without UCX.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
run=$top_builddir/tools/plexusrun
mr=$top_builddir/tests/mr
grep -q '^#define PLX_HAVE_UCX 1' "$top_builddir/plx_config.h" 2>/dev/null ||
    { echo "SKIP: built without UCX (configure --with-ucx)"; exit 77; }
out=${TMPDIR:-/tmp}/multinode.$$.out
trap 'rm -f "$out"' EXIT
fail=0
export UCX_HANDLE_ERRORS=none

echo "+ $run -n 4 --nodes 2 coll_check"
if "$run" -n 4 --nodes 2 --timeout 600 "$mr/coll_check" >"$out" 2>&1 &&
   [ "$(grep -c ', 0 failures$' "$out")" -eq 4 ]; then
    echo "  ok: coll_check at 4 ranks on 2 simulated nodes"
else
    tail -40 "$out"; echo "  FAIL: coll_check at 4 ranks on 2 simulated nodes"; fail=1
fi

# Where did the bytes go?  One job per hierarchical collective (plx_perf
# checks its results too): only the node leaders (ranks 0 and 2) may use
# ucx, and they must.
for c in allreduce bcast reduce allgather barrier; do
    echo "+ PLX_LOG=debug $run -n 4 --nodes 2 plx_perf --coll $c"
    if ! PLX_LOG=debug "$run" -n 4 --nodes 2 --timeout 300 "$top_builddir/perf/plx_perf" --coll $c \
            -b 64 -e 256K -f 64 -n 20 -w 2 >"$out" 2>&1; then
        grep -v " trace: " "$out" | tail -20; echo "  FAIL: plx_perf --coll $c"; fail=1; continue
    fi
    grep -q "hier/shm+ucx" "$out" || { echo "  FAIL: $c did not run hier/shm+ucx"; fail=1; }
    msg=""
    for r in 0 1 2 3; do
        # (the prefix names the host too, "plexus[rank 2@node7]", when the job spans nodes)
        n=$(sed -n "s/^plexus\[rank $r\(@[^]]*\)\{0,1\}\] debug: transport ucx: \([0-9]*\) messages.*/\2/p" "$out" | tail -1)
        msg="$msg rank$r=$n"
        case $r in
            0|2) [ -n "$n" ] && [ "$n" -gt 0 ] || { echo "  FAIL: $c: leader rank $r sent nothing over ucx"; fail=1; } ;;
            *)   [ "$n" = 0 ] || { echo "  FAIL: $c: rank $r (not a leader) sent over ucx"; fail=1; } ;;
        esac
    done
    echo "  $c: messages over ucx:$msg"
done

echo "+ $run -n 5 --nodes 2 --node-map cyclic coll_check --nb"
if "$run" -n 5 --nodes 2 --node-map cyclic --timeout 600 "$mr/coll_check" --nb >"$out" 2>&1 &&
   [ "$(grep -c ', 0 failures$' "$out")" -eq 5 ]; then
    echo "  ok: coll_check --nb at 5 ranks on 2 simulated nodes (cyclic)"
else
    tail -40 "$out"; echo "  FAIL: coll_check --nb at 5 ranks, 2 nodes cyclic"; fail=1
fi

echo "+ PLX_TRANSPORTS=ucx $run -n 2 p2p_check"
if PLX_TRANSPORTS=ucx PLX_LOG=debug "$run" -n 2 --timeout 300 "$mr/p2p_check" >"$out" 2>&1 &&
   [ "$(grep -c ', 0 failures$' "$out")" -eq 2 ] &&
   ! grep -q "debug: transport shm" "$out" && grep -q "debug: transport ucx: [1-9]" "$out"; then
    echo "  ok: p2p_check at 2 ranks forced onto UCX"
else
    grep -v " trace: " "$out" | tail -30; echo "  FAIL: p2p_check with PLX_TRANSPORTS=ucx"; fail=1
fi
if [ $fail -eq 0 ]; then echo "multinode.sh: PASS"; exit 0; fi
echo "multinode.sh: FAIL"; exit 1
