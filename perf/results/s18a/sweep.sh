#!/bin/bash
# perf/results/s18a/sweep.sh COLL [ROUNDS] [FACTOR]: perf/tune_sweep of one collective at 6 and
# 8 ranks, 16 KiB-4 MiB, into perf/results/s18a/sweep-COLL-nN.{txt,csv,raw}.  Run under qlock x
# from the build tree.
set -u
c=$1; rounds=${2:-3}; f=${3:-2}
d=perf/results/s18a
for n in 6 8; do
    echo "# start n=$n $c $(uptime)" >>"$d/sweep-$c-n$n.raw"
    perf/tune_sweep -n $n -c "$c" -b 16K -e 4M -f "$f" --rounds "$rounds" \
        --csv "$d/sweep-$c-n$n.csv" --raw "$d/sweep-$c-n$n.raw" >"$d/sweep-$c-n$n.txt" 2>&1
    echo "# end n=$n $c $(uptime)" >>"$d/sweep-$c-n$n.raw"
done
