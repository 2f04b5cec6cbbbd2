#!/bin/bash
# tests/mr/run_direct.sh -- the node-local single-copy collectives
# ("direct", lib/coll/node_direct.c), all eight forced through PLX_TUNE for
# every size:
#   1. coll_check (every collective x datatype x count up to 1<<20 x op x
#      root x in place, sub-communicators) at 1-6 ranks; counts of 1<<20
#      span many pieces, 7 and 1000 are not divisible by the rank count;
#   2. coll_check with PLX_DIRECT_PIECE=4K (many pieces, prime counts) at
#      3 ranks; 2 ranks at odd counts above 2 MiB (claimed pieces), claimed
#      allreduce and reduce pieces at 4-5 ranks (also nonblocking with a progress thread), allreduce with
#      PLX_DIRECT_THP=1 (huge pages from the first call; also plx_perf's checked allgather and
#      alltoall, whose buffers' end 2 MiB pages reach into untouched memory, at 4-32 MiB and at
#      1-4 MiB, where an input collapsed whole is read with CMA, not staged; so also allgather at
#      3-4 ranks, alltoall at 3-5 and reduce_scatter at 2, in place and out of place);
#      PLX_DIRECT_PIECE=1K must fail plx_init;
#      coll_check --nb --quick at 3 ranks and nb_check at 3 ranks (many
#      collectives in flight at once, completed in any order);
#      direct_mismatch_check at 2 and 3 ranks (ranks disagreeing on count,
#      root or op all get PLX_ERR_MISMATCH, and the communicator still
#      works); timeout_check at 3 ranks (a rank that never arrives is
#      named, the others get PLX_ERR_TIMEOUT);
#   2b. staged input (PLX_SHM_DIRECT_STAGE, "Staged input" in
#      lib/coll/node_direct.c): allgather and alltoall with a 64 MiB area
#      (every size staged, also above 2 MiB per block, where a 2-rank
#      shared read claims staged pieces) at 1-5 ranks, odd counts, in place
#      and out of place; and with no area (every read a CMA read) at 2 ranks;
#      reduce_scatter likewise (staged at 2 ranks only), nonblocking and with
#      a progress thread;
#   2c. the 3-5-rank shm_slots rows of reduce and direct rows of scatter
#      (defaults, and shm_slots forced at 1-5 ranks; odd counts, in place);
#   2d. scatter's default direct rows at 3-5 ranks from 33 KiB blocks (odd
#      counts, with CMA and with PLX_SHM_CMA=0; killed root and non-root in 4);
#   2e. the 4-rank shm_slots row of alltoall for 33-64 KiB blocks (defaults,
#      with CMA and PLX_SHM_CMA=0; a killed member in 4);
#   2f. bcast's default rows at 3 ranks: shm_slots to 256 KiB, direct from it (odd counts, with
#      CMA and PLX_SHM_CMA=0; killed root and non-root);
#   2g. shm_slots' bcast of 64-256 KiB (streaming window writes) forced at
#      2-5 ranks, odd counts, with CMA and PLX_SHM_CMA=0;
#   2h. the 6+-rank default rows at 6 ranks (alltoall's 7-rank row at 7):
#      each row's algorithm in the log at one size inside it (odd counts), and
#      with PLX_SHM_CMA=0;
#   2i. shm_slots' reduce of 64-256 KiB forced at 3-5 ranks, each
#      PLX_SLOTS_STREAM (the root's own input in place, plain or streaming
#      window writes), gather and gatherv the same way, and PLX_SHM_CMA=0;
#   2j. direct allgather's staging copy at 3-4 ranks (pieces of 64-256 KiB; 5: plain),
#      each PLX_DIRECT_STREAM (plain, timed or streaming stores), odd
#      counts, in place, and PLX_SHM_CMA=0;
#   2k. 2-rank allreduce from 32 MiB (operands through the bounce buffer,
#      1 MiB pieces): odd counts, in place and out of place, float32 and
#      float64, on huge pages, nonblocking with a progress thread, and
#      PLX_SHM_CMA=0 (the fallback); a killed peer in 4;
#   2l. allgather's default direct row for 32-64 KiB blocks at 3 and 5 ranks
#      (ring before): the log names direct at 32768 and 40009 bytes, odd counts,
#      every datatype, in place and out of place; then PLX_SHM_CMA=0 (the
#      next rule, never direct);
#   3. with PLX_SHM_CMA=0 (single-copy reads refused): coll_check at 2 and
#      3 ranks must pass and the log must show another algorithm ran (the
#      next rule, whose large messages go through the shm staging area);
#   4. a rank SIGKILLed in the middle of a loop of 4 MiB collectives
#      (direct_kill_check): every other rank must get PLX_ERR_PEER_FAILED,
#      for several collectives, victims and rank counts, with CMA and with
#      PLX_SHM_CMA=0, staged allgather and alltoall (a reader waiting on a
#      dead owner's staging counter; also the staged 2-rank reduce_scatter),
#      allgather and alltoall on huge pages at 2 and 4 ranks and 2-rank
#      reduce_scatter on them (read with CMA, not staged),
#      and in the node-local phases of a hierarchical
#      allreduce (2 simulated nodes, when built with UCX; victims 1 and 2,
#      a node-mate and the other node's leader, and nothing of the job
#      left in /dev/shm).
# Prints each command, its time and ok/FAIL; exits 0/1.  ~60-90 s on 2 busy
# cores.
#
# Environment: top_builddir (set by make check; default: this script's ../..).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr

for f in "$RUN" "$MR/coll_check" "$MR/nb_check" "$MR/direct_kill_check" "$MR/direct_mismatch_check" \
         "$MR/timeout_check"; do
    if [ ! -x "$f" ]; then
        echo "run_direct.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_direct.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)

