#!/bin/bash
# tests/mr/run_mismatch.sh -- ranks that disagree on a collective call, and
# plx_finalize after a failure, through plexusrun (4 ranks):
#   mismatch_check once per algorithm of the registry, enumerated at run
#   time from `plexus_info --algorithms` (so algorithms added later are
#   covered), with PLX_TUNE forcing it for all sizes; the allreduce runs add
#   the task-graph case (--graph); the v-forms and scans at 8 B (and
#   1 MiB where their counts differ by design).
#   Then mismatch_check --cross with the default table: disagreements that
#   send the ranks down different paths (slots / direct / schedule) must
#   end in PLX_ERR_MISMATCH on every rank, one message naming both sides.
#   Then the hierarchical path: allreduce, bcast, reduce, allgather and
#   barrier on 4 ranks over 2 simulated nodes (plexusrun --nodes 2), when
#   this build has a network transport (ucx); at 4 MiB their node-local
#   phases run single-copy (direct, from 64 KiB: lib/coll/hier.c), and each
#   agreeing allreduce after a mismatch also runs at 1 MiB (--big): the
#   node's direct phases must still work after a schedule ended before its
#   phase began.
#   Each job must exit 0 with 4 final "0 failures" lines.
#   finalize_check: the last rank SIGSTOPs itself; the others' allreduce
#   times out (PLX_TIMEOUT=5) and plx_finalize must return within 2 s of
#   that error (the whole time, ~PLX_TIMEOUT, is printed); once on shared
#   slots (4 KiB), once on a schedule (1 MiB).
# Prints each command and PASS/FAIL; exits 0/1.
#
# Environment: top_builddir, top_srcdir (set by make check; default: this
# script's ../..).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
INFO=$top_builddir/tools/plexus_info
MR=$top_builddir/tests/mr

for f in "$RUN" "$INFO" "$MR/mismatch_check" "$MR/finalize_check"; do
    if [ ! -x "$f" ]; then
        echo "run_mismatch.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_mismatch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "  FAIL: $*"
    fails=$((fails + 1))
}

# run_job NAME ARGS... : plexusrun -n 4 ARGS; exit 0 and 4 "0 failures" lines.
run_job() {
    local name=$1
    shift
    local log=$tmp/job.log
    echo "+ ${PLX_TUNE:+PLX_TUNE=$PLX_TUNE }PLX_TIMEOUT=$PLX_TIMEOUT $RUN -n 4 --timeout 300 $*"
    "$RUN" -n 4 --timeout 300 "$@" >"$log" 2>&1
    local rc=$?
    # the per-case lines are long: show the verdicts and the summaries
    grep -E 'FAIL|checks,|plx_finalize' "$log"
    local ok
    ok=$(grep -c '^mismatch_check: rank [0-9]*: [0-9]* checks, 0 failures' "$log")
    if [ "$rc" -ne 0 ] || [ "$ok" -ne 4 ]; then
        fail "$name: exit $rc, $ok of 4 ranks reported 0 failures"
        echo "  --- log of $name:"
        sed 's/^/  | /' "$log" | head -200
    fi
}

export PLX_TIMEOUT=20   # a case that hangs shows as PLX_ERR_TIMEOUT, well inside --timeout
export PLX_LOG=${PLX_LOG:-error}

# ---- every algorithm of the registry, forced ----------------------------------
algos=$("$INFO" --algorithms | awk 'NF >= 2 && $1 != "#" { print $1 ":" $2 }')
if [ -z "$algos" ]; then
    fail "plexus_info --algorithms listed no algorithm"
