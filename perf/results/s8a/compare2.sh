#!/bin/bash
# perf/results/s8a/compare2.sh BASE_PREFIX HERE_DIR OUTDIR -- perf/compare allreduce 1-16 MiB, 2 ranks,
# base then this build, then perf/limits' inputs again (one qlock x hold)
set -u
base=$1; here=$2; o=$3
for v in base here; do
    pre=$base; [ $v = here ] && pre=$here/_inst
    echo "# compare $v $(uptime)" >>"$o/compare2.log"
    (cd "$here" && PLX_PREFIX=$pre timeout 400 perf/compare -n 2 -c allreduce -b 1M -e 16M -f 4 --rounds 3 \
        --no-limits --csv "$o/compare2-$v.csv" >"$o/compare2-$v.txt" 2>&1)
done
echo "# limits $(uptime)" >>"$o/compare2.log"
timeout 120 /tmp/s8a_limits -p 512K --sizes 1M,4M,16M --csv >"$o/limits2-sizes.csv" 2>/dev/null
echo "# end $(uptime)" >>"$o/compare2.log"
