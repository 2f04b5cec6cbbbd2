#!/bin/bash
# 4-rank bcast 4-64 KiB: base, after, after with 32K windows, after without direct staging; interleaved, rotated
O=$1; R=${2:-8}
arms=(base after after32 afternostage)
for r in $(seq 1 $R); do
  for i in 0 1 2 3; do
    a=${arms[$(( (i + r) % 4 ))]}
    case $a in base) B=${BASE:?built tree}; E="";; after) B=${AFTER:?built tree}; E="";; after32) B=${AFTER:?built tree}; E="PLX_SHM_COLL_BYTES=32K";; afternostage) B=${AFTER:?built tree}; E="PLX_SHM_DIRECT_STAGE=0";; esac
    echo "# $r $a $(uptime)" >> $O
    env $E LD_LIBRARY_PATH=$B/.libs $B/tools/plexusrun -n 4 ${AFTER:?built tree}/perf/.libs/plx_perf --coll bcast -b 4K -e 64K -f 2 -n 2000 -w 200 2>&1 | awk -v r=$r -v a=$a '/^ +[0-9]+ +[0-9]+ +float32/{print r, a, $1, $6, $NF}' >> $O
  done
done
