#!/bin/bash
# alternate the yield window, several launches each
cd /work/wt/h11b
c=$1 s=$2 n=$3; shift 3
for rep in 1 2 3; do for y in "$@"; do
  t=$(XY_US=$y ./tools/plexusrun -n 4 ./perf/plx_perf --coll $c -b $s -e $s -n $n -c 0 | grep -E "^ +[0-9]" | awk '{print $6}')
  echo "$c $s XY_US=$y $t"
done; done