ALL_DIRECT="allreduce:0-inf@direct;reduce_scatter:0-inf@direct;reduce:0-inf@direct;bcast:0-inf@direct"
ALL_DIRECT="$ALL_DIRECT;allgather:0-inf@direct;alltoall:0-inf@direct;gather:0-inf@direct;scatter:0-inf@direct"

fail() {
    echo "  FAIL: $*"
    fails=$((fails + 1))
}

# run_checks NAME N ARGS... : plexusrun -n N ARGS; the job must exit 0 and
# N lines "NAME: rank R...: N checks, 0 failures" must appear.  The log is
# left in $tmp/last.log.
run_checks() {
    local name=$1 n=$2
    shift 2
    local log=$tmp/last.log t0 t1 rc
    echo "+ PLX_TUNE=... ${PLX_SHM_CMA:+PLX_SHM_CMA=$PLX_SHM_CMA }$RUN -n $n --timeout 300 $*"
    t0=$(date +%s.%N)
    "$RUN" -n "$n" --timeout 300 "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local ok
    ok=$(grep -c "^$name.*rank [0-9]*.*: [0-9]* checks, 0 failures" "$log")
    local dt
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        echo "  ok: $name at $n ranks (${dt} s)"
    else
        cat "$log"
        fail "$name at $n ranks: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
    fi
}

# ---- 1, 2: correctness with single-copy reads --------------------------------
export PLX_TUNE=$ALL_DIRECT
for n in 1 2 3 4 5; do
    dt=float32,float16
    [ "$n" -ge 3 ] && dt=float32
    [ "$n" -eq 5 ] && dt=int8
    PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --big-dtypes "$dt"
    grep -q "algorithm direct" "$tmp/last.log" || fail "coll_check at $n ranks: the log shows no direct algorithm"
done
# 6 ranks (3 per core on 2 cores): int8 at the big counts keeps it short
PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --big-dtypes int8
grep -q "algorithm direct" "$tmp/last.log" || fail "coll_check at 6 ranks: the log shows no direct algorithm"
# many pieces per collective, counts that are primes
PLX_DIRECT_PIECE=4K run_checks coll_check 3 "$MR/coll_check" --counts 0,1,7,1000,65537,100003 \
    --coll allreduce,reduce_scatter,reduce,bcast,allgather,alltoall,gather,scatter
# 2 ranks from 2 MiB: reductions share the work by claimed pieces (shrinking
# claims, page-sized units, odd counts leave a ragged last claim); with 4K
# pieces a claim spans many pieces.  allgather and alltoall above 2 MiB per
# block share the peer's read in 2 MiB pieces (the faster rank writes the
# rest): odd counts leave a ragged last piece there too
run_checks coll_check 2 "$MR/coll_check" --counts 524291,2097169 --coll allreduce,reduce,allgather,alltoall
PLX_DIRECT_PIECE=4K run_checks coll_check 2 "$MR/coll_check" --counts 786433 --coll allreduce,reduce
# 3+ ranks: allreduce and reduce claim their pieces at every size (section 1 covers 3-5
# ranks); here many claims of many 4K pieces at 4 and 5 ranks (claims
# shrink to 64 KiB, odd counts leave a ragged last one), and nonblocking
# with a progress thread at 4 ranks on 2 cores, where the running ranks
# take the claims of a rank whose thread waits for a core
PLX_DIRECT_PIECE=4K run_checks coll_check 4 "$MR/coll_check" --counts 262147 --coll allreduce,reduce
PLX_DIRECT_PIECE=4K run_checks coll_check 5 "$MR/coll_check" --counts 100003 --coll allreduce,reduce
PLX_PROGRESS=thread run_checks coll_check 4 "$MR/coll_check" --nb --counts 7,65537,524291 --coll allreduce,reduce
# buffers put on huge pages on their first call (PLX_DIRECT_THP=1, lib/coll/direct_thp.c)
PLX_DIRECT_THP=1 run_checks coll_check 2 "$MR/coll_check" --counts 262147,2097169 --coll allreduce,reduce,reduce_scatter,bcast,allgather,alltoall
PLX_DIRECT_THP=1 run_checks coll_check 3 "$MR/coll_check" --counts 699053 --coll allreduce,reduce_scatter,bcast,allgather,alltoall
# ... also the 2 MiB pages at a buffer's ends that reach into mapped, untouched
# memory (plx_perf's malloc'd buffers, larger than the sizes run): checked
# results of allgather and alltoall on them at odd counts, out of place and in place
# (NP=N in the environment: N ranks, default 2)
perf_checks() {
    local log=$tmp/last.log np=${NP:-2}
    echo "+ PLX_TUNE=... PLX_DIRECT_THP=1 $RUN -n $np --timeout 300 plx_perf $*"
    if PLX_DIRECT_THP=1 "$RUN" -n "$np" --timeout 300 "$top_builddir/perf/plx_perf" "$@" >"$log" 2>&1 &&
       grep -q 'all results correct' "$log"; then
        echo "  ok: plx_perf $* at $np ranks"
    else
        cat "$log"
        fail "plx_perf $* (PLX_DIRECT_THP=1) at $np ranks: wrong results or exit status"
    fi
}
for c in allgather alltoall; do
    perf_checks --coll "$c" -b 4194312 -e 33554432 -f 4 -c 3 -n 3 -w 1
    perf_checks --coll "$c" -b 4194312 -e 33554432 -f 4 -c 3 -n 3 -w 1 --in-place
done
# ... and at 1-4 MiB, where an input collapsed whole is read with CMA
# instead of staged (2-rank allgather and alltoall, "Staged input"), in the
# direct forced (PLX_TUNE, exported above)
for c in allgather alltoall; do
    perf_checks --coll "$c" -b 1048584 -e 4194304 -f 2 -c 3 -n 3 -w 1
    perf_checks --coll "$c" -b 1048584 -e 4194304 -f 2 -c 3 -n 3 -w 1 --in-place
