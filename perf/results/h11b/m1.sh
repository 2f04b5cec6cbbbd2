#!/bin/bash
# one measurement: lib coll size iters -> time + perf stat counts
cd /work/wt/h11b
lib=$1 c=$2 s=$3 n=$4
if [ $lib = plx ]; then
  cmd=(./tools/plexusrun -n 4 ./perf/plx_perf --coll $c -b $s -e $s -n $n -c 0)
else
  cmd=(mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 --mca pml ob1 --mca btl self,vader /tmp/h11b/mpi_bench.openmpi -c $c -b $s -e $s -n $n)
fi
perf stat -x, -e context-switches,task-clock -o /tmp/h11b/ps.$$ "${cmd[@]}" 2>&1 | grep -v '^#' | grep -E "^ *[0-9]" | tail -1
grep -E "context|task" /tmp/h11b/ps.$$ | cut -d, -f1,3 | tr '\n' ' '; echo
rm -f /tmp/h11b/ps.$$
