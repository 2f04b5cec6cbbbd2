#!/bin/bash
# Correctness of the new rows: plx_perf -c 2 -d all at 3, 4, 5 ranks, roots 0
# and p-1, bcast 50000-280000 bytes in steps of 9973 and gather totals
# 20000-1100000 in steps of 41011 (crossing the 64 KiB bcast row, the 8 KiB
# gather blocks, and the 256 KiB slot); also in place (--in-place: a second pass).
# usage: check.sh PREFIX
P=$1
for ip in "" --in-place; do for n in 3 4 5; do for r in 0 $((n-1)); do
  for spec in "bcast 50000 280000 9973" "gather 20000 1100000 41011"; do set -- $spec
    out=$($P/bin/plexusrun -n $n $P/bin/plx_perf --coll $1 -b $2 -e $3 -i $4 -c 2 -d all -r $r -w 1 -n 3 $ip 2>&1)
    rows=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 10' | wc -l)
    wrong=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 10 {w += $(NF-1)} END {print w+0}')
    algs=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 10 {split($NF, a, "/"); s[a[1]]++} END {for (k in s) printf "%s:%d ", k, s[k]}')
    echo "n=$n root=$r ${ip:-out-of-place} $1 rows $rows sizes $2-$3 wrong $wrong algorithms $algs"
  done
done; done; done
