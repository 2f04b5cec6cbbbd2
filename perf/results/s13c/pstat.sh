#!/bin/bash
# pstat.sh BASE_PREFIX NEW_PREFIX: perf stat (software events; both ranks and the launcher) of 5000
# timed 2-rank allgather 1 MiB calls, Open MPI (mpi_bench.openmpi built by perf/compare's command) and both builds
E=task-clock,context-switches,cpu-migrations,page-faults
perf stat -x, -e $E -o ps.ompi.txt mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 ./mpi_bench.openmpi -L openmpi -c allgather -b 1M -e 1M -n 5000 -w 5 > pso.ompi.txt 2>&1
for v in base new; do if [ $v = base ]; then P=$1; else P=$2; fi
perf stat -x, -e $E -o ps.$v.txt env PLX_PREFIX=$P $P/bin/plexusrun -n 2 $P/bin/plx_perf --coll allgather -b 1M -e 1M -n 5000 -w 5 > pso.$v.txt 2>&1
done
