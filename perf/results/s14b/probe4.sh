#!/bin/bash
# probe4.sh DIR: the final code (session s14b), under the machine lock: 16 interleaved unpinned
# probe launches (probe2.sh), then pinned 3:1 placements (PIN, pin.sh), 3 launches per arm.
set -u
D=$1; mkdir -p $D
bash $(dirname $0)/probe2.sh $D 16
for i in 1 2 3; do for p in 0111 0001; do for a in base new; do
  P=$([ $a = base ] && echo $BASE || echo $NEW)/_inst
  echo "# pin$p-$a-$i $(uptime)" >>$D/probe.log
  PIN=$p PLX_PREFIX=$P timeout 60 $P/bin/plexusrun -n 4 $(dirname $0)/pin.sh /tmp/s14b_scprobe_$a 262144 6000 $D/pin$p-$a-$i >>$D/probe.log 2>&1
done; done; done
