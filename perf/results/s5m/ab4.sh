#!/bin/bash
# ab4.sh OUT ROUNDS COLL BYTES_LO BYTES_HI NAME=DIR...  : interleaved launches, mean/min/max over ranks
out=$1; rounds=$2; coll=$3; lo=$4; hi=$5; shift 5
for r in $(seq 1 $rounds); do
  echo "# round $r $(uptime)" >> $out
  for nb in "$@"; do
    name=${nb%%=*}; d=${nb#*=}; envv=; case $d in *:*) envv=${d#*:}; d=${d%%:*};; esac
    if [ -e $d/perf/.libs/plx_perf ] && grep -q '"minmax"' $d/perf/plx_perf.c; then mm=--minmax; else mm=-F; fi
    env $envv LD_LIBRARY_PATH=$d/.libs timeout 60 $d/tools/plexusrun -n ${NR:-4} $d/perf/.libs/plx_perf -c $coll -b $lo -e $hi -f 2 -n 2000 -w 200 $mm 2>&1 |
      awk -v r=$r -v b=$name -v c=$coll '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, c, $1, $6, $9, $10 }' >> $out
  done
done
