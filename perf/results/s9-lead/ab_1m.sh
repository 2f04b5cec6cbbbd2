#!/bin/bash
# ab_1m.sh BASE NEW ROUNDS: 2-rank reduce/allreduce/allgather 1-4 MiB, the two builds interleaved;
# prints "arm coll bytes time_us" per launch, uptime before each
B=$1 N=$2 R=${3:-8}
for r in $(seq 1 $R); do
  for arm in base new; do
    D=$B; [ $arm = new ] && D=$N
    echo "# round $r $arm $(uptime)"
    for c in reduce allreduce allgather; do
      LD_LIBRARY_PATH=$D/.libs timeout 60 $D/tools/plexusrun -n 2 $D/perf/.libs/plx_perf -c $c -b 1M -e 4M -f 4 -n 300 -w 20 2>&1 |
        awk -v a=$arm -v c=$c '$1 ~ /^[0-9]+$/ && NF > 8 { print a, c, $1, $6 }'
    done
  done
done
