#!/bin/bash
# ab_final.sh: the kept change (streaming bcast window writes, 64-256 KiB) against base,
# at 3, 5, 2 and 4 ranks, default rules and forced shm_slots; one qlock x call per rank count.
R=perf/results/s17b; T='PLX_TUNE=bcast:0-inf@shm_slots'; B=$1; N=$2
NP=3 /work/tools/qlock x perf/results/s10g/ab.sh $R/abf-n3.txt 10 "bcast" "-b 64K -e 1M -f 2" "base=$B" "new=$N" "base_slots=$B:$T" "new_slots=$N:$T"
NP=5 /work/tools/qlock x perf/results/s10g/ab.sh $R/abf-n5.txt 8 "bcast" "-b 64K -e 1M -f 2" "base=$B" "new=$N"
NP=2 /work/tools/qlock x perf/results/s10g/ab.sh $R/abf-n2.txt 8 "bcast" "-b 32K -e 512K -f 2" "base=$B" "new=$N" "base_slots=$B:$T" "new_slots=$N:$T"
NP=4 /work/tools/qlock x perf/results/s10g/ab.sh $R/abf-n4.txt 8 "bcast" "-b 32K -e 512K -f 2" "base=$B" "new=$N" "base_slots=$B:$T" "new_slots=$N:$T"
echo done
