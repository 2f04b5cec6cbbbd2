#!/bin/bash
# tests/gpu/run.sh -- collectives on GPU buffers: the one script to run on a
# machine with a CUDA GPU, and the GPU test of `make check`.
#
# Without a usable CUDA device (no GPU, no driver, or Plexus built without
# CUDA) it prints "SKIP: no CUDA device (...)" and exits 77: make check
# counts it as skipped.
#
# Under make check (top_builddir set) it uses that build and runs a quick
# pass (about a minute on one GPU).  Run by hand from a source tree it
#   1. prints the machine (nvidia-smi, CPUs);
#   2. builds Plexus in $PLX_GPU_BUILD (default /tmp/plx-gpu-build):
#      configure (running autoreconf -fi first when the tree has no
#      configure script: a git checkout) with $PLX_GPU_CONFIGURE_ARGS, then
#      make of the library, plexusrun, plexus_info, plx_perf and gpu_check
#      only (Check is not needed);
#   3. runs tests/gpu/gpu_check (every collective on device buffers, results
#      checked; see its header), with one rank per GPU where NCCL can run:
#        - 1 rank: NCCL (all modes: blocking, nonblocking completed by event
#          polling, stream-ordered, task graph), then PLX_PROGRESS=thread,
#          PLX_NCCL=p2p (composed alltoall/gather/scatter), PLX_NCCL=0 (staged);
#        - 3 ranks sharing GPUs (staging through pinned host memory over shm);
#        - with >= 2 GPUs: one rank per GPU through NCCL (the real multi-rank
#          NCCL path, composed collectives too);
#        - --fault: a stalled stream must end in PLX_ERR_TIMEOUT, not a hang
#          (NCCL: communicator aborted, next call fails at once);
#   4. runs plx_perf --memory device (NCCL at 1 rank, or one rank per GPU; staged
#      at 2 ranks on one GPU), and the same sizes on host buffers;
#   5. ends with a block to paste into perf/RESULTS.md ("Issue 7").
# Budget: well under 10 minutes on one H200 (each step has a timeout).
#
# Exit status: 0 all passed, 1 something failed, 77 no CUDA device.
# Environment: PLX_GPU_BUILD, PLX_GPU_CONFIGURE_ARGS, PLX_GPU_QUICK=1 (the
# make-check subset by hand too).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/plx-gpu.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

if [ -n "${top_builddir:-}" ]; then
    mode=check
    B=$top_builddir
    QUICK=1
else
    mode=standalone
    B=${PLX_GPU_BUILD:-/tmp/plx-gpu-build}
    QUICK=${PLX_GPU_QUICK:-0}
fi
T0=$(date +%s)
fails=0
passes=0
summary=$out/summary

note() { echo "$*" | tee -a "$summary"; }

# ---- 1. the machine ---------------------------------------------------------
if [ "$mode" = standalone ]; then
    echo "== machine"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,driver_version,memory.total,pci.bus_id --format=csv 2>&1 | tee -a "$summary"
    else
        echo "(no nvidia-smi)"
    fi
    echo "CPUs: $(nproc)  kernel: $(uname -r)" | tee -a "$summary"
fi

