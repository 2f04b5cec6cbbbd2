#!/bin/bash
# run2: 4-rank reduce crossover binomial/shm_slots (4-8 KiB), 64 KiB options; 2-rank reduce 32 KiB
cd /work/wt/s7s/perf/results/s7s
B=/work/wt/h13r-before; M=/work/wt/integ
./abstat.sh ab2-n4.txt 8 4 reduce 4K,8K before=$B main=$M "slots=$M+PLX_TUNE=reduce:0-inf@shm_slots"
./abstat.sh ab2-n4-64k.txt 8 4 reduce 64K before=$B main=$M "rsg=$M+PLX_TUNE=reduce:0-inf@reduce_scatter_gather" \
  "slots64=$M+PLX_SHM_COLL_BYTES=64K PLX_TUNE=reduce:0-inf@shm_slots"
./abstat.sh ab2-n2.txt 10 2 reduce 32K before=$B main=$M "slots=$M+PLX_TUNE=reduce:0-inf@shm_slots" "direct=$M+PLX_TUNE=reduce:0-inf@direct"
