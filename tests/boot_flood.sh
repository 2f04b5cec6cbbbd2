#!/bin/bash
# tests/boot_flood.sh -- a connection flood against a waiting job is not a
# log flood: rank 0 of a 2-rank env-interface job serves the rendezvous and
# waits for rank 1 while tests/boot_flood connects and closes for
# FLOOD_SECONDS (default 30) by turns silently, with half a header and with
# a bad header.  Every such warn line is rate-limited (one per second per
# kind, with a count), so rank 0 must print fewer than FLOOD_MAX_LINES (100)
# lines; then rank 1 joins and the job must still succeed.  Exits 0/1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/.." && pwd)}
PROBE=$top_builddir/tests/boot_probe
FLOOD=$top_builddir/tests/boot_flood
secs=${FLOOD_SECONDS:-30}
maxlines=${FLOOD_MAX_LINES:-100}
for f in "$PROBE" "$FLOOD"; do
    [ -x "$f" ] || { echo "boot_flood.sh: FAIL: $f not built"; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/plx_flood.XXXXXX") || exit 1
trap 'kill $r0pid 2>/dev/null; rm -rf "$T"' EXIT
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
port=$("$PROBE" --print-free-port)
env="PLX_SIZE=2 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$key PLX_TIMEOUT=$((secs + 120))"
env PLX_RANK=0 $env "$PROBE" >"$T/r0" 2>&1 &
r0pid=$!
sleep 0.5
echo "+ boot_flood 127.0.0.1:$port $secs   (rank 0 waiting for rank 1)"
"$FLOOD" "127.0.0.1:$port" "$secs"; rf=$?
env PLX_RANK=1 $env "$PROBE" >"$T/r1" 2>&1; r1=$?
wait $r0pid; r0=$?
r0pid=
lines=$(wc -l <"$T/r0")
echo "rank 0 printed $lines lines during the flood; first and last 3:"
head -3 "$T/r0"; echo "  ..."; tail -3 "$T/r0"
if [ $rf -eq 0 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ "$lines" -lt "$maxlines" ]; then
    echo "PASS: $secs s of connect/close flooding: $lines log lines (< $maxlines), the job still ran"
    exit 0
fi
echo "FAIL: flood $rf, rank 0 exit $r0, rank 1 exit $r1, $lines lines (limit $maxlines)"
cat "$T/r1"
exit 1
