#!/bin/bash
# final.sh DIR: (session s14b, under the machine lock) the scatter algorithms forced at 128 KiB-1 MiB,
# then perf/compare at 4 ranks of this build.
set -u
D=$1
echo "# sweep $(uptime)" > $D/final.log
perf/tune_sweep -n 4 -c scatter -b 128K -e 1M -f 2 --rounds 4 --raw $D/sweep-n4.raw > $D/sweep-n4.txt 2>>$D/final.log
echo "# compare $(uptime)" >> $D/final.log
perf/compare -n 4 -c scatter,gather,alltoall,allreduce -b 256K -e 1M -f 2 --rounds 5 --no-limits \
    --csv $D/compare-n4.csv --keep /tmp/s14b_cmp > $D/compare-n4.txt 2>>$D/final.log
echo "# end $(uptime)" >> $D/final.log