done
# ... likewise allgather at 3-4 ranks (blocks of 512 KiB and more: 2-4 MiB),
# alltoall at 3-5 ranks (1 MiB: its peers' blocks fit the staging area) and
# 2-rank reduce_scatter (1-4 MiB: 512 KiB-2 MiB blocks), whose inputs on
# huge pages are read with CMA too (huge_read in lib/coll/node_direct.c);
# buffers sized for 8 MiB, so that the inputs collapse whole
for np in 3 4 5; do
    for c in allgather alltoall; do
        [ "$c" = allgather ] && [ "$np" = 5 ] && continue   # (5 ranks: staged)
        NP=$np perf_checks --coll "$c" -b 1048584 -e 8388608 -f 2 -c 3 -n 3 -w 1
        NP=$np perf_checks --coll "$c" -b 1048584 -e 8388608 -f 2 -c 3 -n 3 -w 1 --in-place
    done
done
perf_checks --coll reduce_scatter -b 1048584 -e 4194304 -f 2 -c 3 -n 3 -w 1
perf_checks --coll reduce_scatter -b 1048584 -e 4194304 -f 2 -c 3 -n 3 -w 1 --in-place
# refused VAR VALUE PATTERN: plx_init fails with VAR=VALUE, its message matching PATTERN
refused() {
    if env "$1=$2" "$RUN" -n 1 --timeout 60 "$MR/coll_check" --quick >"$tmp/bad.log" 2>&1 ||
       ! grep -q "$3" "$tmp/bad.log"; then
        cat "$tmp/bad.log"
        fail "$1=$2 did not fail plx_init with a message naming it"
    else
        echo "  ok: $1=$2 rejected by plx_init"
    fi
}
# a bad piece size fails plx_init naming the variable
refused PLX_DIRECT_PIECE 1K "PLX_DIRECT_PIECE='1K' is not a byte count in \[4K, 64M\]"
run_checks coll_check 3 "$MR/coll_check" --nb --quick --coll allreduce,reduce_scatter,reduce,bcast,allgather,alltoall,gather,scatter
run_checks nb_check 3 "$MR/nb_check"
for n in 2 3; do
    PLX_LOG=error run_checks direct_mismatch_check "$n" "$MR/direct_mismatch_check"
    grep -q "mismatch: rank 0 called allreduce of 800000 bytes" "$tmp/last.log" ||
        fail "direct_mismatch_check at $n ranks: no message naming both sides of the count mismatch"
done

# a rank that never arrives: the others time out naming it (timeout_check:
# ranks 0 and 2 call an allreduce that rank 1 skips)
echo "+ PLX_TUNE=allreduce:0-inf@direct PLX_TIMEOUT=2 $RUN -n 3 --timeout 60 $MR/timeout_check"
PLX_TUNE=allreduce:0-inf@direct PLX_TIMEOUT=2 PLX_LOG=warn "$RUN" -n 3 --timeout 60 "$MR/timeout_check" \
    >"$tmp/timeout.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "timed out .*(direct), waiting for rank(s) to enter the collective: 1 (world 1)" "$tmp/timeout.log"; then
    echo "  ok: timeout_check: PLX_ERR_TIMEOUT on ranks 0 and 2, rank 1 named"
else
    cat "$tmp/timeout.log"
    fail "timeout_check with direct: exit $rc or no timeout line naming rank 1"
fi

# ---- 2b: staged input ------------------------------------------------------------
for n in 1 2 3 4 5; do
    PLX_SHM_DIRECT_STAGE=64M run_checks coll_check "$n" "$MR/coll_check" --coll allgather,alltoall \
        --counts 0,1,7,1000,65537,100003,262147
done
PLX_SHM_DIRECT_STAGE=64M run_checks coll_check 2 "$MR/coll_check" --counts 524291,2097169 --coll allgather,alltoall
PLX_SHM_DIRECT_STAGE=64M PLX_DIRECT_PIECE=4K run_checks coll_check 3 "$MR/coll_check" --counts 7,100003 \
    --coll allgather,alltoall
PLX_SHM_DIRECT_STAGE=0 run_checks coll_check 2 "$MR/coll_check" --counts 0,1,7,1000,100003 --coll allgather,alltoall
run_checks coll_check 3 "$MR/coll_check" --nb --quick --coll allgather,alltoall,allreduce
# staged reduce_scatter (2 ranks: each rank stages the peer's block of its
# input, the peer reduces from the area; 1 and 3-5 ranks read with CMA),
# every size (PLX_DIRECT_STAGE_RS=0): every op and datatype up to count
# 1000, odd counts, in place, many pieces, nonblocking, and with a progress
# thread (staged whole before the header up to 256K, else CMA)
for n in 1 2 3 4 5; do
    PLX_DIRECT_STAGE_RS=0 PLX_SHM_DIRECT_STAGE=64M run_checks coll_check "$n" "$MR/coll_check" --coll reduce_scatter \
        --counts 0,1,7,1000,65537,100003,262147
done
PLX_SHM_DIRECT_STAGE=64M run_checks coll_check 2 "$MR/coll_check" --counts 131073,524291,2097169 --coll reduce_scatter
PLX_DIRECT_STAGE_RS=0 PLX_SHM_DIRECT_STAGE=64M PLX_DIRECT_PIECE=4K run_checks coll_check 2 "$MR/coll_check" \
    --counts 7,100003 --coll reduce_scatter
PLX_DIRECT_STAGE_RS=0 PLX_SHM_DIRECT_STAGE=64M run_checks coll_check 2 "$MR/coll_check" --nb --quick --coll reduce_scatter
PLX_PROGRESS=thread PLX_DIRECT_STAGE_RS=0 PLX_SHM_DIRECT_STAGE=64M run_checks coll_check 2 "$MR/coll_check" --nb \
    --counts 1,7,1000,65537 --coll reduce_scatter
