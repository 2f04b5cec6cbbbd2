#!/bin/bash
# tests/mr/run_thread.sh — application threads sharing a context
# (tests/mr/thread_check.c) in both progress modes, then the same program
# built with -fsanitize=thread over the whole library (thread_check_tsan):
# any ThreadSanitizer report fails the test.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
run=$top_builddir/tools/plexusrun
out=${TMPDIR:-/tmp}/thread_check.$$.out
fail=0

one() {   # one <ranks> <mode> <program> <iterations>
    local n=$1 mode=$2 prog=$3 iters=$4
    echo "+ PLX_PROGRESS=$mode $run -n $n --timeout 300 $(basename "$prog") $iters"
    if PLX_PROGRESS=$mode "$run" -n "$n" --timeout 300 "$prog" "$iters" >"$out" 2>&1 &&
       [ "$(grep -c ', 0 failures$' "$out")" -eq "$n" ] && ! grep -q "ThreadSanitizer" "$out"; then
        echo "  ok: $(basename "$prog") at $n ranks, PLX_PROGRESS=$mode"
    else
        head -c 20000 "$out"
        echo "  FAIL: $(basename "$prog") at $n ranks, PLX_PROGRESS=$mode"
        fail=1
    fi
    rm -f "$out"
}

for mode in caller thread; do
    one 2 $mode "$top_builddir/tests/mr/thread_check" 60
    one 3 $mode "$top_builddir/tests/mr/thread_check" 30
done
# halt_on_error: the first race ends the rank with exit code 66;
# UCX (when built in) needs its mmap hooks off under TSan (MACHINE-NOTES).
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export UCX_MEM_MMAP_HOOK_MODE=none
# a build already under another sanitizer (make check-sanitize) cannot add
# TSan: there thread_check_tsan is an ordinary build and this part is skipped
if grep -q __tsan_init "$top_builddir/tests/mr/thread_check_tsan" 2>/dev/null; then
    for mode in caller thread; do
        one 2 $mode "$top_builddir/tests/mr/thread_check_tsan" 12
    done
else
    echo "  (TSan part skipped: this build carries another sanitizer; plain make check runs it)"
fi
if [ $fail -eq 0 ]; then echo "run_thread.sh: PASS"; exit 0; fi
echo "run_thread.sh: FAIL"; exit 1