# ---- 2. build ------------------------------------------------------------------
if [ "$mode" = standalone ]; then
    echo "== build in $B"
    if [ ! -x "$src/configure" ]; then
        echo "+ (cd $src && autoreconf -fi)"
        if ! (cd "$src" && autoreconf -fi) >"$out/autoreconf.log" 2>&1; then
            cat "$out/autoreconf.log"
            echo "run.sh: FAIL: no configure script and autoreconf failed (install autoconf automake"
            echo "        libtool pkg-config, or bring configure, Makefile.in, aclocal.m4, build-aux/,"
            echo "        plx_config.h.in and m4/ from a tree where autoreconf ran)"
            exit 1
        fi
    fi
    mkdir -p "$B"
    t=$(date +%s)
    # shellcheck disable=SC2086
    if ! (cd "$B" && "$src/configure" --prefix="$B/inst" ${PLX_GPU_CONFIGURE_ARGS:-}) >"$out/configure.log" 2>&1; then
        tail -40 "$out/configure.log"
        echo "run.sh: FAIL: configure"
        exit 1
    fi
    sed -n '/^Plexus .* configured/,$p' "$out/configure.log"
    if ! make -C "$B" -j"$(nproc)" libplexus.la tools/plexusrun tools/plexus_info perf/plx_perf \
            tests/gpu/gpu_check >"$out/make.log" 2>&1; then
        tail -40 "$out/make.log"
        echo "run.sh: FAIL: make"
        exit 1
    fi
    grep -E "warning:" "$out/make.log" | head -20
    echo "built in $(( $(date +%s) - t )) s"
fi

RUN=$B/tools/plexusrun
CHK=$B/tests/gpu/gpu_check
PERF=$B/perf/plx_perf
for f in "$RUN" "$CHK" "$PERF"; do
    if [ ! -x "$f" ]; then
        echo "run.sh: FAIL: $f not built"
        exit 1
    fi
done

# ---- is there a device? ---------------------------------------------------------
probe=$("$CHK" --probe 2>&1)
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "$probe"
    case $probe in SKIP:*) ;; *) echo "SKIP: no CUDA device" ;; esac
    exit 77
fi
if [ "$rc" -ne 0 ]; then
    echo "$probe"
    echo "run.sh: FAIL: gpu_check --probe exited $rc"
    exit 1
fi
note "$probe"
"$B/tools/plexus_info" --version | tee -a "$summary"
ngpu=$(echo "$probe" | sed -n 's/^gpu_check: \([0-9]*\) CUDA device.*/\1/p')
ngpu=${ngpu:-1}

