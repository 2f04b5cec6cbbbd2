#!/bin/bash
# abv.sh BASE NEW NRANKS LAUNCHES PROGRESS PROG ARGS...: PROG (plx_perf or graph_bench) ARGS, each arm
# in $ARMS per round (interleaved), uptime before each launch.  Arm "base" runs BASE's build, every
# other arm NEW's build with the arm's environment (VAR=VALUE,VAR=VALUE or "-" for none), e.g.
# ARMS="base new:- new:PLX_PT_SLICE_US=100".  PROGRESS "-" = PLX_PROGRESS unset.  Run under qlock x.
b=$1; d=$2; n=$3; L=$4; P=$5; prog=$6; shift 6
for i in $(seq 1 $L); do
  for arm in ${ARMS:-base new:-}; do
    if [ $arm = base ]; then D=$b; envs=; else D=$d; envs=${arm#new:}; [ "$envs" = - ] && envs=; fi
    echo "== round $i arm $arm n $n progress $P args $* $(uptime)"
    if [ "$P" = - ]; then unset PLX_PROGRESS; else export PLX_PROGRESS=$P; fi
    env ${envs//,/ } LD_LIBRARY_PATH=$D/.libs timeout 180 $D/tools/plexusrun -n $n $D/perf/.libs/$prog "$@" 2>&1 | grep -v "^#"
  done
done
