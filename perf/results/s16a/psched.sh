#!/bin/bash
# psched.sh OUTDIR K: launch K of the 4-rank 4 MiB overlap run (probe build, PLX_OVL_PROBE) under
# `perf sched record -k CLOCK_MONOTONIC -a` (timestamps comparable with the probe's); perf itself
# slows the collective 2-2.5x
d=$1; k=$2
pre=$(cd "$(dirname "$0")/../../.." && pwd)/_inst
mkdir -p $d
echo "# launch $k $(uptime)" > $d/L$k.txt
perf sched record -k CLOCK_MONOTONIC -a -o $d/L$k.perf -- env PLX_OVL_PROBE=$d/L$k PLX_PROGRESS=thread PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n 4 $pre/bin/plx_perf -c allreduce -b 4M -e 4M --overlap >> $d/L$k.txt 2>$d/L$k.err