fi
nalgos=0
for ca in $algos; do
    coll=${ca%%:*}
    algo=${ca#*:}
    sizes=
    case $coll in
    # schedules only; the ones whose counts differ by design see a message
    # of the wrong size (eager at 8 B, rendezvous at 1 MiB); the others'
    # totals are in the signature compared first (one size is enough)
    alltoallv|gatherv|scatterv) sizes="--sizes 8,1048576" ;;
    allgatherv|reduce_scatterv|scan|exscan) sizes="--sizes 8" ;;
    esac
    extra=
    [ "$coll" = allreduce ] && [ "$algo" = shm_slots ] && extra=--graph
    # a schedule algorithm's partner in the coll/order cases must run on a
    # schedule too (by default the large sizes run as direct): pin two
    pin=
    case $algo in
    shm_slots|direct) ;;
    *) for p in allreduce:ring gather:linear; do
           [ "${p%%:*}" = "$coll" ] || pin="$pin;${p%%:*}:0-inf@${p#*:}"
       done ;;
    esac
    PLX_TUNE="$coll:0-inf@$algo$pin" run_job "$coll/$algo" "$MR/mismatch_check" --coll "$coll" $extra $sizes
    if [ "$coll" = allreduce ] && { [ "$algo" = shm_slots ] || [ "$algo" = ring ]; }; then
        # the library's line names both sides of the count case (8 B: rank 2
        # passed 1 float32 where the others passed 2; 4 MiB: half)
        if [ "$algo" = shm_slots ]; then small=4; big=8; else small=2097152; big=4194304; fi
        # (a schedule's message comes from the call records' slow path,
        # which also names the path: " on a schedule")
        pat="the ranks disagree: rank [0-9]+ called allreduce of ($small|$big) bytes \(float32 sum\)( on a schedule)?, rank [0-9]+ \(world [0-9]+\) allreduce of ($big|$small) bytes \(float32 sum\)"
        if grep -Eq "$pat" "$tmp/job.log"; then
            echo "  ok: a message names both sides of the allreduce/$algo count mismatch"
        else
            fail "allreduce/$algo: no message naming both sides of the count mismatch"
        fi
    fi
    if [ "$algo" = shm_slots ]; then
        case $coll in
        alltoall|gather|scatter|reduce_scatter)
            # these run on the v-form's code with equal counts: the message
            # must still name what the application called
            if grep -q "plx_${coll}v on comm" "$tmp/job.log" || ! grep -q "plx_$coll on comm" "$tmp/job.log"; then
                fail "$coll/shm_slots: its messages do not name plx_$coll"
            else
                echo "  ok: $coll/shm_slots messages name plx_$coll"
            fi ;;
        esac
    fi
    nalgos=$((nalgos + 1))
done
echo "  ($nalgos algorithms)"

# ---- disagreements across paths (lib/coll/call_record.c) -------------------------
PLX_TUNE= run_job cross "$MR/mismatch_check" --cross
# the rank that finds it names both sides and both paths
pat="the ranks disagree: rank [0-9]+ called allreduce of (8|4194304) bytes \(float32 sum\) on (shm_slots|direct), rank [0-9]+ \(world [0-9]+\) allreduce of (4194304|8) bytes \(float32 sum\) on (direct|shm_slots)"
if grep -Eq "$pat" "$tmp/job.log"; then
    echo "  ok: a message names both sides (and paths) of the slots/direct count mismatch"
else
    fail "cross: no message naming both sides of the slots/direct count mismatch"
fi

# ---- the hierarchical path: 2 simulated nodes ------------------------------------
if "$INFO" --version | grep -q 'ucx yes'; then
    for coll in allreduce bcast reduce allgather barrier; do
        extra=
        [ "$coll" = allreduce ] && extra=--graph
        PLX_TUNE= run_job "$coll/hier" --nodes 2 "$MR/mismatch_check" --coll "$coll" $extra --big 1048576
        grep -q "$coll/hier " "$tmp/job.log" ||
            fail "$coll over 2 simulated nodes did not run the hier algorithm"
        if [ "$coll" = allreduce ]; then
            # a node-mate of a leader that saw the mismatch on the leaders'
            # ring ends in the direct phase, with PLX_ERR_MISMATCH
            if grep -Eq "node-local sequence [0-9]+ \(direct\): rank [0-9]+ \(world [0-9]+\) (gave up on it before it began \(the ranks disagree|took no part in it)" "$tmp/job.log"; then
                echo "  ok: the hierarchical allreduce's node-local phase ran direct and ended with the mismatch"
            else
                fail "allreduce/hier: no direct node-local phase ended by a node-mate's mismatch in the log"
            fi
        fi
    done
else
    echo "  (hierarchical path skipped: this build has no network transport)"
fi

# ---- plx_finalize after a failure -----------------------------------------------------
for b in 4096 1048576; do
    log=$tmp/fin.log
    echo "+ PLX_TIMEOUT=5 $RUN -n 4 --timeout 60 $MR/finalize_check --bytes $b"
    PLX_TIMEOUT=5 PLX_LOG=error "$RUN" -n 4 --timeout 60 "$MR/finalize_check" --bytes "$b" >"$log" 2>&1
    rc=$?
    grep '^finalize_check:' "$log"
    echo "  (plexusrun exit $rc: the stopped rank is killed on purpose)"
    ok=$(grep -c '^finalize_check: R[0-9]*: ok' "$log")
    [ "$ok" -eq 3 ] || fail "finalize_check --bytes $b: $ok of 3 running ranks passed (timeout, then a prompt plx_finalize)"
done

if [ "$fails" -eq 0 ]; then
    echo "run_mismatch.sh: PASS"
    exit 0
fi
echo "run_mismatch.sh: FAIL ($fails problem(s))"
exit 1
