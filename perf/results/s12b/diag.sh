#!/bin/bash
# perf/results/s12b/diag.sh BASE OUT [N]: N (10) launches of 4-rank alltoall 4 MiB, each rank under
# /usr/bin/time (wall, user, sys, involuntary / voluntary context switches, major / minor faults)
# and its THP counters before/after, to tell a slow launch from a fast one.  Under qlock x.
B=$1 O=$2 N=${3:-10}
for i in $(seq 1 $N); do
    echo "# launch $i $(uptime) thp_collapse_alloc=$(awk '/thp_collapse_alloc /{print $2}' /proc/vmstat) thp_collapse_alloc_failed=$(awk '/thp_collapse_alloc_failed/{print $2}' /proc/vmstat)" >>$O
    PLX_PREFIX=$B timeout 60 $B/bin/plexusrun -n 4 /usr/bin/time -f "rank e=%e u=%U s=%S ivcs=%c vcs=%w maj=%F min=%R" \
        $B/bin/plx_perf --coll alltoall -b 4M -e 4M 2>&1 | grep -v '^#' | grep -E '4194304|rank e=' >>$O
done