# ---- 3. correctness ------------------------------------------------------------------
# job NAME N TIMEOUT [VAR=VALUE...] -- ARGS... : run gpu_check through plexusrun
job() {
    local name=$1 n=$2 tmo=$3
    shift 3
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local log=$out/job.$(( passes + fails )).log
    echo "+ ${envs[*]+${envs[*]} }plexusrun -n $n --timeout $tmo gpu_check $*"
    local t=$(date +%s.%N) rc
    env ${envs[@]+"${envs[@]}"} "$RUN" -n "$n" --timeout "$tmo" "$CHK" "$@" >"$log" 2>&1
    rc=$?
    local dt
    dt=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    grep -v " info: " "$log" | tail -25
    local ok
    ok=$(grep -c "^gpu_check: rank [0-9]* of $n: [0-9]* checks, 0 failures" "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        note "PASS  $name ($n rank(s), ${dt} s): $(grep -m1 '^gpu_check: rank 0 ' "$log" | sed 's/^gpu_check: //')"
        passes=$((passes + 1))
    else
        note "FAIL  $name ($n rank(s), ${dt} s): exit $rc, $ok of $n ranks clean"
        fails=$((fails + 1))
    fi
}

echo "== correctness"
if [ "$QUICK" = 1 ]; then
    job "1 rank, NCCL, quick" 1 300 -- --quick --expect nccl
    # two ranks: NCCL with a GPU each, staged when they share one
    if [ "$ngpu" -ge 2 ]; then two=nccl; else two=staged; fi
    job "2 ranks, $two, quick" 2 300 -- --quick --expect "$two" --modes block,nb,stream
else
    job "1 rank, NCCL, every mode" 1 400 -- --expect nccl
    job "1 rank, NCCL, progress thread" 1 300 PLX_PROGRESS=thread -- --quick --expect nccl
    job "1 rank, NCCL p2p-composed alltoall/gather/scatter" 1 300 PLX_NCCL=p2p -- --quick --expect nccl
    job "1 rank, staged (PLX_NCCL=0)" 1 300 PLX_NCCL=0 -- --quick --expect staged
    if [ "$ngpu" -ge 2 ]; then
        n=$ngpu
        [ "$n" -gt 8 ] && n=8
        job "$n ranks, one GPU each, NCCL" "$n" 400 -- --quick --expect nccl
        job "$n ranks, one GPU each, NCCL p2p-composed" "$n" 300 PLX_NCCL=p2p -- --quick --expect nccl --modes block,nb
        job "$((n + 1)) ranks (two share a GPU), staged" "$((n + 1))" 400 -- --quick --expect staged --modes block,nb
    else
        job "3 ranks on one GPU, staged" 3 400 -- --quick --expect staged
        job "3 ranks on one GPU, staged, progress thread" 3 300 PLX_PROGRESS=thread -- --quick --expect staged --modes nb,stream
    fi
    job "fault: stalled stream, NCCL" 1 60 PLX_TIMEOUT=2 -- --fault --expect nccl
    job "fault: stalled stream, staged" 1 60 PLX_TIMEOUT=2 PLX_NCCL=0 -- --fault --expect staged
fi

# ---- 4. performance ----------------------------------------------------------------------
# perf NAME N ARGS... : plx_perf through plexusrun; its output is kept for RESULTS
perf_out=$out/perf.txt
perf() {
    local name=$1 n=$2
    shift 2
    echo "+ plexusrun -n $n plx_perf $*" | tee -a "$perf_out"
    local log=$out/perf.$RANDOM.log
    "$RUN" -n "$n" --timeout 240 "$PERF" "$@" >"$log" 2>&1
    local rc=$?
    grep -v " info: " "$log" | tee -a "$perf_out"
    if [ "$rc" -eq 0 ] && grep -q "all results correct" "$log"; then
        note "PASS  perf: $name"
        passes=$((passes + 1))
    else
        note "FAIL  perf: $name (exit $rc)"
        fails=$((fails + 1))
    fi
}

echo "== performance"
if [ "$QUICK" = 1 ]; then
    perf "allreduce on device buffers, 1 rank" 1 --memory device --coll allreduce -b 8 -e 1M -f 16 -w 2 -n 10
    perf "all collectives on device buffers, 2 ranks" 2 --memory device --coll all -b 8 -e 64K -f 64 -w 1 -n 3
else
    np=1
    [ "$ngpu" -ge 2 ] && np=$ngpu && [ "$np" -gt 8 ] && np=8
    perf "allreduce, device buffers, $np rank(s)" "$np" --memory device --coll allreduce -b 8 -e 256M -f 4 -w 5
    perf "allreduce, nonblocking (event polling), device, $np rank(s)" "$np" --memory device -z 0 --coll allreduce -b 8 -e 64M -f 8 -w 5
    perf "every collective, device buffers, $np rank(s)" "$np" --memory device --coll all -b 1K -e 16M -f 16 -w 3
    perf "allreduce, host buffers, $np rank(s) (for comparison)" "$np" --memory host --coll allreduce -b 8 -e 256M -f 4 -w 5
    PLX_NCCL=0 perf "allreduce, device buffers, 2 ranks, staged (PLX_NCCL=0)" 2 --memory device --coll allreduce \
        -b 8 -e 64M -f 8 -w 3
fi

# ---- 5. summary ---------------------------------------------------------------------------
total=$(( $(date +%s) - T0 ))
echo
echo "==== paste into perf/RESULTS.md ("Issue 7") ($(date -u +%Y-%m-%d), $total s) ===="
cat "$summary"
if [ -s "$perf_out" ]; then
    echo
    echo '```'
    cat "$perf_out"
    echo '```'
fi
echo "==== end ===="
if [ "$fails" -eq 0 ]; then
    echo "run.sh: PASS ($passes checks, $total s)"
    exit 0
fi
echo "run.sh: FAIL: $fails of $((passes + fails)) failed ($total s)"
exit 1
