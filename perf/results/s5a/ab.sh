#!/bin/bash
# ab.sh ROUNDS COLLS SIZES : interleaved 2-rank plx_perf launches of main at
# ebfa0e7 (installed, /work/wt/integ/_inst) and this branch (built in-tree).
# Prints: label coll bytes time_us busbw round load.  Run under qlock x.
# LIMITS=path/to/limits (cc -O3 perf/limits.c): each round first runs
# limits -p 512K --sizes SIZES --csv, printed as "lim metric value round load".
rounds=$1 colls=$2 sizes=$3
base=/work/wt/integ/_inst
new=$(cd "$(dirname "$0")/../../.." && pwd)
for ((r = 1; r <= rounds; r++)); do
  if [ -n "$LIMITS" ]; then
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$LIMITS" -p 512K --sizes $sizes --csv -s 8M -r 3 -t 1000 | awk -F, -v r=$r -v ld=$load '/_[0-9]+,/ {print "lim", $1, $2, r, ld}'
  fi
  for c in ${colls//,/ }; do for s in ${sizes//,/ }; do for lab in base new; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ $lab = base ]; then
      cmd=(env PLX_PREFIX=$base LD_LIBRARY_PATH=$base/lib $base/bin/plexusrun -n 2 $base/bin/plx_perf)
    else
      cmd=(env LD_LIBRARY_PATH=$new/.libs $new/tools/plexusrun -n 2 $new/perf/.libs/plx_perf)
    fi
    timeout 120 "${cmd[@]}" --coll $c -b $s -e $s -w 5 -c 1 2>&1 |
      awk -v l=$lab -v c=$c -v r=$r -v ld=$load '$1 ~ /^[0-9]+$/ && NF > 5 {print l, c, $1, $(NF-4), $(NF-2), r, ld; exit}'
  done; done; done
done
