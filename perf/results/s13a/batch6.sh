#!/bin/bash
# ab.sh: s12c's, made with `patch -o perf/results/s13a/ab.sh perf/results/s8g/ab.sh < perf/results/s12c/ab.patch`.
# batch6.sh TAG: three arms -- base (main), new (this branch), new with a direct wait whose yields find the CPU empty for 100 us sleeping on the member's store at once
# (PLX_S13A_WIN=1, a temporary switch) instead of a 50 us nap -- graph_bench -m
# overlap at 4 ranks, plx_perf alltoall / reduce 256 KiB-4 MiB at 4 ranks.  Run under qlock x.
set -u
t=$1; D=$(cd "$(dirname "$0")" && pwd); W=$(cd "$D/../../.." && pwd); B=${BASE:?main\'s built tree}
bash $D/ab.sh 4 ${L4:-14} $D/gb-n4-$t.txt $B/.libs base,new,new:PLX_S13A_WIN=1
NP=4 bash $W/perf/results/s10g/ab.sh $D/perf-n4-$t.txt ${R:-8} "alltoall reduce" "-b 256K -e 4M -f 4" \
    base=$B/_inst new=$W/_inst win=$W/_inst:PLX_S13A_WIN=1
