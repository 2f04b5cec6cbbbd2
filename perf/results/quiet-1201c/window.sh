#!/bin/bash
# session 3 quiet perf window: every step logs uptime; results in /work/perfres/s3/final/
I=/work/wt/integ
export PLX_PREFIX=$I/_inst
F=/work/perfres/s3/final; mkdir -p $F
cd /work/perfres
step() { echo "=== $1 start $(date +%T) $(uptime)"; }
step small8
# 8-64 B, 7 rounds, before (38467e8) / now (ab5a5d4, main at this session start) / after, allreduce bcast reduce
: > $F/small8.tsv
for r in 1 2 3 4 5 6 7; do
  echo "# round $r $(uptime)" >> $F/small8.tsv
  for c in allreduce bcast reduce; do
    for b in before now after; do
      case $b in before) d=/work/wt/h13r-before;; now) d=/work/wt/san;; after) d=$I;; esac
      timeout 120 $d/tools/plexusrun -n 2 $d/perf/plx_perf -c $c -b 8 -e 64 -f 8 -n 100000 2>&1 |
        awk -v r=$r -v b=$b -v c=$c '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6, $NF }' >> $F/small8.tsv
    done
  done
done
step small;   /work/perfres/small_interleave.sh $F/small.tsv 3
step persist; top_builddir=$I $I/perf/persist_compare.sh -n 2 -c allreduce -s 8 -r 5 > $F/persist.txt 2>&1
step big2;    $I/perf/compare -n 2 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter -b 1M -e 64M -f 4 --rounds 3 --csv $F/big-n2.csv > $F/big-n2.txt 2>&1
step big4;    $I/perf/compare -n 4 -c allreduce,bcast,allgather,alltoall,reduce,reduce_scatter,gather,scatter -b 256K -e 4M -f 4 --rounds 2 --no-limits --csv $F/big-n4.csv > $F/big-n4.txt 2>&1
step layer2;  $I/perf/compare -n 2 -c allreduce bcast allgather alltoall reduce -b 8 -e 64M -f 8 --rounds 2 --no-limits --timeout 200 --mpi-layer --csv $F/layer-n2.csv > $F/layer-n2.txt 2>&1
step layer4;  $I/perf/compare -n 4 -c allreduce bcast allgather alltoall reduce -b 8 -e 64M -f 8 --rounds 1 --no-limits --timeout 200 --mpi-layer --csv $F/layer-n4.csv > $F/layer-n4.txt 2>&1
step ovl2;    PLX_PROGRESS=thread timeout 200 $I/tools/plexusrun -n 2 $I/perf/plx_perf -c allreduce -b 1M -e 64M -f 4 --overlap > $F/overlap-n2.txt 2>&1
step ovl4;    PLX_PROGRESS=thread timeout 200 $I/tools/plexusrun -n 4 $I/perf/plx_perf -c allreduce -b 1M -e 64M -f 4 --overlap > $F/overlap-n4.txt 2>&1
step gb2;     timeout 200 $I/tools/plexusrun -n 2 $I/perf/graph_bench -m overlap --iters 3 > $F/graph-overlap-n2.txt 2>&1
step gb4;     timeout 240 $I/tools/plexusrun -n 4 $I/perf/graph_bench -m overlap --iters 3 > $F/graph-overlap-n4.txt 2>&1
step done
