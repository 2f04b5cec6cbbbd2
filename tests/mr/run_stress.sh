#!/bin/bash
# tests/mr/run_stress.sh — the nonblocking stress tests through plexusrun,
# each with caller-driven progress and with the background progress thread
# (PLX_PROGRESS=thread in the environment):
#   stress_check (10,000 random collectives on world, a dup and a split,
#   up to 32 in flight, completed in random per-rank orders, every result
#   checked) at 4 ranks, and with other seeds at 2, 3 (split communicators
#   of unequal sizes) and 5 ranks (oversubscribed on 2 cores);
#   reorder_check (per-rank posting orders across five communicators) at 4
#   ranks with the progress thread (run_nb.sh runs it without).
# Each run must exit 0 and every rank must print its final line with
# "0 failures".  Prints each command, its time and ok/FAIL; exits 0/1.
# Measured on 2 cores: 1-2 s per stress_check run at 4 ranks (0.3 at 2,
# 2 at 5), ~10 s for the whole script.
#
# Environment: top_builddir (set by make check; default: this script's
# ../..), PLX_STRESS_ARGS (extra stress_check arguments, e.g. --ops 100000).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr
EXTRA=${PLX_STRESS_ARGS:-}

for f in "$RUN" "$MR/stress_check" "$MR/reorder_check"; do
    if [ ! -x "$f" ]; then
        echo "run_stress.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_stress.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)

# run_job NAME N PROGRESS ARGS... : PROGRESS is "caller" (PLX_PROGRESS
# removed from the environment) or "thread" (PLX_PROGRESS=thread).
run_job() {
    local name=$1 n=$2 mode=$3
    shift 3
    local log=$tmp/$name.$n.$mode.log
    local t0 t1 rc ok dt
    t0=$(date +%s.%N)
    if [ "$mode" = thread ]; then
        echo "+ PLX_PROGRESS=thread $RUN -n $n --timeout 300 $*"
        PLX_PROGRESS=thread "$RUN" -n "$n" --timeout 300 "$@" >"$log" 2>&1
    else
        echo "+ $RUN -n $n --timeout 300 $*"
        env -u PLX_PROGRESS "$RUN" -n "$n" --timeout 300 "$@" >"$log" 2>&1
    fi
    rc=$?
    t1=$(date +%s.%N)
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    ok=$(grep -c "^$name: rank [0-9]*.*[:,] 0 failures" "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        grep "^$name: [0-9]* \(collectives\|rounds\)\|^$name: \(per\|completion\)" "$log"
        echo "  ok: $name at $n ranks, $mode progress (${dt} s)"
    else
        cat "$log"
        echo "  FAIL: $name at $n ranks, $mode progress: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
        fails=$((fails + 1))
    fi
}

for mode in caller thread; do
    # shellcheck disable=SC2086
    run_job stress_check 4 "$mode" "$MR/stress_check" --label "$mode-progress" $EXTRA
    for n in 2 3 5; do
        # shellcheck disable=SC2086
        run_job stress_check "$n" "$mode" "$MR/stress_check" --seed "$n" --label "$mode-progress" $EXTRA
    done
done
run_job reorder_check 4 thread "$MR/reorder_check"

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_stress.sh: PASS (${total} s)"
    exit 0
fi
echo "run_stress.sh: FAIL: $fails job(s) failed (${total} s)"
exit 1
