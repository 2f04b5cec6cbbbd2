#!/bin/bash
# final.sh: the closing perf/compare of the branch (2 ranks, allgather/alltoall 1-4 MiB, 3 rounds),
# then perf/limits' per-size figures and perf/model.py on both, in one machine-lock hold.
D=$(dirname "$0")
uptime
perf/compare -n 2 -c allgather,alltoall -b 1M -e 4M -f 2 --rounds 3 --csv $D/compare-n2.csv > $D/compare-n2.txt 2>&1
uptime
cc -O3 -o "${TMPDIR:-/tmp}/limits" perf/limits.c && "${TMPDIR:-/tmp}/limits" -p 512K --sizes 1M,2M,4M --csv > $D/limits-sizes.csv 2> $D/limits-sizes.err
uptime
python3 perf/model.py $D/limits-sizes.csv $D/compare-n2.csv > $D/model-n2.md
