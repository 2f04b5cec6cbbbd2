#!/bin/bash
# chain.sh: instruction counts, then the correctness runs, each its own qlock s call, one after the other
Q=/work/tools/qlock; D=/work/wt/s7s/perf/results/s7s
$Q s $D/ir.sh > $D/ir-runcoll.txt 2>&1
for p in build coll tests/mr/run_direct.sh tests/mr/run_mismatch.sh tests/mr/run_stress.sh; do
  echo "## $p $(date -u +%T) $(uptime)" >> $D/tests.txt
  $Q s $D/tests.sh $p >> $D/tests.txt 2>&1
done
echo "## end $(date -u +%T)" >> $D/tests.txt