# a bad area size fails plx_init naming the variable
refused PLX_SHM_DIRECT_STAGE 1G "PLX_SHM_DIRECT_STAGE"
refused PLX_DIRECT_STAGE_RS 1G "PLX_DIRECT_STAGE_RS='1G' is not a byte count in \\[0, 256M\\]"

# ---- 2c: the shm_slots rows of reduce (up to 256 KiB) at 3-5 ranks and
# the direct rows of scatter from 33 KiB blocks at 3-5 ranks
# (lib/coll/select.c; the 256 KiB windows of 3-5 ranks outnumbering the
# cores): the defaults, counts whose bytes land in the rows and beside them
# (per datatype), in place and out of place, every root (the log must show
# shm_slots for reduce and direct for scatter: at 3 and 5 ranks only these
# rows have them at these counts); then shm_slots forced at 1-5 ranks (the
# next rule where it does not fit)
# (PLX_SHM_COLL_BYTES=256K: the windows these rows need, which the defaults
# give only where the ranks outnumber the cores, so that the check holds on
# a machine with more cores too)
for n in 3 4 5; do
    PLX_SHM_COLL_BYTES=256K PLX_TUNE= PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll reduce,scatter \
        --counts 7,8447,12007,16381,32771,50021,65535
    # (an algorithm's first use is logged, at whichever count came first)
    grep -q "reduce of [0-9]* bytes on $n ranks: algorithm shm_slots" "$tmp/last.log" ||
        fail "coll_check at $n ranks: no reduce ran shm_slots"
    grep -q "scatter of [0-9]* bytes on $n ranks: algorithm direct" "$tmp/last.log" ||
        fail "coll_check at $n ranks: no scatter ran direct"
done
for n in 1 2 3 4 5; do
    PLX_TUNE="reduce:0-inf@shm_slots;scatter:0-inf@shm_slots" run_checks coll_check "$n" "$MR/coll_check" \
        --coll reduce,scatter --counts 0,1,7,1000,8447,50021,65521
done

# ---- 2d: scatter's default direct rows at 3-5 ranks, larger odd counts
# (16411 int8 elements are 16 KiB, 100003 float64 ones 781 KiB), every
# root, in place and out of place; then PLX_SHM_CMA=0: the next rule
# (linear), never direct
for n in 3 4 5; do
    PLX_TUNE= PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll scatter --counts 16411,25601,100003
    grep -q "scatter of [0-9]* bytes on $n ranks: algorithm direct" "$tmp/last.log" ||
        fail "coll_check at $n ranks: no scatter ran direct with the default rules"
    PLX_SHM_CMA=0 PLX_TUNE= PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll scatter \
        --counts 8447,25601,100003
    if grep -q "algorithm direct" "$tmp/last.log"; then
        fail "PLX_SHM_CMA=0 at $n ranks: scatter ran direct although single-copy reads are refused"
    fi
done

# ---- 2e: alltoall's default shm_slots row for 33-64 KiB blocks at 4 ranks
# (lib/coll/select.c): 40000- and 50021-byte int8 blocks land in it (the
# log's first shm_slots alltoall must be one of them; wider types go on to
# direct), every datatype, in place and out of place; then with
# PLX_SHM_CMA=0 (shm_slots needs no single-copy read, so the row holds);
# the 256 KiB windows set explicitly, as in 2c
PLX_SHM_COLL_BYTES=256K PLX_TUNE= PLX_LOG=info run_checks coll_check 4 "$MR/coll_check" --coll alltoall --counts 40000,50021
grep -Eq "alltoall of (40000|50021) bytes on 4 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "coll_check at 4 ranks: alltoall of 33-64 KiB blocks did not run shm_slots with the default rules"
PLX_SHM_COLL_BYTES=256K PLX_SHM_CMA=0 PLX_TUNE= PLX_LOG=info run_checks coll_check 4 "$MR/coll_check" --coll alltoall --counts 40000,50021
grep -Eq "alltoall of (40000|50021) bytes on 4 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "PLX_SHM_CMA=0 at 4 ranks: alltoall of 33-64 KiB blocks did not run shm_slots"

# ---- 2f: bcast at 3 ranks with the default rules (lib/coll/select.c):
# shm_slots to 256 KiB (its root streams 64-256 KiB into the window, 2g),
# then direct from 256 KiB itself, every datatype, every root, in place and
# out of place.  The log names each algorithm at its first use only; with
# one count per run the first bcast is int8's, whose bytes are the count:
# 131075 bytes must run shm_slots (the row from 128 KiB of session 16 ran
# direct there), exactly 262144 direct (the 256 KiB windows of 3 ranks on
# 2 cores would hold it: shm_slots without the row).  Then odd counts, and
# PLX_SHM_CMA=0: the next rule, never direct.
PLX_SHM_COLL_BYTES=256K PLX_TUNE= PLX_LOG=info run_checks coll_check 3 "$MR/coll_check" --coll bcast --counts 131075
grep -q "bcast of 131075 bytes on 3 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "coll_check at 3 ranks: bcast of 131075 bytes (128 KiB + 3) did not run shm_slots with the default rules"
PLX_SHM_COLL_BYTES=256K PLX_TUNE= PLX_LOG=info run_checks coll_check 3 "$MR/coll_check" --coll bcast --counts 262144
grep -q "bcast of 262144 bytes on 3 ranks: algorithm direct" "$tmp/last.log" ||
    fail "coll_check at 3 ranks: bcast of 262144 bytes (256 KiB) did not run direct with the default rules"
PLX_TUNE= run_checks coll_check 3 "$MR/coll_check" --coll bcast --counts 7,65537,100003
PLX_SHM_CMA=0 PLX_TUNE= PLX_LOG=info run_checks coll_check 3 "$MR/coll_check" --coll bcast --counts 65537,262144
if grep -q "algorithm direct" "$tmp/last.log"; then
    fail "PLX_SHM_CMA=0 at 3 ranks: bcast ran direct although single-copy reads are refused"
