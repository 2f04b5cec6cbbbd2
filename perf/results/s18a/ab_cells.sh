#!/bin/bash
# perf/results/s18a/ab_cells.sh ROUNDS: the cells the first A/B (ab_rows.sh) left unclear, again
# with more launches: default rules against the new rows (tunes.txt), one size each, into
# perf/results/s18a/ab2-COLL-nN.txt.  Run under qlock x from the worktree (prefix ./_inst).
set -u
rounds=$1
d=perf/results/s18a
cell() {   # COLL NP SIZE
    local tune; tune=$(awk -v c="$1" '$1 == c { print $2 }' "$d/tunes.txt")
    bash perf/results/s17-lead/ab_tune.sh "$d/ab2-$1-n$2.txt" "$rounds" "$2" "$PWD/_inst" "--coll $1 -b $3 -e $3" "$tune"
}
cell allreduce 8 32K
cell reduce 8 16K
cell reduce 8 32K
cell bcast 6 64K
cell reduce_scatter 8 256K
cell scatter 6 128K
cell alltoall 8 1M
cell alltoall 6 1M
