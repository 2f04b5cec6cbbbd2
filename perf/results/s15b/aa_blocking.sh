#!/bin/bash
# aa_blocking.sh OUTDIR LAUNCHES ITERS: 2-rank plain (blocking) plx_perf allreduce 16 MiB, ITERS
# iterations, caller-driven progress, the direct probe build (each op's times: OUTDIR/L<k>.<pid>):
# how much the first and second half of one loop differ (aa.py), the A/A of phase.py's ratio
d=$1; n=$2; it=$3
pre=$(cd "$(dirname "$0")/../../.." && pwd)/_inst
mkdir -p $d
for k in $(seq 1 $n); do
  echo "# launch $k $(uptime)" > $d/L$k.txt
  PLX_DIRECT_PROBE_OUT=$d/L$k PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n 2 $pre/bin/plx_perf -c allreduce -b 16M -e 16M -n $it >> $d/L$k.txt 2>&1
done
