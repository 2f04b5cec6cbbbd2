#!/bin/bash
# perf/quiet_window.sh NAME -- the issue-11 quiet window: every figure the issue asks for, in
# one run on a quiet machine (run it under the machine lock, nothing else running), each step's
# start and `uptime` in perf/results/NAME/window.log:
#   limits --sizes (the model's inputs), compare at 2 ranks 1-64 MiB (x4 steps) and 4 ranks
#   256 KiB-4 MiB (BIG4_F: x2 steps by default, so 512 KiB and 2 MiB are measured too),
#   BIG_ROUNDS interleaved rounds each; small_ratio at 2 and 4 ranks against before (24 rotated
#   rounds, one program; small_ratio_sum.py's verdict per cell: the paired median after/before over rounds,
#   90 % bootstrap interval against 1.10), 4 launches each of the progress-thread overlap and
#   graph_bench -m overlap, model.py, and criteria.py's verdict per target (criteria.md).
# Environment: I = the built tree measured (its _inst installed), BEFORE_BUILD = the built tree
# of main before issue 11; BIG_ROUNDS (3) the compare rounds (a 1-4 MiB time moves 1.3x with the
# host's load from round to round: more rounds, a steadier median); SMALL_ROUNDS (24) the
# small_ratio rounds; SMALL_AA=1 adds an A/A arm
# (before run twice; ROUNDS then a multiple of 4, a third more time): A/A runs with this rule
# called no cell "worse" (perf/RESULTS.md, issue 11, session s11s), so the window leaves it out.
I=${I:?build dir of the library measured}
export PLX_PREFIX=$I/_inst
NAME=${1:?usage: perf/quiet_window.sh NAME (results go to perf/results/NAME/)}
F=$I/perf/results/$NAME/; mkdir -p $F
cd $I
step() { echo "=== $1 start $(date +%T) $(uptime)" | tee -a $F/window.log; }
step limits
cc -O3 -o /tmp/quiet_window_limits perf/limits.c && timeout 180 /tmp/quiet_window_limits -p 512K --sizes 1M,4M,16M,64M --csv > $F/limits-sizes.csv 2>$F/limits-sizes.err
step big2
timeout $((150 + 150 * ${BIG_ROUNDS:-3})) perf/compare -n 2 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter -b 1M -e 64M -f 4 --rounds ${BIG_ROUNDS:-3} --csv $F/big-n2.csv > $F/big-n2.txt 2>&1
step big4
timeout $((150 + 250 * ${BIG_ROUNDS:-3})) perf/compare -n 4 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter,gather,scatter -b 256K -e 4M -f ${BIG4_F:-2} --rounds ${BIG_ROUNDS:-3} --no-limits --csv $F/big-n4.csv > $F/big-n4.txt 2>&1
R=${SMALL_ROUNDS:-24}
aa=(); [ "${SMALL_AA:-0}" = 1 ] && aa=(aa=$BEFORE_BUILD)
step small2
PERF_PROG=$I timeout 700 perf/small_ratio.sh $F/small-n2.txt 2 $R allreduce,bcast,reduce,gather before=$BEFORE_BUILD "${aa[@]}" after=$I
step small4
PERF_PROG=$I timeout 700 perf/small_ratio.sh $F/small-n4.txt 4 $R allreduce,bcast,reduce before=$BEFORE_BUILD "${aa[@]}" after=$I
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
for n in 2 4; do
  python3 perf/small_ratio_sum.py --base before --aa aa $F/small-n$n.txt > $F/small-n$n-table.md 2>&1
  echo "small-n$n:" >> $F/window.log; grep '^- ' $F/small-n$n-table.md >> $F/window.log
done
python3 perf/criteria.py $F > $F/criteria.md 2>&1
cat $F/criteria.md >> $F/window.log
