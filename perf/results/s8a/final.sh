#!/bin/bash
# perf/results/s8a/final.sh BASE_PREFIX HERE_DIR OUTDIR -- one exclusive hold (qlock x): perf/limits'
# model inputs, the interleaved A/B (ab.sh, 8 rounds), then perf/compare's allreduce against
# both MPIs with this build; uptime between the steps.
set -u
base=$1; here=$2; o=$3; R=$(dirname "$0")
echo "# limits $(uptime)" >"$o/final.log"
cc -O3 -o /tmp/s8a_limits "$here/perf/limits.c" &&
    timeout 120 /tmp/s8a_limits -p 512K --sizes 1M,4M,16M --csv >"$o/limits-sizes.csv" 2>"$o/limits-sizes.err"
echo "# ab $(uptime)" >>"$o/final.log"
"$R/ab.sh" "$o/ab3.txt" 8 "$base" "$here" base=base here=here
echo "# compare $(uptime)" >>"$o/final.log"
(cd "$here" && PLX_PREFIX=$here/_inst timeout 400 perf/compare -n 2 -c allreduce -b 1M -e 16M -f 4 --rounds 3 \
    --no-limits --csv "$o/compare-n2.csv" >"$o/compare-n2.txt" 2>&1)
echo "# end $(uptime)" >>"$o/final.log"