fi

# ---- 2g: shm_slots' bcast of 64-256 KiB, whose root fills its window with
# streaming stores (lib/coll/node_slots.c, lib/core/copy_stream.c): forced
# at 2-5 ranks with 256 KiB windows, counts just over 64 KiB, odd (a tail
# under one 64-byte line), exactly 256 KiB in int8 and just over it (a plain
# copy again, or the next rule where it does not fit), every datatype and
# root, in place and out of place; the log must show shm_slots at 65537
# bytes; then with PLX_SHM_CMA=0 at 3 ranks (shm_slots needs no single-copy read)
for n in 2 3 4 5; do
    PLX_SHM_COLL_BYTES=256K PLX_TUNE="bcast:0-inf@shm_slots" PLX_LOG=info run_checks coll_check "$n" \
        "$MR/coll_check" --coll bcast --counts 65537,100003,262144,262147
    grep -q "bcast of 65537 bytes on $n ranks: algorithm shm_slots" "$tmp/last.log" ||
        fail "coll_check at $n ranks: bcast of 65537 bytes did not run shm_slots when forced"
done
PLX_SHM_COLL_BYTES=256K PLX_SHM_CMA=0 PLX_TUNE="bcast:0-inf@shm_slots" PLX_LOG=info run_checks coll_check 3 \
    "$MR/coll_check" --coll bcast --counts 65537,100003,262144
grep -q "bcast of 65537 bytes on 3 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "PLX_SHM_CMA=0 at 3 ranks: bcast of 65537 bytes did not run shm_slots when forced"

# ---- 2h: the 6+-rank rows of the defaults (lib/coll/select.c), at 6 ranks:
# one count per run (int8 first, so its bytes are the count: a block for
# allgather, reduce_scatter, alltoall, gather and scatter), every datatype,
# root and op; the log must name the row's algorithm at that size.  Then
# PLX_SHM_CMA=0: the rows through shm_slots and linear still run, direct's
# pass on to the next rule.
PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --coll bcast,allreduce --counts 32768
for c in bcast allreduce; do
    grep -q "$c of 32768 bytes on 6 ranks: algorithm shm_slots" "$tmp/last.log" ||
        fail "coll_check at 6 ranks: $c of 32768 bytes did not run shm_slots with the default rules"
done
PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --coll bcast,reduce --counts 200003
for c in bcast reduce; do
    grep -q "$c of 200003 bytes on 6 ranks: algorithm direct" "$tmp/last.log" ||
        fail "coll_check at 6 ranks: $c of 200003 bytes did not run direct with the default rules"
done
PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --coll reduce,gather --counts 20011
grep -q "reduce of 20011 bytes on 6 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "coll_check at 6 ranks: reduce of 20011 bytes did not run shm_slots with the default rules"
grep -q "gather of 20011 bytes on 6 ranks: algorithm direct" "$tmp/last.log" ||
    fail "coll_check at 6 ranks: gather of 20011-byte blocks did not run direct with the default rules"
PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --coll allgather,reduce_scatter,alltoall \
    --counts 40009
for c in allgather reduce_scatter alltoall; do
    grep -q "$c of 40009 bytes on 6 ranks: algorithm direct" "$tmp/last.log" ||
        fail "coll_check at 6 ranks: $c of 40009-byte blocks did not run direct with the default rules"
done
PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" --coll reduce_scatter,alltoall,scatter \
    --counts 5003
grep -q "reduce_scatter of 5003 bytes on 6 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "coll_check at 6 ranks: reduce_scatter of 5003-byte blocks did not run shm_slots with the default rules"
for c in alltoall scatter; do
    grep -q "$c of 5003 bytes on 6 ranks: algorithm linear" "$tmp/last.log" ||
        fail "coll_check at 6 ranks: $c of 5003-byte blocks did not run linear with the default rules"
done
# 7 ranks: alltoall runs linear from 4 KiB blocks
PLX_TUNE= PLX_LOG=info run_checks coll_check 7 "$MR/coll_check" --coll alltoall --counts 40009
grep -q "alltoall of 40009 bytes on 7 ranks: algorithm linear" "$tmp/last.log" ||
    fail "coll_check at 7 ranks: alltoall of 40009-byte blocks did not run linear with the default rules"
PLX_SHM_CMA=0 PLX_TUNE= PLX_LOG=info run_checks coll_check 6 "$MR/coll_check" \
    --coll allreduce,reduce_scatter,reduce,bcast,allgather,alltoall,gather,scatter --counts 5003,32768,40009
if grep -q "algorithm direct" "$tmp/last.log"; then
    fail "PLX_SHM_CMA=0 at 6 ranks: direct ran although single-copy reads are refused"
fi
grep -q "reduce_scatter of 5003 bytes on 6 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "PLX_SHM_CMA=0 at 6 ranks: reduce_scatter of 5003-byte blocks did not run shm_slots"
# ---- 2i: shm_slots' reduce of 64-256 KiB (lib/coll/node_slots.c): a root
# over 64 KiB reads its own input in place of its window (out of place), a
# non-root writes its window with plain copies or streaming stores
# (PLX_SLOTS_STREAM: each of auto, 0 and 1 forced) at 3-5 ranks with 256 KiB
# windows, counts just over 64 KiB, odd (a tail under one line), exactly
# 256 KiB in int8 and just over it, every datatype and root, in place and
# out of place; the log must show shm_slots at 65537 bytes; then
# PLX_SHM_CMA=0 at 4 ranks (shm_slots needs no single-copy read)
for n in 3 4 5; do
    for st in auto 0 1; do
        PLX_SLOTS_STREAM=$st PLX_SHM_COLL_BYTES=256K PLX_TUNE="reduce:0-inf@shm_slots" PLX_LOG=info \
            run_checks coll_check "$n" "$MR/coll_check" --coll reduce --counts 65537,100003,262144,262147
        grep -q "reduce of 65537 bytes on $n ranks: algorithm shm_slots" "$tmp/last.log" ||
            fail "coll_check at $n ranks, PLX_SLOTS_STREAM=$st: reduce of 65537 bytes did not run shm_slots when forced"
    done
