#!/bin/bash
# corr.sh PREFIX N: alternate the c2c probe (CPU 0 <-> 1) and one 3-rank launch of
# bcast and reduce 256 KiB through forced shm_slots (PIN=100: the root alone on CPU 1).
P=$1; N=$2; C2C=${C2C:-/tmp/s17b_c2c}
uptime
for i in $(seq 1 $N); do
  a=$($C2C)
  b=$(PIN=100 PLX_TUNE=bcast:0-inf@shm_slots $P/bin/plexusrun -n 3 perf/results/s14b/pin.sh $P/bin/plx_perf --coll bcast -b 256K -e 256K 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s", $6}')
  r=$(PIN=100 PLX_TUNE=reduce:0-inf@shm_slots $P/bin/plexusrun -n 3 perf/results/s14b/pin.sh $P/bin/plx_perf --coll reduce -b 256K -e 256K 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s", $6}')
  d=$(PLX_TUNE=bcast:0-inf@direct $P/bin/plexusrun -n 3 $P/bin/plx_perf --coll bcast -b 256K -e 256K 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s", $6}')
  echo "$(date +%T) $a bcast_slots $b reduce_slots $r bcast_direct $d"
done
uptime
