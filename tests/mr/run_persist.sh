#!/bin/bash
# tests/mr/run_persist.sh — persistent requests through plexusrun:
#   persist_check (tests/mr/persist_check.c: every collective through its
#   plx_*_init, started 3 times with new input, checked against a serial
#   reference; startall/waitall; persistent send/recv; the MPI-4 rules and
#   bad arguments) at 1-5 ranks, under PLX_PROGRESS=caller and =thread
#   (the 5-rank runs oversubscribed on 2 cores); and persistent runs after
#   a peer died end with PLX_ERR_PEER_FAILED (persist_check --peer-dies);
#   persist_vcoll_check (tests/mr/persist_vcoll_check.c: the persistent
#   v-collectives, scan and exscan the same way, with random counts and a
#   non-commutative user op) at 1-5 ranks in both modes.
# Each run must exit 0 and every rank must print its final line with
# "0 failures".  Prints each command, its time and ok/FAIL; exits 0/1.
#
# Environment: top_builddir (set by make check; default: this script's ../..).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr

for f in "$RUN" "$MR/persist_check" "$MR/persist_vcoll_check"; do
    if [ ! -x "$f" ]; then
        echo "run_persist.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_persist.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)

# run_job NAME N MODE TIMEOUT ARGS...: the job under PLX_PROGRESS=MODE must
# exit 0 and N lines "NAME: rank R ...: N checks, 0 failures" must appear.
run_job() {
    local name=$1 n=$2 mode=$3 tmo=$4
    shift 4
    local log=$tmp/$name.$n.$mode.log
    echo "+ PLX_PROGRESS=$mode $RUN -n $n --timeout $tmo $*"
    local t0 t1 rc ok dt
    t0=$(date +%s.%N)
    PLX_PROGRESS=$mode "$RUN" -n "$n" --timeout "$tmo" "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    ok=$(grep -c "^$name: rank [0-9]*.*: [0-9]* checks, 0 failures" "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        echo "  ok: $name at $n ranks, progress=$mode (${dt} s)"
    else
        cat "$log"
        echo "  FAIL: $name at $n ranks, progress=$mode: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
        fails=$((fails + 1))
    fi
}

for mode in caller thread; do
    for n in 1 2 3 4 5; do
        run_job persist_check "$n" "$mode" 240 "$MR/persist_check"
        run_job persist_vcoll_check "$n" "$mode" 120 "$MR/persist_vcoll_check"
    done
done

# a peer that dies between runs: PLX_ERR_PEER_FAILED on the survivor (rank 1
# exits 0, so only rank 0 reports)
log=$tmp/peer_dies.log
echo "+ $RUN -n 2 --timeout 120 $MR/persist_check --peer-dies"
"$RUN" -n 2 --timeout 120 "$MR/persist_check" --peer-dies >"$log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^persist_check: rank 0 size 2: [0-9]* checks, 0 failures" "$log"; then
    echo "  ok: persistent runs after a peer died end with PLX_ERR_PEER_FAILED"
else
    cat "$log"
    echo "  FAIL: peer_dies: exit $rc"
    fails=$((fails + 1))
fi

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_persist.sh: PASS (${total} s)"
    exit 0
fi
echo "run_persist.sh: FAIL: $fails job(s) failed (${total} s)"
exit 1