done
# gather and gatherv: the non-roots' blocks of 64-256 KiB go through the same
# rule (plx_slots_write_for_root, from 64 KiB itself): gather at 65536 (int8:
# the first block the rule takes), odd, 256 KiB and just over it (spilled:
# read by CMA); gatherv with vcoll_check's counts
for n in 3 4 5; do
    for st in auto 0 1; do
        PLX_SLOTS_STREAM=$st PLX_SHM_COLL_BYTES=256K PLX_TUNE="gather:0-inf@shm_slots;gatherv:0-inf@shm_slots" \
            PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll gather \
            --counts 65536,100003,262144,262147
        grep -q "gather of 65536 bytes on $n ranks: algorithm shm_slots" "$tmp/last.log" ||
            fail "coll_check at $n ranks, PLX_SLOTS_STREAM=$st: gather of 65536 bytes did not run shm_slots when forced"
        # gatherv: vcoll_check's counts, some blocks of 80-400 KiB
        PLX_SLOTS_STREAM=$st PLX_SHM_COLL_BYTES=256K PLX_TUNE="gatherv:0-inf@shm_slots" PLX_LOG=info \
            run_checks vcoll_check "$n" "$MR/vcoll_check" --coll gatherv
        grep -q "gatherv.*algorithm shm_slots" "$tmp/last.log" ||
            fail "vcoll_check at $n ranks, PLX_SLOTS_STREAM=$st: gatherv did not run shm_slots when forced"
    done
done
PLX_SLOTS_STREAM=1 PLX_SHM_COLL_BYTES=256K PLX_SHM_CMA=0 PLX_TUNE="reduce:0-inf@shm_slots" PLX_LOG=info \
    run_checks coll_check 4 "$MR/coll_check" --coll reduce --counts 65537,100003,262144
grep -q "reduce of 65537 bytes on 4 ranks: algorithm shm_slots" "$tmp/last.log" ||
    fail "PLX_SHM_CMA=0 at 4 ranks: reduce of 65537 bytes did not run shm_slots when forced"
# ---- 2j: direct allgather's staging copy (lib/coll/node_direct.c,
# stage_piece): at 3-4 ranks a staged piece of 64 KiB or more is copied by
# plx_copy_timed (PLX_DIRECT_STREAM: each of auto, 0 and 1 forced) at 3-5
# ranks (5: the knob set, plain copies); blocks of 64 KiB + 1 (first: the log names the algorithm at its
# first use), 16 KiB + 1 (int8, under the rule; float32 just over 64
# KiB), 64 KiB, odd (a tail under one line), and just over 256
# KiB in int8 (a full piece, then a 3-byte one); every datatype, in place
# and out of place; the log must show direct at 65537 bytes; then
# PLX_SHM_CMA=0 at 4 ranks (direct refused: the next rule runs)
for n in 3 4 5; do
    for st in auto 0 1; do
        PLX_DIRECT_STREAM=$st PLX_LOG=info \
            run_checks coll_check "$n" "$MR/coll_check" --coll allgather --counts 65537,16385,65536,100003,262147
        grep -q "allgather of 65537 bytes on $n ranks: algorithm direct" "$tmp/last.log" ||
            fail "coll_check at $n ranks, PLX_DIRECT_STREAM=$st: allgather of 65537 bytes did not run direct when forced"
    done
done
PLX_DIRECT_STREAM=1 PLX_SHM_CMA=0 run_checks coll_check 4 "$MR/coll_check" --coll allgather \
    --counts 65537,100003

# ---- 2l: allgather's default row 32K-64K/3-5@direct (lib/coll/select.c;
# 3 and 5 ranks ran the ring there): one count per run, int8 first, so its
# bytes are the block: 32768 (the row's first byte) and 40009 (odd) must
# run direct, every datatype (float64: 64 KiB and more, the next row), in
# place and out of place; 50021 besides (a tail under one line); then
# PLX_SHM_CMA=0: the next rule, never direct
for n in 3 5; do
    for c in 32768 40009; do
        PLX_TUNE= PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll allgather --counts $c
        grep -q "allgather of $c bytes on $n ranks: algorithm direct" "$tmp/last.log" ||
            fail "coll_check at $n ranks: allgather of $c-byte blocks did not run direct with the default rules"
    done
    PLX_TUNE= run_checks coll_check "$n" "$MR/coll_check" --coll allgather --counts 7,50021,65535
    PLX_SHM_CMA=0 PLX_TUNE= PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --coll allgather \
        --counts 32768,40009
    if grep -q "algorithm direct" "$tmp/last.log"; then
        fail "PLX_SHM_CMA=0 at $n ranks: allgather ran direct although single-copy reads are refused"
    fi
done

# ---- 2k: 2-rank allreduce of 32 MiB or more (DIRECT_BIG_FROM in
# lib/coll/node_direct.c): each operand read into the bounce buffer and
# reduced into recvbuf (out of place; in place keeps its path), 1 MiB pieces
# (128 KiB with a progress thread); counts just over 32 MiB in float32 and
# 64 MiB in float64 (a ragged last claim), sum / max / avg, in place and out
# of place; the log must show direct; then PLX_SHM_CMA=0 (not direct: the
# next rule's results checked at the same count)
PLX_TUNE=$ALL_DIRECT PLX_DIRECT_THP=1 PLX_LOG=info run_checks coll_check 2 "$MR/coll_check" --coll allreduce \
    --big-dtypes float32,float64 --counts 8388617
