#!/bin/bash
# tests/mr/run_vcoll.sh -- run vcoll_check (v-collectives, scan/exscan,
# user-defined ops, bad arguments) through plexusrun:
#   at 1, 2, 3, 4, 5 ranks under PLX_PROGRESS=caller and =thread (the
#   full count sets, with the large one, at 2 and 4 ranks; --quick
#   elsewhere);
#   every algorithm of the new collectives and every rank-ordered
#   algorithm, forced with PLX_TUNE for all sizes, --quick at 3 and 5 ranks;
#   each commutative-only algorithm of allreduce / reduce / reduce_scatter /
#   reduce_scatterv forced with PLX_TUNE at 3 ranks: the non-commutative
#   user op must still come out in rank order (the selector must refuse
#   the forced algorithm for it and fall back to a rank-ordered one);
#   alltoallv with ranks forced onto different algorithms (linear on some,
#   pairwise on others) at 5 ranks: they must still match;
#   the node-local algorithms (shm_slots, direct) of the v-forms at 1-4
#   ranks, with tiny slots and without single-copy reads (below).
# Each run must exit 0 and every rank must print "0 failures".  Prints each
# command, its time and PASS/FAIL; exits 0/1.
#
# Environment: top_builddir (set by make check; default: this script's
# ../..), PLX_MR_QUICK=1 (--quick everywhere).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
PROG=$top_builddir/tests/mr/vcoll_check
INFO=$top_builddir/tools/plexus_info
QUICK=${PLX_MR_QUICK:-0}

for f in "$RUN" "$PROG" "$INFO"; do
    if [ ! -x "$f" ]; then
        echo "run_vcoll.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_vcoll.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)
# A job's limit: 300 s, four times that in a sanitizer build (make check
# passes the configured $CC, which carries -fsanitize there): under make
# check-sanitize the 4-rank direct job passed 300 s.
limit=300
case " ${CC:-} " in *" -fsanitize="*) limit=1200 ;; esac

# run_job N ARGS... : plexusrun -n N vcoll_check ARGS; exit 0 and N final
# lines with "0 failures".
run_job() {
    local n=$1
    shift
    local log=$tmp/job.log
    echo "+ ${PLX_TUNE:+PLX_TUNE=$PLX_TUNE }${PLX_PROGRESS:+PLX_PROGRESS=$PLX_PROGRESS }$RUN -n $n --timeout $limit $PROG $*"
    local t0 t1 rc ok dt
    t0=$(date +%s.%N)
    "$RUN" -n "$n" --timeout $limit "$PROG" "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    grep -v "^plexus\[rank [0-9]*\] warn: plx_" "$log" | head -40
    ok=$(grep -c "^vcoll_check: rank [0-9]* size $n: [0-9]* checks, 0 failures" "$log")
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        echo "  ok: $n ranks (${dt} s)"
    else
        echo "  FAIL: $n ranks: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
        fails=$((fails + 1))
    fi
}

for mode in caller thread; do
    for n in 1 2 3 4 5; do
        args=(--quick)
        if [ "$QUICK" != 1 ] && { [ "$n" -eq 2 ] || [ "$n" -eq 4 ]; }; then args=(); fi
        PLX_PROGRESS=$mode run_job "$n" ${args[@]+"${args[@]}"}
    done
done

