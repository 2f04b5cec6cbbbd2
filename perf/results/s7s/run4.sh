#!/bin/bash
# run4: 4-rank reduce 4/8 KiB (binomial everywhere): main / s7s / s7s's library before the run_coll split (sA), rotating order
cd /work/wt/s7s/perf/results/s7s
M=/work/wt/integ; S=/work/wt/s7s
./abstat.sh ab4-n4.txt 4 4 reduce 4K,8K main=$M s7s=$S sA=$S:/tmp/s7s-A/.libs
./abstat.sh ab4-n4.txt 4 4 reduce 4K,8K sA=$S:/tmp/s7s-A/.libs s7s=$S main=$M
./abstat.sh ab4-n4.txt 4 4 reduce 4K,8K s7s=$S main=$M sA=$S:/tmp/s7s-A/.libs
