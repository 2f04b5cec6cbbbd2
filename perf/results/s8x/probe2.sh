#!/bin/bash
# probe2.sh OUTDIR LAUNCHES PROBE_TREE: the probe build (probe.diff applied), launches interleaved:
# default waits, then S8X_SPIN_US=4000 (spin up to 4 ms in meet and drain before the engine yields)
set -u
o=$1; n=$2; t=$3
mkdir -p "$o"
for i in $(seq 1 "$n"); do for v in def spin4; do for c in allgather alltoall; do
    d=$o/$v-l$i-$c; mkdir -p "$d"
    e=(); [ $v = spin4 ] && e=(S8X_SPIN_US=4000)
    echo "# $v launch $i $c $(uptime)" >>"$o/perf.txt"
    env "${e[@]}" S8X_PROBE=$d LD_LIBRARY_PATH=$t/.libs timeout 60 "$t/tools/plexusrun" -n 2 \
        "$t/perf/.libs/plx_perf" --coll $c -b 1M -e 4M -f 4 -n 300 -w 5 2>&1 | grep -E "^ +[0-9]" >>"$o/perf.txt"
done; done; done