grep -q "allreduce of 33554468 bytes on 2 ranks: algorithm direct" "$tmp/last.log" ||
    fail "2-rank allreduce of 33554468 bytes did not run direct when forced"
PLX_TUNE=$ALL_DIRECT PLX_PROGRESS=thread run_checks coll_check 2 "$MR/coll_check" --nb --coll allreduce \
    --big-dtypes float32 --counts 8388617
PLX_TUNE=$ALL_DIRECT PLX_SHM_CMA=0 run_checks coll_check 2 "$MR/coll_check" --coll allreduce \
    --big-dtypes float32 --counts 8388617

# ---- 3: single-copy reads refused ---------------------------------------------
for n in 2 3; do
    PLX_SHM_CMA=0 PLX_LOG=info run_checks coll_check "$n" "$MR/coll_check" --counts 0,1,7,1000,100003 \
        --coll allreduce,bcast,reduce,allgather,reduce_scatter,alltoall,gather,scatter
    if grep -q "algorithm direct" "$tmp/last.log"; then
        fail "PLX_SHM_CMA=0 at $n ranks: direct ran although single-copy reads are refused"
    fi
    grep -q "allreduce of .* algorithm [a-z_]* over shm" "$tmp/last.log" ||
        fail "PLX_SHM_CMA=0 at $n ranks: no fallback algorithm in the log"
done

# ---- 4: a peer killed mid-transfer ---------------------------------------------
# run_kill N CMA COLL VICTIM ROOT [COUNT]
# (STAGE=SIZE in the environment: PLX_SHM_DIRECT_STAGE=SIZE; TUNE=RULES:
# PLX_TUNE=RULES instead of the forced direct rules, TUNE= the defaults;
# HUGE=1: PLX_DIRECT_THP=1 and direct_kill_check --huge, buffers collapsed
# whole on the first call)
run_kill() {
    local n=$1 cma=$2 coll=$3 victim=$4 root=$5 count=${6:-1048576}
    local log=$tmp/kill.log t0 t1 rc
    echo "+ ${TUNE+PLX_TUNE=$TUNE }${STAGE:+PLX_SHM_DIRECT_STAGE=$STAGE }${HUGE:+PLX_DIRECT_THP=1 }PLX_SHM_CMA=$cma PLX_TIMEOUT=60 $RUN -n $n --timeout 120 $MR/direct_kill_check --coll $coll --victim $victim --root $root --count $count${HUGE:+ --huge}"
    t0=$(date +%s.%N)
    env ${TUNE+"PLX_TUNE=$TUNE"} ${STAGE:+PLX_SHM_DIRECT_STAGE=$STAGE} ${HUGE:+PLX_DIRECT_THP=1} PLX_SHM_CMA="$cma" PLX_TIMEOUT=60 PLX_LOG=none \
        "$RUN" -n "$n" --timeout 120 "$MR/direct_kill_check" \
        --coll "$coll" --victim "$victim" --root "$root" --count "$count" ${HUGE:+--huge} >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local dt got
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    got=$(grep -c "returned a peer process failed" "$log")
    if [ "$rc" -eq 0 ] && [ "$got" -eq $((n - 1)) ] && grep -q "died by SIGKILL" "$log"; then
        echo "  ok: $coll at $n ranks, victim $victim: PLX_ERR_PEER_FAILED on all $got survivors (${dt} s)"
    else
        cat "$log"
        fail "$coll at $n ranks (PLX_SHM_CMA=$cma), victim $victim: exit $rc, $got of $((n - 1)) survivors got PLX_ERR_PEER_FAILED"
    fi
}
run_kill 2 auto allreduce 1 0
run_kill 2 auto allreduce 0 0
# 2-rank allreduce over 32 MiB: operands through the bounce buffer (2k)
run_kill 2 auto allreduce 1 0 8388617
run_kill 2 auto reduce_scatter 1 0
run_kill 4 auto allreduce 2 0
# member 0, whose window holds the claim word of a claimed allreduce (3+ ranks)
run_kill 5 auto allreduce 0 0
run_kill 3 auto reduce_scatter 0 0
run_kill 3 auto bcast 0 0
run_kill 3 auto allgather 1 0
run_kill 4 auto alltoall 3 0
# bcast of 256 KiB at 3 ranks with the default rules: the direct row
TUNE= run_kill 3 auto bcast 1 0 65536
TUNE= run_kill 3 auto bcast 0 0 65536
# 6 ranks with the default rules: bcast of 256 KiB and alltoall of 64 KiB
# blocks run direct there (the 6+-rank rows)
TUNE= run_kill 6 auto bcast 3 0 65536
TUNE= run_kill 6 auto alltoall 2 0 16384
run_kill 3 auto reduce 2 1
run_kill 3 0 allreduce 1 0
# 4 ranks on 2 cores: a rank whose waits find its core empty sleeps on the
# member's futex word after 50 us (lib/engine/request.c): the root of a
# reduce and a member of an alltoall killed while the others sleep or read;
# 5 ranks, alltoall of 256 KiB blocks
run_kill 4 auto reduce 0 0
run_kill 4 auto reduce 3 0
run_kill 4 0 alltoall 1 0
run_kill 5 auto alltoall 0 0 65536
# staged input: 4 MiB blocks into a 64 MiB area; readers wait on the dead
# owner's counter (or the owner waits on a dead reader's drain)
STAGE=64M run_kill 2 auto allgather 1 0
STAGE=64M run_kill 3 auto allgather 0 0
STAGE=64M run_kill 2 auto alltoall 0 0
STAGE=64M run_kill 4 auto alltoall 2 0
STAGE=64M run_kill 5 auto allgather 4 0 100003
# 2-rank allgather and alltoall with 512 KiB blocks on huge pages: read with
# CMA instead of staged (lib/coll/node_direct.c, stage_take)
HUGE=1 run_kill 2 auto allgather 1 0 131072
HUGE=1 run_kill 2 auto alltoall 0 0 131072
# ... and so are allgather at 3-4 ranks, alltoall at 3-5 ranks and 2-rank
# reduce_scatter (huge_read): 4 ranks, 512 KiB allgather blocks, 256 KiB
# alltoall blocks (their peers' part fits half the staging area); 2 ranks,
# 512 KiB reduce_scatter blocks (from PLX_DIRECT_STAGE_RS)
HUGE=1 run_kill 4 auto allgather 2 0 131072
HUGE=1 run_kill 4 auto alltoall 1 0 65536
HUGE=1 run_kill 2 auto reduce_scatter 1 0 131072
# staged reduce_scatter at 2 ranks (a reader waits on the dead owner's counter)
STAGE=64M run_kill 2 auto reduce_scatter 0 0
STAGE=64M run_kill 2 auto reduce_scatter 1 0
# the star bcast (200 KB; ranks outnumbering cores): the root, the member it
# writes into, a reader
run_kill 4 auto bcast 0 0 50000
run_kill 4 auto bcast 3 0 50000
run_kill 4 auto bcast 1 0 50000
# alltoall through shm_slots at 3 and 5 ranks (16 / 8 KiB blocks, the
# default rows below direct; TUNE names it: PLX_TUNE of section 1 forces
# direct everywhere)
TUNE="alltoall:0-inf@shm_slots" run_kill 3 auto alltoall 1 0 4096
TUNE="alltoall:0-inf@shm_slots" run_kill 5 auto alltoall 2 0 2048
# the default shm_slots row of 4-rank alltoall (12500 float32 = 50000-byte blocks)
TUNE= run_kill 4 auto alltoall 2 0 12500
# reduce_scatter through shm_slots at 5 ranks (16 KiB blocks)
TUNE="reduce_scatter:0-inf@shm_slots" run_kill 5 auto reduce_scatter 3 0 4096
# bcast through shm_slots at 4 ranks (200 KB: the default row with the
# 256 KiB windows of ranks outnumbering cores): the root, a reader
TUNE="bcast:0-inf@shm_slots" run_kill 4 auto bcast 0 0 50000
TUNE="bcast:0-inf@shm_slots" run_kill 4 auto bcast 2 0 50000
# the rows of reduce up to 256 KiB at 3-5 ranks through shm_slots (the
# defaults, so TUNE=; 200 KB): the root and a non-root
TUNE= run_kill 4 auto reduce 0 0 50000
TUNE= run_kill 4 auto reduce 2 0 50000
TUNE= run_kill 5 auto reduce 3 0 50000
# scatter of 64000- and 80000-byte blocks through shm_slots (forced: from
# 33 KiB blocks at 3-5 ranks the defaults run direct): the root and a non-root
TUNE="scatter:0-inf@shm_slots" run_kill 4 auto scatter 0 0 16000
TUNE="scatter:0-inf@shm_slots" run_kill 4 auto scatter 3 0 16000
TUNE="scatter:0-inf@shm_slots" run_kill 3 auto scatter 1 0 20000
# scatter at 3-5 ranks through direct (the default rows from 33 KiB blocks;
# 64000-100 KiB blocks): the root, a non-root
TUNE= run_kill 5 auto scatter 0 0 25600
TUNE= run_kill 5 auto scatter 3 0 25600
TUNE= run_kill 4 auto scatter 2 0 16000
TUNE= run_kill 3 auto scatter 0 0 20000

