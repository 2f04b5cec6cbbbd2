#!/bin/bash
# small_ab.sh OUT LAUNCHES BUILD_DIR...: 2 ranks, the cells flagged in quiet-1202d small_ratio, each build
# in turn per launch (interleaved), uptime logged
O=$1; L=$2; shift 2; mkdir -p "$(dirname $O)"; : > "$O"
for i in $(seq 1 $L); do
  echo "# launch $i $(date -u +%T) $(uptime)" >> "$O"
  for d in "$@"; do
    for cs in allreduce:32K:64K reduce:8:32 reduce:8K:8K gather:1K:1K bcast:2K:2K; do
      IFS=: read c b e <<< "$cs"
      LD_LIBRARY_PATH=$d/.libs timeout 60 $d/tools/plexusrun -n 2 $d/perf/.libs/plx_perf --coll $c -b $b -e $e -f 2 2>&1 |
        awk -v d=$(basename $d) -v c=$c '$1 ~ /^[0-9]+$/ {print d, c, $1, $6, $NF}' >> "$O"
    done
  done
done
