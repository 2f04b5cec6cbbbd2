#!/bin/bash
# tests/mr/run_nb.sh — the nonblocking test (tests/mr/nb_check.c) at 1-5
# ranks through plexusrun, the 5-rank run oversubscribed on 2 cores.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
run=$top_builddir/tools/plexusrun
prog=$top_builddir/tests/mr/nb_check
fail=0
for n in 1 2 3 4 5; do
    echo "+ $run -n $n --timeout 180 $prog"
    if "$run" -n "$n" --timeout 180 "$prog" >"${TMPDIR:-/tmp}/nb_check.$$.out" 2>&1 &&
       [ "$(grep -c ', 0 failures$' "${TMPDIR:-/tmp}/nb_check.$$.out")" -eq "$n" ]; then
        echo "  ok: nb_check at $n ranks"
    else
        cat "${TMPDIR:-/tmp}/nb_check.$$.out"
        echo "  FAIL: nb_check at $n ranks"
        fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/nb_check.$$.out"
done
if [ $fail -eq 0 ]; then echo "run_nb.sh: PASS"; exit 0; fi
echo "run_nb.sh: FAIL"; exit 1
