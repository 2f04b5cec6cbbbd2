#!/bin/bash
# tests/gpu/fake_check.sh -- the device-buffer code paths (lib/device/device.c,
# transports/nccl/) on a machine without a GPU, against a stand-in CUDA
# runtime and NCCL (tests/gpu/fake/): built here with $CC under the SONAMEs
# libplexus links (libcudart.so.N, libnccl.so.2) and put first on
# LD_LIBRARY_PATH.  They prove the plumbing -- routing, the per-communicator
# setup, NCCL enqueue order, nonblocking NCCL calls, staging, event polling,
# stream order, errors and timeouts -- never CUDA or NCCL themselves (that
# is tests/gpu/run.sh on a real GPU).
#
# Runs gpu_check (see its header) at 1 rank through NCCL, 3 ranks with a GPU
# each through NCCL (also composed from send/recv), 3 ranks sharing a GPU
# (staged), the stalled-stream fault test, an injected NCCL error, and
# plx_perf --memory device; checks that PLX_CUDA=1 without a device fails plx_init.
# About 25 s on 2 cores.  Built with CUDA but without NCCL: the staged paths
# only.  Skipped (77) without CUDA, or when no compiler is at hand.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
CC=${CC:-cc}
RUN=$top_builddir/tools/plexusrun
CHK=$top_builddir/tests/gpu/gpu_check
PERF=$top_builddir/perf/plx_perf
LIB=$top_builddir/.libs/libplexus.so

info=$("$top_builddir/tools/plexus_info" --version 2>/dev/null)
if ! echo "$info" | grep -q "cuda yes"; then
    echo "SKIP: this build has no CUDA"
    exit 77
fi
# built without NCCL: only the staged paths
has_nccl=0
echo "$info" | grep -q "nccl yes" && has_nccl=1
cudart=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*NEEDED.*\[\(libcudart\.so[.0-9]*\)\].*/\1/p')
nccl=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*NEEDED.*\[\(libnccl\.so[.0-9]*\)\].*/\1/p')
if [ -z "$cudart" ] || { [ "$has_nccl" = 1 ] && [ -z "$nccl" ]; }; then
    echo "SKIP: libplexus.so does not link libcudart (and libnccl) dynamically"
    exit 77
fi
# the flags configure found CUDA with, and the real runtime's symbol version
cuda_cpp=$(sed -n 's/^CUDA_CPPFLAGS = //p' "$top_builddir/Makefile")
real=$(ldd "$LIB" | sed -n "s/.*$cudart => \([^ ]*\) .*/\1/p")
node=$(objdump -T "$real" 2>/dev/null | awk '$NF == "cudaMalloc" { print $(NF-1) }')

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx-fake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
vs=
if [ -n "$node" ] && [ "$node" != Base ]; then
    echo "$node { global: cuda*; fake_*; local: *; };" >"$tmp/cudart.map"
else
    echo "{ global: cuda*; fake_*; local: *; };" >"$tmp/cudart.map"
fi
vs="-Wl,--version-script=$tmp/cudart.map"
# shellcheck disable=SC2086
if ! $CC -shared -fPIC -O1 -g $cuda_cpp "$top_srcdir/tests/gpu/fake/fakecudart.c" $vs \
        -Wl,-soname,"$cudart" -o "$tmp/$cudart" -pthread 2>"$tmp/cc.log" ||
   { [ "$has_nccl" = 1 ] &&
     ! $CC -shared -fPIC -O1 -g $cuda_cpp -I"$top_srcdir/lib" "$top_srcdir/tests/gpu/fake/fakenccl.c" \
        -Wl,-soname,"$nccl" -L"$tmp" -l:"$cudart" -o "$tmp/$nccl" 2>>"$tmp/cc.log"; }; then
    cat "$tmp/cc.log"
    echo "SKIP: could not build the stand-in CUDA/NCCL with $CC"
    exit 77
fi
export LD_LIBRARY_PATH=$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

fails=0
# expect WHAT RC PATTERN CMD...: CMD exits RC and prints PATTERN (a grep -E)
expect() {
    local what=$1 want=$2 pat=$3
    shift 3
    echo "+ $*"
    local t rc
    t=$(date +%s.%N)
    timeout 120 "$@" >"$tmp/out" 2>&1
    rc=$?
    local dt
    dt=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq "$want" ] && grep -qE "$pat" "$tmp/out"; then
        echo "  ok: $what (${dt} s)"
    else
        grep -v " info: " "$tmp/out" | tail -20
        echo "  FAIL: $what: exit $rc (want $want), pattern '$pat' $(grep -qE "$pat" "$tmp/out" && echo found || echo missing) (${dt} s)"
        fails=$((fails + 1))
    fi
}

