#!/bin/bash
# tcomm.sh BASE NEW NRANKS LAUNCHES [VAR ...]: PLX_PROGRESS=thread plx_perf -c allreduce -N (post +
# wait) 1-4 MiB, launches interleaved base / NEW with PLX_S8O_VAR=VAR ("-" = unset).  Under qlock x.
b=$1; d=$2; n=$3; L=$4; shift 4
for i in $(seq 1 $L); do
  for arm in base "$@"; do
    if [ $arm = base ]; then D=$b; V=; else D=$d; V=$arm; fi
    [ "$V" = - ] && V=
    echo "== round $i arm $arm n $n $(uptime)"
    PLX_S8O_VAR=$V PLX_PROGRESS=thread LD_LIBRARY_PATH=$D/.libs timeout 120 $D/tools/plexusrun -n $n $D/perf/.libs/plx_perf -c allreduce -f 4 --nonblocking -b 1M -e 4M 2>&1 | grep -v "^#"
  done
done
