#!/bin/bash
# ab.sh BASE NEW NRANKS LAUNCHES PROGRESS PLX_PERF_ARGS...: plx_perf -c allreduce PLX_PERF_ARGS with
# PLX_PROGRESS=PROGRESS ("-" = unset), launches interleaved base, new, base, new, ...; uptime
# before each launch.  BASE and NEW are build directories.  ORDER="new base" (environment): the
# order of the arms in each round.  Run under qlock x.
b=$1; d=$2; n=$3; L=$4; P=$5; shift 5
for i in $(seq 1 $L); do
  for arm in ${ORDER:-base new}; do
    if [ $arm = base ]; then D=$b; else D=$d; fi
    echo "== round $i arm $arm n $n progress $P args $* $(uptime)"
    if [ "$P" = - ]; then unset PLX_PROGRESS; else export PLX_PROGRESS=$P; fi
    LD_LIBRARY_PATH=$D/.libs timeout 180 $D/tools/plexusrun -n $n $D/perf/.libs/plx_perf -c allreduce "$@" 2>&1 | grep -v "^#"
  done
done
