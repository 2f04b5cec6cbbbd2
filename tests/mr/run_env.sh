#!/bin/bash
# tests/mr/run_env.sh -- a bad PLX_* value fails plx_init with
# PLX_ERR_INVALID_ARG and one message naming the variable and the value, at
# 2 ranks through plexusrun (both ranks refuse alike, nobody hangs): the
# PLX_SHM_* values issue 13 found replaced by defaults, a unit without a
# number, a PLX_TUNE rank range without a byte range, a repeated PLX_TUNE
# rule, PLX_TIMEOUT=5e7; and good values still start.  Exits 0/1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
PROG=$top_builddir/tests/mr/env_check
for f in "$RUN" "$PROG"; do
    [ -x "$f" ] || { echo "run_env.sh: FAIL: $f not built"; exit 1; }
done
ok_text=$("$PROG" x 2>/dev/null | sed 's/^env_check: plx_init: //')   # text of a 1-rank success
fails=0
# name=value, the status expected, a word the message must contain
check() {
    local assign=$1 want=$2 name=${1%%=*} value=${1#*=}
    out=$(env "$assign" "$RUN" -n 2 --timeout 60 "$PROG" "$want" 2>&1)
    rc=$?
    nmsg=$(echo "$out" | grep -c "plx_init: .*$name")
    if [ "$want" = "$ok_text" ]; then nmsg=ok; fi
    if [ "$rc" -eq 0 ] && { [ "$nmsg" = ok ] || [ "$nmsg" -ge 1 ]; }; then
        echo "  ok: $assign -> $want"
    else
        echo "  FAIL: $assign: exit $rc, messages naming $name: $nmsg"
        echo "$out" | sed 's/^/    /' | head -10
        fails=$((fails + 1))
    fi
}
bad="invalid argument"
check "PLX_SHM_CMA=maybe" "$bad"
check "PLX_SHM_RING_BYTES=1000" "$bad"
check "PLX_SHM_EAGER_MAX=lots" "$bad"
check "PLX_SHM_EAGER_MAX=K" "$bad"
check "PLX_SHM_STAGE_BYTES=1" "$bad"
check "PLX_SHM_COLL_BYTES=-5" "$bad"
check "PLX_GRAPH_THREADS=0" "$bad"
check "PLX_TIMEOUT=5e7" "$bad"
check "PLX_TUNE=allreduce:0/2-2@ring" "$bad"
check "PLX_TUNE=allreduce:0-8K@ring;allreduce:8K-inf@ring" "$bad"
check "PLX_SHM_RING_BYTES=64K" "$ok_text"
check "PLX_SHM_CMA=0" "$ok_text"
check "PLX_SLOTS_STREAM=2" "$bad"
check "PLX_SLOTS_STREAM=1" "$ok_text"
check "PLX_DIRECT_STREAM=2" "$bad"
check "PLX_DIRECT_STREAM=0" "$ok_text"
[ "$fails" -eq 0 ] && { echo "PASS: bad PLX_* values refused at plx_init"; exit 0; }
echo "FAIL: $fails case(s)"
exit 1
