#!/bin/bash
# tests/mr/run_coll.sh -- run the collective and point-to-point checks at
# several job sizes through plexusrun:
#   coll_check (every collective x datatype x count x op x root x in place,
#   plus the sub-communicator pass) at 1, 2, 3, 4, 5 ranks, full sizes
#   (counts up to 1<<20, every datatype; measured ~100-130 s for the whole
#   script on 2 busy cores, ~95 s of CPU);
#   every algorithm listed by plexus_info --algorithms, forced for all sizes
#   with PLX_TUNE, through coll_check --quick --coll <its collective>,comm
#   at 3, 4 and 5 ranks;
#   p2p_check (ring up to 64 MiB, tags, truncation, ...) at 1, 2, 3, 4 ranks.
# Each run must exit 0 and every rank must print its final line with
# "0 failures".  Prints each command, its time, and PASS/FAIL; exits 0/1.
#
# Environment: top_builddir, top_srcdir (set by make check; default: this
# script's ../..), PLX_MR_QUICK=1 (coll_check --quick everywhere and p2p up
# to 1 MiB: a fast smoke run), PLX_MR_N5_BIG_DTYPES=int8,float16,float64
# (only these datatypes at count 1<<20 on 5 ranks, if a slow machine needs
# it; every datatype stays covered at 1<<20 on 2, 3 and 4 ranks),
# PLX_MR_COLL_ARGS (extra coll_check arguments).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr
QUICK=${PLX_MR_QUICK:-0}
N5_BIG=${PLX_MR_N5_BIG_DTYPES:-}
EXTRA=${PLX_MR_COLL_ARGS:-}

for f in "$RUN" "$MR/coll_check" "$MR/p2p_check"; do
    if [ ! -x "$f" ]; then
        echo "run_coll.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_coll.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fails=0
t_start=$(date +%s.%N)
# A job's limit: 300 s, four times that in a sanitizer build (make check
# passes the configured $CC, which carries -fsanitize there): ASan + UBSan
# run coll_check 3-4x slower, and under make check-sanitize at load 30 the
# full 4-rank job took 268 s and the 5-rank one passed 300 s.
limit=300
case " ${CC:-} " in *" -fsanitize="*) limit=1200 ;; esac

# run_job NAME N ARGS... : plexusrun -n N ... ; checks exit status and that N
# final lines with "0 failures" were printed.
run_job() {
    local name=$1 n=$2
    shift 2
    local log=$tmp/$name.$n.log
    echo "+ ${PLX_TUNE:+PLX_TUNE=$PLX_TUNE }$RUN -n $n --timeout $limit $*"
    local t0 t1 rc
    t0=$(date +%s.%N)
    "$RUN" -n "$n" --timeout "$limit" "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    cat "$log"
    local finals ok
    finals=$(grep -c "^$name: rank [0-9]*.*: [0-9]* checks, [0-9]* failures" "$log")
    ok=$(grep -c "^$name: rank [0-9]*.*: [0-9]* checks, 0 failures" "$log")
    local dt
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ] && [ "$finals" -eq "$n" ] && [ "$ok" -eq "$n" ]; then
        echo "  ok: $name at $n ranks (${dt} s)"
    else
        echo "  FAIL: $name at $n ranks: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
        fails=$((fails + 1))
    fi
}

for n in 1 2 3 4 5; do
    args=()
    if [ "$QUICK" = 1 ]; then
        args+=(--quick)
    elif [ "$n" -eq 5 ] && [ -n "$N5_BIG" ]; then
        args+=(--big-dtypes "$N5_BIG")
    fi
    # shellcheck disable=SC2206
    [ -n "$EXTRA" ] && args+=($EXTRA)
    run_job coll_check "$n" "$MR/coll_check" ${args[@]+"${args[@]}"}
done

# Every algorithm, forced through PLX_TUNE for all sizes, at the quick counts
# (the default table uses each one only in its size range, and allreduce
# rabenseifner not at all).  The list comes from plexus_info --algorithms.
INFO=$top_builddir/tools/plexus_info
if [ -x "$INFO" ]; then
    algos=$("$INFO" --algorithms | awk '$1 !~ /^#/ && NF >= 2 { print $1 ":" $2 }')
    if [ -z "$algos" ]; then
        echo "  FAIL: plexus_info --algorithms listed no algorithm"
        fails=$((fails + 1))
    fi
    for ca in $algos; do
        coll=${ca%%:*}
        algo=${ca#*:}
        # collectives coll_check does not know are swept by their own
        # script (run_vcoll.sh: the v-forms and the scans)
        case $coll in
        allgatherv|alltoallv|gatherv|scatterv|reduce_scatterv|scan|exscan) continue ;;
        esac
        for n in 3 4 5; do
            PLX_TUNE="$coll:0-inf@$algo" PLX_LOG=error run_job coll_check "$n" "$MR/coll_check" --quick --coll "$coll,comm"
        done
    done
else
    echo "  (no $INFO: algorithm sweep skipped)"
fi

for n in 1 2 3 4; do
    if [ "$QUICK" = 1 ]; then
        run_job p2p_check "$n" "$MR/p2p_check" --max-bytes 1048576
    else
        run_job p2p_check "$n" "$MR/p2p_check"
    fi
done

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_coll.sh: PASS (${total} s)"
    exit 0
fi
echo "run_coll.sh: FAIL: $fails job(s) failed (${total} s)"
exit 1