# Forced algorithms: those of the new collectives, and every rank-ordered one.
algos=$("$INFO" --algorithms | awk '$1 !~ /^#/ && NF >= 2 &&
    ($1 ~ /^(allgatherv|alltoallv|gatherv|scatterv|reduce_scatterv|scan|exscan)$/ || /rank-ordered/) { print $1 ":" $2 }')
if [ -z "$algos" ]; then
    echo "  FAIL: plexus_info --algorithms listed none of the new algorithms"
    fails=$((fails + 1))
fi
for ca in $algos; do
    coll=${ca%%:*}
    algo=${ca#*:}
    for n in 3 5; do
        PLX_TUNE="$coll:0-inf@$algo" PLX_LOG=error run_job "$n" --quick --coll "$coll"
    done
done

# Commutative-only algorithms forced: a non-commutative op must not use them.
comm_only=$("$INFO" --algorithms | awk '$1 ~ /^(allreduce|reduce|reduce_scatter|reduce_scatterv)$/ &&
    !/rank-ordered/ { print $1 ":" $2 }')
for ca in $comm_only; do
    coll=${ca%%:*}
    algo=${ca#*:}
    PLX_TUNE="$coll:0-inf@$algo" PLX_LOG=error run_job 3 --quick --coll "$coll"
done

# alltoallv lets each rank pick its algorithm from its own counts: ranks
# choosing differently must still match (one message per pair either way).
# PLX_RANK is set per process by plexusrun; ranks 0 and 3 run linear.
mixed=$tmp/mixed.sh
cat >"$mixed" <<'MIX'
#!/bin/sh
case "$PLX_RANK" in 0|3) PLX_TUNE=alltoallv:0-inf@linear ;; *) PLX_TUNE=alltoallv:0-inf@pairwise ;; esac
export PLX_TUNE
exec "$@"
MIX
chmod +x "$mixed"
echo "+ $RUN -n 5 --timeout $limit $mixed $PROG --quick --coll alltoallv (ranks 0 and 3: linear, the others: pairwise)"
run_job_mixed() {
    local log=$tmp/mixed.log ok rc
    "$RUN" -n 5 --timeout $limit "$mixed" "$PROG" --quick --coll alltoallv >"$log" 2>&1
    rc=$?
    ok=$(grep -c "^vcoll_check: rank [0-9]* size 5: [0-9]* checks, 0 failures" "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq 5 ]; then
        echo "  ok: 5 ranks, mixed alltoallv algorithms"
    else
        tail -20 "$log"
        echo "  FAIL: 5 ranks, mixed alltoallv algorithms: exit $rc, $ok of 5 ranks reported 0 failures"
        fails=$((fails + 1))
    fi
}
run_job_mixed

# The node-local algorithms (lib/coll/node_slots_v.c, node_direct_v.c),
# every v-collective forced onto them at once: shm_slots (alltoallv,
# gatherv, scatterv: payloads that do not fit the slot are read with one
# copy) and direct (every payload read with one copy).  Full count sets
# (the large one spills) at 2 and 4 ranks, --quick at 1 (they cannot run:
# the fallback) and at 3 under the progress thread; 256-byte slots at 4
# ranks (inline, slot-buffer and spilled payloads mixed within one call);
# PLX_SHM_CMA=0 (what needs single-copy reads must step aside).  The info
# log must show exactly the expected collectives on the forced algorithm;
# where all of them run, ranks that disagree on a v-call are checked too
# (vcoll_check --coll vmismatch: PLX_ERR_MISMATCH, no hang, comm usable).
NL_SLOTS="allgatherv:0-inf@shm_slots;alltoallv:0-inf@shm_slots;gatherv:0-inf@shm_slots;scatterv:0-inf@shm_slots;reduce_scatterv:0-inf@shm_slots"
NL_DIRECT="allgatherv:0-inf@direct;alltoallv:0-inf@direct;gatherv:0-inf@direct;scatterv:0-inf@direct"
NL_ALL="allgatherv alltoallv gatherv scatterv reduce_scatterv"
# run_nl ALGO N "COLLS THAT MUST RUN ON IT" ARGS...  (the others must not)
run_nl() {
    local algo=$1 n=$2 want=$3
    shift 3
    local tune=$NL_SLOTS
    [ "$algo" = direct ] && tune=$NL_DIRECT
    local log=$tmp/nl.log colls=${NL_ALL// /,}
    # where every forced algorithm runs: also ranks that disagree (vmismatch)
    [ -n "$want" ] && [ "$want" = "$all" ] && colls=$colls,vmismatch
    echo "+ ${PLX_SHM_COLL_BYTES:+PLX_SHM_COLL_BYTES=$PLX_SHM_COLL_BYTES }${PLX_SHM_CMA:+PLX_SHM_CMA=$PLX_SHM_CMA }${PLX_PROGRESS:+PLX_PROGRESS=$PLX_PROGRESS }PLX_TUNE=(v-forms: $algo) $RUN -n $n --timeout $limit $PROG $* --coll $colls"
    PLX_TUNE=$tune PLX_LOG=info "$RUN" -n "$n" --timeout $limit "$PROG" "$@" --coll "$colls" >"$log" 2>&1
    local rc=$? ok bad=""
    ok=$(grep -c "^vcoll_check: rank [0-9]* size $n: [0-9]* checks, 0 failures" "$log")
    for c in $NL_ALL; do
        local ran=0 exp=0
        grep -q "info: $c of [0-9]* bytes on $n ranks: algorithm $algo over" "$log" && ran=1
        case " $want " in *" $c "*) exp=1 ;; esac
        [ "$ran" = "$exp" ] || bad="$bad $c(ran $ran, expected $exp)"
    done
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ] && [ -z "$bad" ]; then
        echo "  ok: $n ranks, $algo"
    else
        grep -iE "error|fail" "$log" | head -20
        echo "  FAIL: $n ranks, $algo: exit $rc, $ok of $n ranks reported 0 failures${bad:+; on $algo:$bad}"
        fails=$((fails + 1))
    fi
}
for algo in shm_slots direct; do
    all=$NL_ALL
    [ "$algo" = direct ] && all="allgatherv alltoallv gatherv scatterv"
    run_nl "$algo" 1 "" --quick
    run_nl "$algo" 2 "$all"
    run_nl "$algo" 4 "$all"
    PLX_PROGRESS=thread run_nl "$algo" 3 "$all" --quick
done
PLX_SHM_CMA=0 run_nl shm_slots 3 "allgatherv reduce_scatterv" --quick
PLX_SHM_CMA=0 run_nl direct 3 "" --quick
all=$NL_ALL
PLX_SHM_COLL_BYTES=256 run_nl shm_slots 4 "$NL_ALL" --quick

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_vcoll.sh: PASS (${total} s)"
    exit 0
fi
echo "run_vcoll.sh: FAIL: $fails job(s) failed (${total} s)"
exit 1
