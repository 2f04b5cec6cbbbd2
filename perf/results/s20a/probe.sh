#!/bin/bash
# probe.sh OUT N TREE: N launches of 2-rank graph_bench -m overlap --iters 3 (the window's
# command) with --trace --dump (per rank and timed iteration: the sleeps' lateness and the
# threads' scheduler counters; rank 0: every node's times in one more launch), each after
# the s17b cache-line round-trip probe (C2C, CPU 0 <-> 1) and with uptime.
out=$1; n=$2; t=$3; C2C=${C2C:-/tmp/s20a_c2c}
for k in $(seq 1 $n); do
  echo "# launch $k $(uptime)" >> $out
  echo "# c2c $($C2C)" >> $out
  timeout 240 $t/tools/plexusrun -n 2 $t/perf/graph_bench -m overlap --iters 3 --trace --dump >> $out 2>&1
  echo "# c2c-after $($C2C)" >> $out
done
