#!/bin/bash
# tests/mr/run_comm2.sh — the communicator constructors and point-to-point
# calls of issue 14b through plexusrun (tests/mr/comm2_check.c):
#   1. comm2_check (split_type, create, create_group, sendrecv, probe/iprobe, bad
#      arguments) at 1-5 ranks under PLX_PROGRESS=caller and =thread, and,
#      built with UCX, at 4 ranks as 2 simulated nodes (--nodes 2: the
#      node communicators differ, probes and sendrecv cross UCX);
#   2. plx_abort: rank 2 of 4 aborts with code 42 while the others wait in
#      a barrier for it; plexusrun must exit 42 (not the --timeout 124)
#      and say "rank 2 (pid P) called plx_abort with code 42"; code 300
#      (outside 1..255) gives exit status 1 and is reported as code 300;
#   3. plx_abort under mpirun.openmpi (when installed, built with PMIx):
#      mpirun must exit 42;
#   4. plx_probe bounded: PLX_TIMEOUT=1 and no message gives
#      PLX_ERR_TIMEOUT; a probe of a rank that exits gives
#      PLX_ERR_PEER_FAILED (2 ranks; 3 ranks, both others probing, under
#      PLX_PROGRESS=caller and =thread); plx_comm_create_group bounded: PLX_TIMEOUT=1 and
#      a listed rank that never calls gives PLX_ERR_TIMEOUT.
# Prints each command, its time and ok/FAIL; exits 0/1.
#
# Environment: top_builddir (set by make check; default: this script's ../..).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr

for f in "$RUN" "$MR/comm2_check"; do
    if [ ! -x "$f" ]; then
        echo "run_comm2.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_comm2.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)

# run_job LABEL N EXPECT_RC ENV... -- PLEXUSRUN_ARGS... : runs plexusrun -n N
# with ENV set; the exit status must be EXPECT_RC; the log is left in
# $tmp/LABEL.log for extra checks.  Returns 0 when the status matched.
run_job() {
    local label=$1 n=$2 want=$3
    shift 3
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local log=$tmp/$label.log
    echo "+ ${envs[*]} $RUN -n $n $*"
    local t0 t1 rc dt
    t0=$(date +%s.%N)
    env "${envs[@]}" "$RUN" -n "$n" "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq "$want" ]; then
        echo "  ok: $label (exit $rc, ${dt} s)"
        return 0
    fi
    cat "$log"
    echo "  FAIL: $label: exit $rc, expected $want (${dt} s)"
    fails=$((fails + 1))
    return 1
}

# N ranks (of a job of SIZE, default N) printed "N checks, 0 failures"
all_passed() {
    local label=$1 n=$2 sz=${3:-$2} ok
    ok=$(grep -c "^comm2_check: rank [0-9]* size $sz: [0-9]* checks, 0 failures" "$tmp/$label.log")
    if [ "$ok" -ne "$n" ]; then
        cat "$tmp/$label.log"
        echo "  FAIL: $label: $ok of $n ranks reported 0 failures"
        fails=$((fails + 1))
    fi
}

for mode in caller thread; do
    for n in 1 2 3 4 5; do
        run_job "comm2.$mode.$n" "$n" 0 PLX_PROGRESS=$mode -- --timeout 240 "$MR/comm2_check" &&
            all_passed "comm2.$mode.$n" "$n"
    done
done
if grep -q '^#define PLX_HAVE_UCX 1' "$top_builddir/plx_config.h" 2>/dev/null; then
    run_job comm2.nodes2 4 0 PLX_PROGRESS=caller -- --nodes 2 --timeout 240 "$MR/comm2_check" &&
        all_passed comm2.nodes2 4
else
    echo "  (built without UCX: no --nodes run)"
fi

# plx_abort: the job ends at once with the code, reported as an abort
if run_job abort42 4 42 PLX_PROGRESS=caller -- --timeout 120 "$MR/comm2_check" --abort 2 42; then
    if ! grep -q "^plexusrun: rank 2 (pid [0-9]*) called plx_abort with code 42" "$tmp/abort42.log"; then
        cat "$tmp/abort42.log"
        echo "  FAIL: abort42: plexusrun did not report the abort"
        fails=$((fails + 1))
    fi
fi
if run_job abort300 3 1 PLX_PROGRESS=thread -- --timeout 120 "$MR/comm2_check" --abort 0 300; then
    if ! grep -q "^plexusrun: rank 0 (pid [0-9]*) called plx_abort with code 300 (exit status 1)" "$tmp/abort300.log"; then
        cat "$tmp/abort300.log"
        echo "  FAIL: abort300: plexusrun did not report the abort"
        fails=$((fails + 1))
    fi
fi

# plx_abort under mpirun (Open MPI, PMIx): the aborting rank's status ends the job
if command -v mpirun.openmpi >/dev/null && grep -q '^#define PLX_HAVE_PMIX 1' "$top_builddir/plx_config.h"; then
    echo "+ mpirun.openmpi -n 3 comm2_check --abort 1 42"
    t0=$(date +%s.%N)
    (unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_LAUNCHER PLX_ABORT_FD
     OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
         timeout 300 mpirun.openmpi -n 3 "$MR/comm2_check" --abort 1 42) >"$tmp/mpirun_abort.log" 2>&1
    rc=$?
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 42 ] && grep -q "rank 1 (world 1) called plx_abort with code 42" "$tmp/mpirun_abort.log"; then
        echo "  ok: abort under mpirun (exit 42, ${dt} s)"
    else
        cat "$tmp/mpirun_abort.log"
        echo "  FAIL: abort under mpirun: exit $rc, expected 42 (${dt} s)"
        fails=$((fails + 1))
    fi
else
    echo "  (no mpirun.openmpi or no PMIx: abort under mpirun not run)"
fi

# bounded probes
run_job probe_timeout 1 0 PLX_TIMEOUT=1 -- --timeout 120 "$MR/comm2_check" --probe-timeout &&
    all_passed probe_timeout 1
run_job group_timeout 2 0 PLX_TIMEOUT=1 -- --timeout 120 "$MR/comm2_check" --group-timeout &&
    all_passed group_timeout 2
run_job probe_dead 2 0 PLX_PROGRESS=caller -- --timeout 120 "$MR/comm2_check" --probe-dead &&
    all_passed probe_dead 1 2
# 3 ranks (on a node with fewer CPUs: the probe's back-off yields and
# sleeps rather than spins, lib/engine/context.c): ranks 0 and 2 probe the
# rank that left, with and without the progress thread
for m in caller thread; do
    run_job probe_dead3_$m 3 0 PLX_PROGRESS=$m -- --timeout 120 "$MR/comm2_check" --probe-dead &&
        all_passed probe_dead3_$m 2 3
done

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_comm2.sh: PASS (${total} s)"
    exit 0
fi
echo "run_comm2.sh: FAIL: $fails check(s) failed (${total} s)"
exit 1
