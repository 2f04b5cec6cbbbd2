#!/bin/bash
# perf/results/s18a/sweep_barrier.sh: perf/tune_sweep of barrier at 6 and 8 ranks (one size:
# a barrier moves no data), 6 rounds, into perf/results/s18a/sweep-barrier-nN.*.  Run under qlock x.
d=perf/results/s18a
for n in 6 8; do
    echo "# start n=$n barrier $(uptime)" >>"$d/sweep-barrier-n$n.raw"
    perf/tune_sweep -n $n -c barrier -b 8 -e 8 --rounds 6 \
        --csv "$d/sweep-barrier-n$n.csv" --raw "$d/sweep-barrier-n$n.raw" >"$d/sweep-barrier-n$n.txt" 2>&1
done
