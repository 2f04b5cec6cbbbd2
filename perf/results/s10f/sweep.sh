#!/bin/bash
# perf/results/s10f/sweep.sh COLL MIN MAX REPS VARIANT...
# Launches interleaved over the variants (odd rounds in order, even rounds
# reversed), REPS rounds, each launch one plx_perf / mpi_bench sweep MIN..MAX
# (factor 2) at NR (default 4) ranks; `uptime` before every launch goes to
# $UPLOG (default /dev/stderr).  Variants:
#   LABEL=PREFIX[,ENV=V...]   that Plexus install with those environment
#                             variables (e.g. PLX_TUNE=gather:0-inf@shm_slots)
#   ompi-ob1, ompi-def        Open MPI (ob1/vader, default pml); needs $MPI_BENCH
# Prints one line per launch and size: "coll bytes label time_us/algorithm".
# Summarise with summ.sh (min / q1 / median / max per coll bytes label).
# Run it under qlock x.
c=$1 lo=$2 hi=$3 reps=$4; shift 4
nr=${NR:-4} up=${UPLOG:-/dev/stderr}
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe -n $nr)
vs=("$@")
for rep in $(seq $reps); do
  order=("${vs[@]}")
  if ((rep % 2 == 0)); then order=(); for ((i=${#vs[@]}-1; i>=0; i--)); do order+=("${vs[i]}"); done; fi
  for v in "${order[@]}"; do
    echo "$(date -u +%T) $c $lo-$hi $v $(uptime)" >> $up
    lab=${v%%=*}
    case $v in
    ompi-ob1) "${ompi[@]}" --mca pml ob1 --mca btl self,vader ${MPI_BENCH:?} -L openmpi -c $c -b $lo -e $hi 2>&1 |
                awk -v c=$c -v l=$lab '$1 ~ /^[0-9]+$/ {print c, $1, l, $6"/ompi"}' ;;
    ompi-def) "${ompi[@]}" ${MPI_BENCH:?} -L openmpi -c $c -b $lo -e $hi 2>&1 |
                awk -v c=$c -v l=$lab '$1 ~ /^[0-9]+$/ {print c, $1, l, $6"/ompi"}' ;;
    *) IFS=, read -r -a f <<<"${v#*=}"; p=${f[0]}
       env "${f[@]:1}" $p/bin/plexusrun -n $nr $p/bin/plx_perf --coll $c -b $lo -e $hi -c 0 2>&1 |
         awk -v c=$c -v l=$lab '$1 ~ /^[0-9]+$/ && NF >= 10 {print c, $1, l, $6"/"$NF}' ;;
    esac
  done
done
