#!/bin/bash
# perf/results/s5q/dist.sh PREFIX COLL BYTES REPS VARIANT...
# Per-launch distribution of one cell: launches alternate over the variants
# (default, an algorithm name forced with PLX_TUNE, ompi-ob1, ompi-def,
# e:VAR=VALUE for the default with that environment, or NAME=PREFIX2 for
# another Plexus build's default), REPS times each;
# prints "coll bytes variant t1 t2 ..." (plx_perf / mpi_bench time, us).
# Run it under /work/tools/qlock x (<= 4 min).
pre=$1 c=$2 b=$3 reps=$4; shift 4
mb=${MPI_BENCH:-/tmp/s5q/mpi_bench.openmpi}
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe -n ${NR:-4})
for rep in $(seq $reps); do for v in "$@"; do
  case $v in
  ompi-ob1) t=$("${ompi[@]}" --mca pml ob1 --mca btl self,vader $mb -L openmpi -c $c -b $b -e $b 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6}') ;;
  ompi-def) t=$("${ompi[@]}" $mb -L openmpi -c $c -b $b -e $b 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6}') ;;
  e:*) t=$(env ${v#e:} $pre/bin/plexusrun -n ${NR:-4} $pre/bin/plx_perf --coll $c -b $b -e $b -c 0 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6"/"$NF}') ;;
  *=*) p=${v#*=}; t=$($p/bin/plexusrun -n ${NR:-4} $p/bin/plx_perf --coll $c -b $b -e $b -c 0 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6"/"$NF}') ;;
  default) t=$($pre/bin/plexusrun -n ${NR:-4} $pre/bin/plx_perf --coll $c -b $b -e $b -c 0 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6"/"$NF}') ;;
  *) t=$(PLX_TUNE="$c:0-inf@$v" $pre/bin/plexusrun -n ${NR:-4} $pre/bin/plx_perf --coll $c -b $b -e $b -c 0 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6"/"$NF}') ;;
  esac
  echo "$c $b $v ${t:-FAIL}"
done; done | awk '{k=$1" "$2" "$3; if(!(k in v)) o[++n]=k; v[k]=v[k]" "$4} END{for(i=1;i<=n;i++) print o[i], v[o[i]]}'