# the node-local phases of a hierarchical allreduce (4 ranks as 2
# simulated nodes, defaults: hier, whose node phases run direct from 64 KiB
# in lib/coll/hier.c; 4 MiB here); needs UCX.  Victim 1 dies in its node's
# phases; victim 2 is the other node's leader: rank 0 fails in the
# leaders' exchange and closes its node's bcast phase, where rank 1 waits,
# with PLX_ERR_PEER_FAILED.  The job id (PLX_JOB_ID, printed by each rank)
# names its /dev/shm entries: none may be left.
if grep -q '^#define PLX_HAVE_UCX 1' "$top_builddir/plx_config.h" 2>/dev/null; then
    for v in 1 2; do
        log=$tmp/kill_hier.log
        echo "+ PLX_TIMEOUT=60 $RUN -n 4 --nodes 2 --timeout 120 $MR/direct_kill_check --coll allreduce --victim $v"
        # shellcheck disable=SC2016  # expanded by the inner shell
        PLX_TUNE= UCX_HANDLE_ERRORS=none PLX_TIMEOUT=60 PLX_LOG=none "$RUN" -n 4 --nodes 2 --timeout 120 \
            sh -c 'echo "job id $PLX_JOB_ID"; exec "$0" "$@"' \
            "$MR/direct_kill_check" --coll allreduce --victim "$v" >"$log" 2>&1
        rc=$?
        got=$(grep -c "returned a peer process failed" "$log")
        jid=$(sed -n 's/^job id \([0-9a-zA-Z_.]*\)$/\1/p' "$log" | head -1)
        left=
        [ -n "$jid" ] && left=$(ls /dev/shm 2>/dev/null | grep -F "plx-$jid-")
        if [ "$rc" -eq 0 ] && [ "$got" -eq 3 ] && [ -n "$jid" ] && [ -z "$left" ]; then
            echo "  ok: hierarchical allreduce, victim $v: PLX_ERR_PEER_FAILED on all 3 survivors, nothing in /dev/shm"
        else
            cat "$log"
            fail "hierarchical allreduce, victim $v: exit $rc, $got of 3 survivors got PLX_ERR_PEER_FAILED, job id '${jid}', left in /dev/shm: ${left:-nothing}"
        fi
    done
else
    echo "  (built without UCX: the hierarchical kill case is skipped)"
fi

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_direct.sh: PASS (${total} s)"
    exit 0
fi
echo "run_direct.sh: FAIL: $fails check(s) failed (${total} s)"
exit 1
