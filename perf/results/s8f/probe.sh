#!/bin/bash
# probe.sh BUILD COLL BYTES REPS: launches of a build tree with the temporary
# per-phase probe (probe.diff, S8F_PROBE) interleaved with Open MPI ob1;
# per launch: time per call and each rank's turn/meet/work/drain us per call.
D=$1 c=$2 b=$3 reps=$4
for r in $(seq $reps); do
  echo "# $(date -u +%T) $(uptime)"
  S8F_PROBE=1 LD_LIBRARY_PATH=$D/.libs $D/tools/plexusrun -n 4 $D/perf/.libs/plx_perf --coll $c -b $b -e $b -c 0 2>&1 |
    awk '$1 ~ /^[0-9]+$/ {t=$6} /^S8F/ {printf "  r%s turn %s meet %s work %s drain %s\n",$3,$8,$10,$12,$14} END{print "plx", t}'
  t=$(mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 --mca pml ob1 --mca btl self,vader $MPI_BENCH -L openmpi -c $c -b $b -e $b 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6}')
  echo "ompi-ob1 $t"
done
