#!/bin/bash
# rep.sh PREFIX REPS PINS...: 3-rank bcast/reduce 128-256 KiB through forced
# shm_slots, each rank pinned by s14b's pin.sh; one line per launch (us).
P=$1; REPS=$2; shift 2
uptime
for rep in $(seq 1 $REPS); do
for PIN in "$@"; do
  for T in "bcast:0-inf@shm_slots" "reduce:0-inf@shm_slots"; do
  c=${T%%:*}
  r=$(PIN=$PIN PLX_TUNE=$T $P/bin/plexusrun -n 3 perf/results/s14b/pin.sh $P/bin/plx_perf --coll $c -b 128K -e 256K -f 2 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s ", $6}')
  echo "rep $rep PIN $PIN $c $r"
  done
done; done
uptime
