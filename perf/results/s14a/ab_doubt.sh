#!/bin/bash
# ab_doubt.sh TAG BASE NEW: the cells left in doubt by ab1/ab2, 10 launches per arm:
# 5-rank allgather (4 MiB: the only size whose block, 820 KiB, is on huge pages) and
# 4-rank alltoall (512 KiB: huge-page input by the buffer's alignment), PLX_TMP_HUGE_N=5.
set -u
tag=$1; B=$2; N=$3; cd "$(dirname "$0")"
NP=5 bash ../s10g/ab.sh $tag-n5.txt 10 "allgather" "-b 256K -e 4M -f 2" base=$B new=$N:PLX_TMP_HUGE_N=5
NP=4 bash ../s10g/ab.sh $tag-n4.txt 10 "alltoall" "-b 256K -e 4M -f 2" base=$B new=$N:PLX_TMP_HUGE_N=5
