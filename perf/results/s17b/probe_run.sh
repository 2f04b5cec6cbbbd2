#!/bin/bash
# probe_run.sh PREFIX OUTDIR REPS PINS...: 256 KiB bcast/reduce, forced shm_slots, pinned,
# with the probe build's per-op wait records (PLX_PROBE_DIR) per launch.
P=$1; O=$2; REPS=$3; shift 3
uptime
for rep in $(seq 1 $REPS); do
for PIN in "$@"; do
  for c in bcast reduce; do
  d=$O/r${rep}_${PIN}_$c; mkdir -p $d
  grep "^cpu[01]" /proc/stat > $d/stat0
  r=$(PLX_PROBE_DIR=$d PIN=$PIN PLX_TUNE=$c:0-inf@shm_slots $P/bin/plexusrun -n 3 perf/results/s14b/pin.sh $P/bin/plx_perf --coll $c -b 256K -e 256K 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s ", $6}')
  grep "^cpu[01]" /proc/stat > $d/stat1
  echo "rep $rep PIN $PIN $c $r steal(cpu0,cpu1 ticks) $(paste $d/stat0 $d/stat1 | awk '{printf "%d ", $20-$9}')"
  done
done; done
uptime
