#!/bin/bash
O=$1; R=${2:-10}
arms=(binomial shm_slots)
for r in $(seq 1 $R); do
  for i in 0 1; do
    a=${arms[$(( (i + r) % 2 ))]}
    echo "# $r $a $(uptime)" >> $O
    PLX_TUNE="gather:0-inf@$a" LD_LIBRARY_PATH=${AFTER:?built tree}/.libs ${AFTER:?built tree}/tools/plexusrun -n 2 ${AFTER:?built tree}/perf/.libs/plx_perf --coll gather -b 1K -e 16K -f 2 -n 5000 -w 500 2>&1 | awk -v r=$r -v a=$a '/^ +[0-9]+ +[0-9]+ +float32/{print r, a, $1, $6, $NF}' >> $O
  done
done
