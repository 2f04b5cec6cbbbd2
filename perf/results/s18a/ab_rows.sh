#!/bin/bash
# perf/results/s18a/ab_rows.sh ROUNDS "PERF ARGS" COLL...: for each COLL, at 6 then 8 ranks, the
# default rules against PLX_TUNE = that collective's rule with the new 6+-rank rows
# (perf/results/s18a/tunes.txt), interleaved (perf/results/s17-lead/ab_tune.sh), into
# perf/results/s18a/ab-COLL-nN.txt.  Run under qlock x from the worktree (prefix ./_inst).
set -u
rounds=$1; args=$2; shift 2
d=perf/results/s18a
for c in "$@"; do
    tune=$(awk -v c="$c" '$1 == c { print $2 }' "$d/tunes.txt")
    for n in 6 8; do
        bash perf/results/s17-lead/ab_tune.sh "$d/ab-$c-n$n.txt" "$rounds" "$n" "$PWD/_inst" "--coll $c $args" "$tune"
    done
done
