#!/bin/bash
# tests/devshm.sh -- a Plexus job leaves nothing behind in /dev/shm, whether
# it ends normally or a rank is killed, and plexusrun reports a dead rank:
#   1. coll_check --quick at 4 ranks succeeds; no new plx* entry in /dev/shm;
#   2. kill_check --victim 2 at 4 ranks (rank 2 SIGKILLs itself inside a
#      large allreduce): plexusrun exits non-zero (and not 124, its own
#      timeout: it must notice the death), its output names rank 2 and the
#      signal; no new plx* entry in /dev/shm; no process of the job is left;
#   3. kill_check --die-in-init: rank 0 or 2 is SIGKILLed 1, 3 or 10 ms after
#      it starts, i.e. while the job sets up: plexusrun exits non-zero and
#      /dev/shm still holds nothing new.
# Entries that appear during the run but vanish within 3 s are other jobs'
# (make check -j runs tests side by side; segments live only until every
# rank has mapped them) and are not counted.  The job's processes are found
# by a unique --tag argument, so concurrent tests do not disturb the check.
# Prints each command and PASS/FAIL; exits 0/1.
#
# Environment: top_builddir, top_srcdir (set by make check; default: this
# script's ..).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$here/.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr
TAG="devshm-$$-$RANDOM"

for f in "$RUN" "$MR/coll_check" "$MR/kill_check"; do
    if [ ! -x "$f" ]; then
        echo "devshm.sh: FAIL: $f not built"
        exit 1
    fi
done
if [ ! -d /dev/shm ]; then
    echo "devshm.sh: FAIL: no /dev/shm on this machine"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_devshm.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
    echo "  FAIL: $*"
    fails=$((fails + 1))
}

plx_entries() {
    local f
    for f in /dev/shm/[pP][lL][xX]* /dev/shm/[pP][lL][eE][xX][uU][sS]*; do
        [ -e "$f" ] && printf '%s\n' "${f#/dev/shm/}"
    done | sort -u
}

# New plx entries compared with the snapshot $1 that persist for 3 s.
check_shm() {
    local before=$1 what=$2 new
    new=$(plx_entries | comm -13 "$before" -)
    if [ -n "$new" ]; then
        sleep 3
        new=$(plx_entries | comm -13 "$before" - | grep -Fx -f <(printf '%s\n' "$new"))
    fi
    if [ -n "$new" ]; then
        # shellcheck disable=SC2086  # one name per word, on purpose
        fail "$what: left in /dev/shm: $(printf '%s ' $new)"
        # shellcheck disable=SC2086
        (cd /dev/shm && ls -l -- $new) | sed 's/^/    /'
    else
        echo "  ok: $what: nothing new in /dev/shm"
    fi
}

check_procs() {
    local what=$1 tries left=""
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        : "$tries"
        left=$(pgrep -f -- "$TAG" || true)
        [ -z "$left" ] && break
        sleep 0.5
    done
    if [ -n "$left" ]; then
        fail "$what: processes of the job still running:"
        ps -o pid,ppid,stat,etime,args -p "$(printf '%s\n' "$left" | paste -sd, -)" | sed 's/^/    /'
    else
        echo "  ok: $what: no process of the job left"
    fi
}

plx_entries >"$tmp/before"
echo "/dev/shm before: $(wc -l <"$tmp/before") plx entries"

# ---- 1. a normal job ----------------------------------------------------------
echo "+ $RUN -n 4 --timeout 300 $MR/coll_check --quick --tag $TAG"
"$RUN" -n 4 --timeout 300 "$MR/coll_check" --quick --tag "$TAG" >"$tmp/coll.log" 2>&1
rc=$?
grep -E '^(FAIL|coll_check: rank)' "$tmp/coll.log" | head -50
if [ "$rc" -eq 0 ]; then
    echo "  ok: coll_check --quick at 4 ranks"
else
    fail "coll_check --quick at 4 ranks exited $rc"
    tail -20 "$tmp/coll.log"
fi
check_shm "$tmp/before" "after a normal job"
check_procs "after a normal job"

# ---- 2. a rank killed by SIGKILL -------------------------------------------------
plx_entries >"$tmp/before2"
echo "+ $RUN -n 4 --timeout 60 $MR/kill_check --victim 2 --tag $TAG"
t0=$(date +%s.%N)
"$RUN" -n 4 --timeout 60 "$MR/kill_check" --victim 2 --tag "$TAG" >"$tmp/kill.log" 2>&1
rc=$?
t1=$(date +%s.%N)
dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
cat "$tmp/kill.log"
echo "  (plexusrun exit $rc after $dt s)"
if [ "$rc" -eq 0 ]; then
    fail "plexusrun exited 0 although rank 2 was killed"
elif [ "$rc" -eq 124 ]; then
    fail "plexusrun ran into its --timeout (124): it did not notice that rank 2 died"
else
    echo "  ok: plexusrun exited $rc"
fi
# plexusrun's own report: not the library's lines (plexus[rank N] ...) nor ours.
report=$(grep -v -e '^plexus\[rank' -e '^kill_check:' "$tmp/kill.log")
if printf '%s\n' "$report" | grep -Eiq '(rank|rank:) *2([^0-9]|$)'; then
    echo "  ok: plexusrun names rank 2"
else
    fail "plexusrun's output does not name rank 2"
fi
if printf '%s\n' "$report" | grep -Eiq 'SIGKILL|signal 9([^0-9]|$)|killed'; then
    echo "  ok: plexusrun names the signal"
else
    fail "plexusrun's output does not name the signal (SIGKILL / signal 9)"
fi
check_shm "$tmp/before2" "after a rank was killed"
check_procs "after a rank was killed"

# ---- 3. a rank killed while the job sets up (segments created, maybe not yet
# mapped by everyone: the moment a leak is most likely) ---------------------------
for victim in 0 2; do
    for usec in 1000 3000 10000; do
        plx_entries >"$tmp/before3"
        echo "+ $RUN -n 4 --timeout 60 $MR/kill_check --victim $victim --die-in-init $usec --tag $TAG"
        "$RUN" -n 4 --timeout 60 "$MR/kill_check" --victim "$victim" --die-in-init "$usec" --tag "$TAG" \
            >"$tmp/init.log" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
            fail "rank $victim killed during set-up: plexusrun exited $rc"
            cat "$tmp/init.log"
        else
            echo "  ok: plexusrun exited $rc"
        fi
        check_shm "$tmp/before3" "rank $victim killed ${usec} us into set-up"
    done
done
check_shm "$tmp/before" "at the end (against the first snapshot)"
check_procs "at the end"

if [ "$fails" -eq 0 ]; then
    echo "devshm.sh: PASS"
    exit 0
fi
echo "devshm.sh: FAIL ($fails problem(s))"
exit 1
