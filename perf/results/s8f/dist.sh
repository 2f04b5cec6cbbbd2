#!/bin/bash
# perf/results/s8f/dist.sh COLL BYTES REPS VARIANT...
# Per-launch distribution of one cell at NR (default 4) ranks: launches
# alternate over the variants, REPS rounds; `uptime` before every launch
# goes to $UPLOG (default /dev/stderr).  Variants:
#   NAME=PREFIX        that Plexus install's (or build tree's) default selection
#   NAME=PREFIX@ALG    that install with PLX_TUNE=COLL:0-inf@ALG
#   NAME=PREFIX%ENV=V  that install with the environment ENV=V
#   ompi-ob1, ompi-def Open MPI (ob1/vader, default pml); needs $MPI_BENCH
# Prints "coll bytes variant t1/alg t2/alg ..." (time per call, us).
# Run it under qlock x.  (s5q/dist.sh with uptime, builds as arguments.)
c=$1 b=$2 reps=$3; shift 3
nr=${NR:-4} up=${UPLOG:-/dev/stderr}
mb=${MPI_BENCH:?set MPI_BENCH to an mpi_bench built with mpicc.openmpi}
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe -n $nr)
plx() { "$@" --coll $c -b $b -e $b -c 0 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6"/"$NF}'; }
# an install prefix (bin/) or a build tree (tools/plexusrun, perf/.libs/plx_perf)
run() { if [ -x $1/bin/plexusrun ]; then echo "$1/bin/plexusrun -n $nr $1/bin/plx_perf";
        else echo "env LD_LIBRARY_PATH=$1/.libs $1/tools/plexusrun -n $nr $1/perf/.libs/plx_perf"; fi; }
for rep in $(seq $reps); do for v in "$@"; do
  echo "$(date -u +%T) $c $b $v $(uptime)" >> $up
  case $v in
  ompi-ob1) t=$("${ompi[@]}" --mca pml ob1 --mca btl self,vader $mb -L openmpi -c $c -b $b -e $b 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6}') ;;
  ompi-def) t=$("${ompi[@]}" $mb -L openmpi -c $c -b $b -e $b 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $6}') ;;
  *=*@*) p=${v#*=}; alg=${p#*@}; p=${p%@*}
         t=$(PLX_TUNE="$c:0-inf@$alg" plx $(run $p)) ;;
  *=*%*) p=${v#*=}; e=${p#*%}; p=${p%%\%*}
         t=$(plx env "$e" $(run $p)) ;;
  *=*) p=${v#*=}; t=$(plx $(run $p)) ;;
  esac
  lab=${v%%=*}; case $v in *=*@*) lab=$lab:${v##*@} ;; *=*%*) lab=$lab:${v#*%} ;; esac
  echo "$c $b $lab ${t:-FAIL}"
done; done | awk '{k=$1" "$2" "$3; if(!(k in v)) o[++n]=k; v[k]=v[k]" "$4} END{for(i=1;i<=n;i++) print o[i], v[o[i]]}'
