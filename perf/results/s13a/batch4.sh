#!/bin/bash
# ab.sh: s12c's, made with `patch -o perf/results/s13a/ab.sh perf/results/s8g/ab.sh < perf/results/s12c/ab.patch`.
# batch4.sh TAG: three arms -- base (main), new (this branch), new with the back-off's yields untimed
# (PLX_S13A_BACKOFF=0, a temporary switch: the lone-yield nap only in the direct waits' yield window
# and plx_graph_run) -- graph_bench -m overlap at 4 ranks, plx_perf alltoall / reduce 256 KiB-4 MiB at 4
# ranks; then the <= 64 KiB table at 4 ranks, base against that variant.  Run under qlock x.
set -u
t=$1; D=$(cd "$(dirname "$0")" && pwd); W=$(cd "$D/../../.." && pwd); B=${BASE:?main\'s built tree}
bash $D/ab.sh 4 ${L4:-16} $D/gb-n4-$t.txt $B/.libs base,new,new:PLX_S13A_BACKOFF=0
NP=4 bash $W/perf/results/s10g/ab.sh $D/perf-n4-$t.txt ${R:-8} "alltoall reduce" "-b 256K -e 4M -f 4" \
    base=$B/_inst new=$W/_inst nobo=$W/_inst:PLX_S13A_BACKOFF=0
PLX_S13A_BACKOFF=0 PERF_PROG=$B bash $W/perf/small_ratio.sh $D/small-n4-nobo.txt 4 ${ROUNDS:-12} allreduce,bcast,reduce base=$B new=$W
