#!/bin/bash
# side.sh (s19b's, with F = size factor) OUT ROUNDS COLL ARM...: NP-rank (default 4) launches, one per arm per round, order
# reversed every other round; s17b's c2c probe (CPU 0 <-> 1 cache-line round trip: ~51-94 ns one
# die, ~300+ two) logged before each launch.  ARM: LABEL=PREFIX[:ENV=V,ENV=V] for plx_perf, or
# ompi-ob1 / ompi-def / mpich for mpi_bench.  Sizes B..E (default 128K..1M).
# OUT lines: round arm coll bytes time_us load1 rtt_ns.  Run under qlock x.
set -u
out=$1; rounds=$2; coll=$3; shift 3; arms=("$@")
bin=${BIN:-/tmp/s18b-bench}; C2C=${C2C:-$bin/c2c}
np=${NP:-4}; b=${B:-128K}; e=${E:-1M}; f=${F:-2}
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
  order=("${arms[@]}")
  if [ $((r % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    ld=$(cut -d' ' -f1 /proc/loadavg); rtt=$($C2C | awk '{print $3}')
    echo "# $r $a rtt $rtt $(uptime)" >>"$out"
    csv=/tmp/s20b-cur.csv; rm -f $csv
    case $a in
    ompi-ob1) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n $np --mca pml ob1 --mca btl self,vader $bin/mpi_bench.openmpi -L openmpi -c $coll -b $b -e $e -f $f --csv $csv >/dev/null 2>&1 ;;
    ompi-def) timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n $np $bin/mpi_bench.openmpi -L openmpi -c $coll -b $b -e $e -f $f --csv $csv >/dev/null 2>&1 ;;
    mpich) timeout 120 mpirun.mpich -n $np $bin/mpi_bench.mpich -L mpich -c $coll -b $b -e $e -f $f --csv $csv >/dev/null 2>&1 ;;
    *) lab=${a%%=*}; rest=${a#*=}; pre=${rest%%:*}; envs=()
       [ "$pre" != "$rest" ] && IFS=, read -r -a envs <<<"${rest#*:}"
       env "${envs[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf --coll $coll -b $b -e $e -f $f --csv $csv >/dev/null 2>&1
       a=$lab ;;
    esac
    [ -f $csv ] && tail -n +2 $csv | awk -F, -v r=$r -v a=$a -v ld=$ld -v c=$coll -v rt=$rtt '{ print r, a, c, $4, $5, ld, rt, ($7 > 0 ? "WRONG" : "") }' >>"$out"
  done
done
echo "# end $(uptime)" >>"$out"
