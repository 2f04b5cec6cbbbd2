#!/bin/bash
# ab.sh: s12c's, made with `patch -o perf/results/s13a/ab.sh perf/results/s8g/ab.sh < perf/results/s12c/ab.patch`.
# batch1.sh TAG: one interleaved A/B batch of base (main) against this branch, 4 and 2 ranks:
# graph_bench -m overlap (ab.sh), then plx_perf alltoall / reduce 256 KiB-4 MiB at 4 ranks
# (s10g's ab.sh), then graph_bench at 4 ranks again.  BASE: main's built tree.  Run under qlock x.
set -u
t=$1; D=$(cd "$(dirname "$0")" && pwd); W=$(cd "$D/../../.." && pwd); B=${BASE:?main\'s built tree}
bash $D/ab.sh 4 ${L4:-10} $D/gb-n4-$t.txt $B/.libs base,new
bash $D/ab.sh 2 ${L2:-8} $D/gb-n2-$t.txt $B/.libs base,new
NP=4 bash $W/perf/results/s10g/ab.sh $D/perf-n4-$t.txt ${R:-6} "alltoall reduce" "-b 256K -e 4M -f 4" \
    base=$B/_inst new=$W/_inst
bash $D/ab.sh 4 ${L4:-10} $D/gb-n4-$t.txt $B/.libs new,base
