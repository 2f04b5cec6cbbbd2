#!/bin/bash
# base (main at 247bc89) against the merge, interleaved, on the cells the quiet window of session 11
# found below last window's figures although their code did not change.
# BASE=<built tree of main at 247bc89> MERGE=<built tree of the merge> bash THIS (under the machine lock)
cd "$(dirname "$0")"
NP=2 bash ../s10g/ab.sh final-n2.txt 4 "allgather alltoall" "-b 4M -e 64M -f 4" base=$BASE/_inst merge=$MERGE/_inst
NP=2 bash ../s10g/ab.sh final-n2ar.txt 4 "allreduce" "-b 1M -e 4M -f 4" base=$BASE/_inst merge=$MERGE/_inst
NP=4 bash ../s10g/ab.sh final-n4.txt 6 "alltoall reduce" "-b 256K -e 4M -f 4" base=$BASE/_inst merge=$MERGE/_inst
for k in 1 2 3; do for arm in base integ; do
  D=$BASE; [ $arm = integ ] && D=$MERGE
  echo "# launch $k $arm $(uptime)" >> final-graph-n4.txt
  LD_LIBRARY_PATH=$D/.libs timeout 240 $D/tools/plexusrun -n 4 $MERGE/perf/.libs/graph_bench -m overlap --iters 3 2>&1 | grep -E "^idle" >> final-graph-n4.txt
done; done
