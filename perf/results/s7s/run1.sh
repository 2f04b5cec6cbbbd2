#!/bin/bash
# run1: 4-rank reduce, before / main / main with other algorithms forced, perf stat per launch
cd /work/wt/s7s/perf/results/s7s
B=/work/wt/h13r-before; M=/work/wt/integ
./abstat.sh ab1-n4.txt ${R:-8} 4 reduce 2K,16K,32K,64K before=$B main=$M \
  "slots=$M+PLX_TUNE=reduce:0-inf@shm_slots" "direct=$M+PLX_TUNE=reduce:0-inf@direct"
