#!/bin/bash
# ab_gb.sh OUT LAUNCHES NP BASE NEW: interleaved graph_bench -m overlap --iters 3 launches of two
# installed builds (order reversed every other round), "# launch K ARM" + uptime before each;
# summaries: perf/results/s13a/freesum.py OUT ("free", "b2b") and perf/results/s12c/armsum.py OUT (vs max()).
out=$1; n=$2; np=$3; base=$4; new=$5
for k in $(seq 1 $n); do
  arms="base new"; [ $((k % 2)) -eq 0 ] && arms="new base"
  for a in $arms; do
    pre=$base; [ $a = new ] && pre=$new
    echo "# launch $k $a $(uptime)" >> $out
    PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/graph_bench -m overlap --iters 3 >> $out 2>&1
  done
done
