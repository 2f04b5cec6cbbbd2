#!/bin/bash
# run3: 4-rank reduce 1-8 KiB (binomial in all three builds): single-size launches, and a second
# small_ratio round set with the build order reversed
cd /work/wt/s7s/perf/results/s7s
B=/work/wt/h13r-before; M=/work/wt/integ; S=/work/wt/s7s
./abstat.sh ab3-n4.txt 8 4 reduce 2K,4K,8K s7s=$S main=$M before=$B
cd /work/wt/s7s && perf/small_ratio.sh perf/results/s7s/small-n4-rev.txt 4 8 reduce s7s=$S main=$M before=$B
