#!/bin/bash
# thp1m.sh PREFIX COLL [ENV=V...]: 2-rank plx_perf COLL -b 1M -e 4M -f 2 (compare's buffers), map at 1 MiB
P=$1; C=$2; shift 2
env "$@" PLX_PREFIX=$P $P/bin/plexusrun -n 2 $P/bin/plx_perf --coll $C -b 1M -e 4M -f 2 -n 40000 -w 5 -c 0 > ./thp_run.$$ 2>&1 &
L=$!
sleep 1.5
for p in $(pgrep -P $L; for c in $(pgrep -P $L); do pgrep -P $c; done); do
  [ "$(cat /proc/$p/comm)" = plx_perf ] || continue
  echo "== pid $p"; python3 perf/results/s12a/thpmap.py $p
done
wait $L; grep -v '^#' ./thp_run.$$ | tail -3; rm -f ./thp_run.$$
