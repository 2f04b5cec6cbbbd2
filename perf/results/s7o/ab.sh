#!/bin/bash
# ab.sh NRANKS LAUNCHES TAG plx_perf-args...  -- PLX_PROGRESS=thread plx_perf --overlap,
# launches alternating base (main daead0a = /work/wt/integ at 0a68ad9, same code) / new
# (this worktree); uptime before every launch.  Run under /work/tools/qlock x.
n=$1; L=$2; tag=$3; shift 3
for i in $(seq 1 $L); do
  for v in base $tag; do
    if [ $v = base ]; then d=/work/wt/integ; else d=/work/wt/s7o; fi
    echo "== $v launch $i n $n $(date +%T) $(uptime)"
    PLX_PROGRESS=thread LD_LIBRARY_PATH=$d/.libs timeout 100 $d/tools/plexusrun -n $n $d/perf/.libs/plx_perf -c allreduce -f 4 --overlap "$@" 2>&1 | grep -v "^# [A-Z]\|^#$\|^# all\|^# allreduce\|^# plx_perf"
  done
done
