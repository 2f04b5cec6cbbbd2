#!/bin/bash
# ab.sh BASE NEW NRANKS LAUNCHES BEGIN END [VAR ...]: PLX_PROGRESS=thread plx_perf -c allreduce
# --overlap, launches interleaved: base, then NEW once per VAR (PLX_S8O_VAR=VAR, a temporary toggle
# of the experiments; "-" = unset), LAUNCHES rounds; uptime before each launch.  Run under qlock x.
b=$1; d=$2; n=$3; L=$4; B=$5; E=$6; shift 6
vars=("$@"); [ ${#vars[@]} -eq 0 ] && vars=(-)
for i in $(seq 1 $L); do
  for arm in base "${vars[@]}"; do
    if [ $arm = base ]; then D=$b; V=; else D=$d; V=$arm; fi
    [ "$V" = - ] && V=
    echo "== round $i arm $arm n $n $(uptime)"
    PLX_S8O_VAR=$V PLX_PROGRESS=thread LD_LIBRARY_PATH=$D/.libs timeout 120 $D/tools/plexusrun -n $n $D/perf/.libs/plx_perf -c allreduce -f 4 --overlap -b $B -e $E 2>&1 | grep -v "^#"
  done
done
