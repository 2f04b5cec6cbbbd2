#!/bin/bash
# probe.sh DIR NRANKS LAUNCHES: a build of DIR with s7o's temporary probe (perf/results/s7o/probe.diff.txt);
# PLX_PROGRESS=thread plx_perf --overlap 1-4 MiB, PROBE lines per rank (medians [q1,q3,p90], us after
# the post).  Run under qlock x.
d=$1; n=$2; L=$3
for i in $(seq 1 $L); do
  echo "== launch $i n $n $(date +%T) $(uptime)"
  PLX_PROGRESS=thread LD_LIBRARY_PATH=$d/.libs timeout 100 $d/tools/plexusrun -n $n $d/perf/.libs/plx_perf -c allreduce -f 4 --overlap -b 1M -e 4M 2>&1 | grep -v "^# [A-Z]\|^#$\|^# all\|^# allreduce\|^# plx_perf"
done
