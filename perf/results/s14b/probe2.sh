#!/bin/bash
# probe2.sh OUTDIR N: N unpinned scprobe launches of 4 ranks, scatter 256 KiB, base and new
# interleaved (order alternating), each rank's per-call CPUs and times (session s14b).
set -u
D=$1; N=$2; mkdir -p "$D"
for i in $(seq 1 $N); do
  if [ $((i % 2)) -eq 1 ]; then arms="base new"; else arms="new base"; fi
  for a in $arms; do
    echo "# $a-$i $(uptime)" >>"$D/probe.log"
    P=$([ $a = base ] && echo $BASE || echo $NEW)/_inst
    PLX_PREFIX=$P timeout 60 $P/bin/plexusrun -n 4 /tmp/s14b_scprobe_$a ${BYTES:-262144} ${ITERS:-6000} "$D/$a-$i" >>"$D/probe.log" 2>&1
  done
done
echo "# end $(uptime)" >>"$D/probe.log"
