#!/bin/bash
# tests/mr/run_misc.sh -- bad input and bounded waits, through plexusrun:
#   bad_input at 1 rank (PLX_LOG=warn: the one-line messages for refused
#   calls must appear) and at 3 ranks (PLX_LOG=error, quieter): exit 0 and
#   every rank reports 0 failures;
#   timeout_check at 3 ranks with PLX_TIMEOUT=2: rank 1 skips an allreduce,
#   ranks 0 and 2 must get PLX_ERR_TIMEOUT in time (the program checks the
#   status and the time; exit 0), the whole job must end well within
#   plexusrun's own --timeout 30, and the library's message must name
#   "allreduce" and, as the peer that never arrived, rank 1.
# Prints each command and PASS/FAIL; exits 0/1.
#
# Environment: top_builddir, top_srcdir (set by make check; default: this
# script's ../..).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr

for f in "$RUN" "$MR/bad_input" "$MR/timeout_check"; do
    if [ ! -x "$f" ]; then
        echo "run_misc.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_misc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
    echo "  FAIL: $*"
    fails=$((fails + 1))
}

# ---- bad_input -------------------------------------------------------------
for n in 1 3; do
    log=$tmp/bad_input.$n.log
    if [ "$n" -eq 1 ]; then lvl=warn; else lvl=error; fi
    echo "+ PLX_LOG=$lvl $RUN -n $n --timeout 120 $MR/bad_input"
    PLX_LOG=$lvl "$RUN" -n "$n" --timeout 120 "$MR/bad_input" >"$log" 2>&1
    rc=$?
    if [ "$n" -eq 1 ]; then
        # the refused calls log at warn: show a few, not hundreds
        grep -v ' warn: ' "$log"
        nwarn=$(grep -c ' warn: ' "$log")
        echo "  ($nwarn warn lines, first 3:)"
        grep ' warn: ' "$log" | head -3
        [ "$nwarn" -gt 0 ] || fail "bad_input at 1 rank: no one-line warn message for refused calls (PLX_LOG=warn)"
    else
        cat "$log"
    fi
    ok=$(grep -c '^bad_input: rank [0-9]*: [0-9]* checks, 0 failures' "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        echo "  ok: bad_input at $n ranks"
    else
        fail "bad_input at $n ranks: exit $rc, $ok of $n ranks reported 0 failures"
    fi
done

# ---- timeout_check -----------------------------------------------------------
log=$tmp/timeout.log
echo "+ PLX_TIMEOUT=2 $RUN -n 3 --timeout 30 $MR/timeout_check"
t0=$(date +%s.%N)
PLX_TIMEOUT=2 PLX_LOG=warn "$RUN" -n 3 --timeout 30 "$MR/timeout_check" >"$log" 2>&1
rc=$?
t1=$(date +%s.%N)
dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
cat "$log"
echo "  (exit $rc after $dt s)"
[ "$rc" -eq 0 ] || fail "timeout_check: exit $rc (expected 0; 124 means the job hung)"
for r in 0 2; do
    grep -q "^timeout_check: R$r: allreduce without R1 returned .*PLX_TIMEOUT\|^timeout_check: R$r: allreduce without R1 returned 3 " "$log" ||
        fail "timeout_check: no PLX_ERR_TIMEOUT report from rank $r"
done
# The library's line(s) about the abandoned allreduce: "allreduce" and
# "timed out"/"timeout"; the text after the last ": " names the peers that
# never arrived and must name rank 1 (a 1 that is not part of a larger number).
msgs=$(grep -i 'allreduce' "$log" | grep -Ei 'timed out|timeout' | grep -v '^timeout_check:')
if [ -z "$msgs" ]; then
    fail "timeout_check: the library printed no message naming the allreduce that timed out"
else
    named=$(printf '%s\n' "$msgs" | sed -n 's/.*: //p' | grep -Ec '(^|[^0-9])1([^0-9]|$)')
    if [ "$named" -gt 0 ]; then
        echo "  ok: the timeout message names allreduce and rank 1"
    else
        fail "timeout_check: no timeout message names rank 1 as the missing peer"
    fi
fi

if [ "$fails" -eq 0 ]; then
    echo "run_misc.sh: PASS"
    exit 0
fi
echo "run_misc.sh: FAIL ($fails problem(s))"
exit 1
