#!/bin/bash
# probe.sh OUTDIR LAUNCHES NEW_DIR [ENV=V...]: launches of the probe build (S8X_PROBE timeline), one dir each
set -u
o=$1; n=$2; new=$3; shift 3
mkdir -p "$o"
for i in $(seq 1 "$n"); do
  for c in allgather alltoall; do
    d=$o/l$i-$c; mkdir -p "$d"
    echo "# launch $i $c $(uptime)" >>"$o/perf.txt"
    env "$@" S8X_PROBE=$d LD_LIBRARY_PATH=$new/.libs timeout 60 "$new/tools/plexusrun" -n 2 \
        "$new/perf/.libs/plx_perf" --coll $c -b 1M -e 4M -f 4 -n 300 -w 5 >>"$o/perf.txt" 2>&1
  done
done
