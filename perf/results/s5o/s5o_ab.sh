#!/bin/bash
# usage: s5o_ab.sh NRANKS LAUNCHES plx_perf-args...  ; interleaves base (main ebfa0e7, /work/wt/integ) / new (s5o)
n=$1; L=$2; shift 2
for i in $(seq 1 $L); do
  for v in base new; do
    if [ $v = base ]; then d=/work/wt/integ; else d=/work/wt/s5o; fi
    echo "== $v launch $i n $n $(uptime)"
    PLX_PROGRESS=thread LD_LIBRARY_PATH=$d/.libs timeout 100 $d/tools/plexusrun -n $n $d/perf/.libs/plx_perf -c allreduce -f 4 --overlap "$@" 2>&1 | grep -v "^#"
  done
done
