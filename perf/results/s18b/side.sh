#!/bin/bash
# side.sh OUT ROUNDS PREFIX COLL "ARMS": 4-rank plx_perf (one launch per Plexus arm) and
# mpi_bench (Open MPI ob1/vader, Open MPI default, MPICH) launches, interleaved, order
# reversed every other round, 128 KiB-1 MiB.  ARM: LABEL=PLX_TUNE value ("-" = default).
# OUT lines: round arm coll bytes time_us load1.  Run under qlock x.
set -u
out=$1; rounds=$2; pre=$3; coll=$4; read -r -a parms <<<"$5"
bin=${BIN:-/tmp/s18b-bench}
np=${NP:-4}; b=${B:-128K}; e=${E:-1M}
arms=("${parms[@]}" ompi-ob1 ompi-def)
[ "${MPICH:-1}" = 1 ] && arms+=(mpich)
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
  order=("${arms[@]}")
  if [ $((r % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $r $a $(uptime)" >>"$out"
    csv=$bin/cur.csv; rm -f $csv
    case $a in
    ompi-ob1) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n $np --mca pml ob1 --mca btl self,vader $bin/mpi_bench.openmpi -L openmpi -c $coll -b $b -e $e --csv $csv >/dev/null 2>&1 ;;
    ompi-def) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n $np $bin/mpi_bench.openmpi -L openmpi -c $coll -b $b -e $e --csv $csv >/dev/null 2>&1 ;;
    mpich) timeout 120 mpirun.mpich -n $np $bin/mpi_bench.mpich -L mpich -c $coll -b $b -e $e --csv $csv >/dev/null 2>&1 ;;
    *) lab=${a%%=*}; tune=${a#*=}
       if [ "$tune" = - ]; then env PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf --coll $coll -b $b -e $e --csv $csv >/dev/null 2>&1
       else env PLX_TUNE="$tune" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf --coll $coll -b $b -e $e --csv $csv >/dev/null 2>&1; fi
       a=$lab ;;
    esac
    [ -f $csv ] && tail -n +2 $csv | awk -F, -v r=$r -v a=$a -v ld=$ld -v c=$coll '{ print r, a, c, $4, $5, ld, ($7 > 0 ? "WRONG" : "") }' >>"$out"
  done
done
echo "# end $(uptime)" >>"$out"
