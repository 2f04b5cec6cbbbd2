#!/bin/bash
# ab_knob.sh TAG BASE NEW: one machine-lock hold -- interleaved A/B (perf/results/s10g/ab.sh), 8 launches
# per arm: allgather and alltoall 256 KiB-4 MiB at 3, 4 and 5 ranks with the huge-page skip of staging
# extended to n <= 5 (PLX_TMP_HUGE_N=5, a measuring knob), then 2-rank reduce_scatter 1-16 MiB with
# its input read by CMA when on huge pages (PLX_TMP_HUGE_RS=1).
set -u
tag=$1; B=$2; N=$3; cd "$(dirname "$0")"
for np in 3 4 5; do
  NP=$np bash ../s10g/ab.sh $tag-n$np.txt 8 "allgather alltoall" "-b 256K -e 4M -f 2" \
     base=$B new=$N:PLX_TMP_HUGE_N=5
done
NP=2 bash ../s10g/ab.sh $tag-rs-n2.txt 8 "reduce_scatter" "-b 1M -e 16M -f 2" \
   base=$B new=$N:PLX_TMP_HUGE_RS=1
