#!/bin/bash
# tests/mr/run_outparams.sh -- out-parameters are written on failure:
#   outparam_check initfail alone with PLX_TIMEOUT=bogus (plx_init fails;
#   the README's unchecked pattern after it must fail cleanly, not crash),
#   then outparam_check calls on 2 ranks through plexusrun.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
prog=$top_builddir/tests/mr/outparam_check
fail=0
echo "+ PLX_TIMEOUT=bogus $prog initfail"
env -u PLX_RANK -u PLX_SIZE -u PLX_BOOTSTRAP -u PLX_JOB_KEY PLX_LOG=none PLX_TIMEOUT=bogus "$prog" initfail || fail=1
echo "+ plexusrun -n 2 $prog calls"
PLX_LOG=none "$top_builddir/tools/plexusrun" -n 2 --timeout 120 "$prog" calls || fail=1
[ $fail = 0 ] && echo "PASS: run_outparams" || echo "FAIL: run_outparams"
exit $fail
