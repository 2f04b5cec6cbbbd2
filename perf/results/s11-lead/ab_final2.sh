#!/bin/bash
# base (main at 247bc89) against the merge, more launches on the cells ab_final.sh left in doubt.
# BASE=<built tree of main at 247bc89> MERGE=<built tree of the merge> bash THIS (under the machine lock)
cd "$(dirname "$0")"
NP=4 bash ../s10g/ab.sh final2-n4.txt 12 "reduce alltoall" "-b 1M -e 4M -f 4" base=$BASE/_inst merge=$MERGE/_inst
NP=2 bash ../s10g/ab.sh final2-n2ar.txt 12 "allreduce" "-b 1M -e 1M" base=$BASE/_inst merge=$MERGE/_inst
for k in 1 2 3 4 5; do for arm in base integ; do
  D=$BASE; [ $arm = integ ] && D=$MERGE
  echo "# launch $k $arm $(uptime)" >> final2-graph-n4.txt
  LD_LIBRARY_PATH=$D/.libs timeout 240 $D/tools/plexusrun -n 4 $MERGE/perf/.libs/graph_bench -m overlap --iters 3 2>&1 | grep -E "^idle" >> final2-graph-n4.txt
done; done
