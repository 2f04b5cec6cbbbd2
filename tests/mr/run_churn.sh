#!/bin/bash
# tests/mr/run_churn.sh -- communicator ids and memory are reused:
#   churn_check at 4 ranks, CHURN_CYCLES dup+free cycles of world (default
#   6000, beyond the 4096 ids a rank can hold at once) with a checked
#   allreduce every 7th, plus the reuse corner cases (stale handles, ranks
#   freeing at different times, split colours, a free with a recv in
#   flight); RSS at the end within CHURN_MAX_KB (1024) of RSS after 1000.
# `make check-churn` runs it with CHURN_CYCLES=10000000 (hours on 2 cores).
# Exits 0/1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
PROG=$top_builddir/tests/mr/churn_check
cycles=${CHURN_CYCLES:-6000}
maxkb=${CHURN_MAX_KB:-1024}
ranks=${CHURN_RANKS:-4}
limit=${CHURN_TIMEOUT:-300}
for f in "$RUN" "$PROG"; do
    [ -x "$f" ] || { echo "run_churn.sh: FAIL: $f not built"; exit 1; }
done
echo "+ $RUN -n $ranks --timeout $limit $PROG -n $cycles -m $maxkb"
log=$(mktemp "${TMPDIR:-/tmp}/plx_churn.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
# streamed, so a long run (make check-churn) shows its RSS curve as it goes
"$RUN" -n "$ranks" --timeout "$limit" "$PROG" -n "$cycles" -m "$maxkb" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
ok=$(grep -c "^churn_check: rank [0-9]*: .* 0 failures" "$log")
if [ "$rc" -eq 0 ] && [ "$ok" -eq "$ranks" ]; then
    echo "PASS: $cycles dup+free cycles at $ranks ranks in constant memory"
    exit 0
fi
echo "FAIL: exit $rc, $ok of $ranks ranks reported 0 failures"
exit 1
