#!/bin/bash
# session 10 (2026-12-02, 15:55-18:55) quiet perf window on integ: every step logs uptime
I=${I:?build dir of the library measured}
export PLX_PREFIX=$I/_inst
F=$I/perf/results/quiet-1202g/; mkdir -p $F
cd $I
step() { echo "=== $1 start $(date +%T) $(uptime)" | tee -a $F/window.log; }
step limits
cc -O3 -o /tmp/s10w_limits perf/limits.c && timeout 180 /tmp/s10w_limits -p 512K --sizes 1M,4M,16M,64M --csv > $F/limits-sizes.csv 2>$F/limits-sizes.err
step big2
timeout 600 perf/compare -n 2 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter -b 1M -e 64M -f 4 --rounds 3 --csv $F/big-n2.csv > $F/big-n2.txt 2>&1
step big4
timeout 600 perf/compare -n 4 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter,gather,scatter -b 256K -e 4M -f 4 --rounds 3 --no-limits --csv $F/big-n4.csv > $F/big-n4.txt 2>&1
step small2
PERF_PROG=$I timeout 700 perf/small_ratio.sh $F/small-n2.txt 2 12 allreduce,bcast,reduce,gather before=$BEFORE_BUILD after=$I
step small4
PERF_PROG=$I timeout 700 perf/small_ratio.sh $F/small-n4.txt 4 12 allreduce,bcast,reduce before=$BEFORE_BUILD after=$I
step ovl
for k in 1 2 3 4; do for n in 2 4; do
  echo "# launch $k n $n $(uptime)" >> $F/overlap-n$n.txt
  PLX_PROGRESS=thread timeout 200 $I/tools/plexusrun -n $n $I/perf/plx_perf -c allreduce -b 1M -e 64M -f 4 --overlap >> $F/overlap-n$n.txt 2>&1
done; done
step graph
for k in 1 2 3 4; do for n in 2 4; do
  echo "# launch $k n $n $(uptime)" >> $F/graph-overlap-n$n.txt
  timeout 240 $I/tools/plexusrun -n $n $I/perf/graph_bench -m overlap --iters 3 >> $F/graph-overlap-n$n.txt 2>&1
done; done
step done
python3 perf/model.py $F/limits-sizes.csv $F/big-n2.csv > $F/model-n2.md 2>&1
