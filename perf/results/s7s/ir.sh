#!/bin/bash
# ir.sh: rebuild the library, then instructions per call (perf/small_ir.sh, callgrind) of
# A (/tmp/s7s-A: the build before the run_coll split) and B (this tree), twice each, interleaved
cd /work/wt/s7s
nice -n 19 make -j2 libplexus.la >/tmp/s7s-make.log 2>&1 || { echo make failed; tail -20 /tmp/s7s-make.log; exit 1; }
echo "# $(date -u +%T) $(uptime)"
for k in 1 2; do
  nice -n 19 perf/small_ir.sh /tmp/s7s-A /work/wt/s7s -- allreduce:8 bcast:8 reduce:8
done
echo "# end $(date -u +%T) $(uptime)"