expect "plexus_info sees the stand-in device" 0 "device usable now: yes" "$top_builddir/tools/plexus_info" --version
if [ "$has_nccl" = 0 ]; then
    expect "1 rank, no NCCL in this build: staged" 0 "rank 0 of 1: [0-9]+ checks, 0 failures \(route [a-z_]+/staged/shm" \
        "$RUN" -n 1 "$CHK" --quick --expect staged
    expect "3 ranks, a GPU each, no NCCL: staged" 0 "rank 2 of 3: [0-9]+ checks, 0 failures \(route [a-z_]+/staged/shm" \
        env FAKE_CUDA_GPU_PER_RANK=1 "$RUN" -n 3 "$CHK" --quick --expect staged
    expect "a stalled stream ends in a timeout (staged)" 0 "fault: stalled allreduce -> timeout.*next device allreduce -> success" \
        env PLX_TIMEOUT=2 "$CHK" --fault --expect staged
    expect "PLX_CUDA=1 without a device: plx_init fails" 1 "PLX_CUDA=1 but no CUDA device" \
        env PLX_CUDA=1 FAKE_CUDA_NODEV=1 "$PERF" --coll allreduce -b 8 -e 8 -n 1
    [ "$fails" -eq 0 ] && { echo "fake_check.sh: PASS (staged paths only: built without NCCL)"; exit 0; }
    echo "fake_check.sh: FAIL: $fails check(s)"
    exit 1
fi
expect "1 rank through NCCL, every mode" 0 "rank 0 of 1: [0-9]+ checks, 0 failures \(route nccl/nccl" \
    "$RUN" -n 1 "$CHK" --quick --expect nccl
expect "3 ranks, a GPU each, through NCCL" 0 "rank 2 of 3: [0-9]+ checks, 0 failures \(route nccl/nccl" \
    env FAKE_CUDA_GPU_PER_RANK=1 "$RUN" -n 3 "$CHK" --quick --expect nccl
expect "3 ranks, 3 GPUs, alltoall/gather/scatter from send/recv (PLX_NCCL=p2p), progress thread" 0 \
    "rank 1 of 3: [0-9]+ checks, 0 failures \(route nccl/nccl" \
    env FAKE_CUDA_NDEV=3 PLX_NCCL=p2p PLX_PROGRESS=thread "$RUN" -n 3 "$CHK" --quick --expect nccl --modes block,nb
expect "3 ranks sharing a GPU: staged" 0 "rank 1 of 3: [0-9]+ checks, 0 failures \(route [a-z_]+/staged/shm" \
    "$RUN" -n 3 "$CHK" --quick --expect staged
expect "a stalled stream ends in a timeout, NCCL aborted" 0 "fault: stalled allreduce -> timeout.*next device allreduce -> timed out" \
    env PLX_TIMEOUT=2 "$CHK" --fault --expect nccl
expect "an asynchronous NCCL error is reported, logged, not a hang" 1 "nccl: an asynchronous NCCL operation failed.*fake NCCL last error" \
    env FAKE_NCCL_FAIL=4 "$CHK" --quick --modes block
expect "plx_perf --memory device, 2 ranks staged" 0 "through staged/shm.*slower" \
    "$RUN" -n 2 "$PERF" --memory device --coll allreduce -b 8 -e 1M -f 32 -w 1 -n 3
expect "PLX_CUDA=1 without a device: plx_init fails" 1 "PLX_CUDA=1 but no CUDA device" \
    env PLX_CUDA=1 FAKE_CUDA_NODEV=1 "$PERF" --coll allreduce -b 8 -e 8 -n 1
# persistent collectives on device buffers (each start takes the device path again)
expect "plx_perf -m device -P, 3 ranks through NCCL, every collective" 0 "all results correct" \
    env FAKE_CUDA_GPU_PER_RANK=1 "$RUN" -n 3 "$PERF" --memory device -P -c all -b 8 -e 64K -f 64 -w 1 -n 3
expect "plx_perf -m device -P, 2 ranks staged, every collective" 0 "all results correct" \
    "$RUN" -n 2 "$PERF" --memory device -P -c all -b 8 -e 64K -f 64 -w 1 -n 3

if [ "$fails" -eq 0 ]; then
    echo "fake_check.sh: PASS"
    exit 0
fi
echo "fake_check.sh: FAIL: $fails check(s)"
exit 1
