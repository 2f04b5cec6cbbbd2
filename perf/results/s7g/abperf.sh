#!/bin/bash
# abperf.sh RANKS LAUNCHES OUT: plx_perf allreduce 256 KiB-16 MiB (avg in place, avg, sum = the
# A/A: its code did not change), base library (main at daead0a) against this branch's,
# alternating, the order swapped every launch.  Run under qlock x.
n=$1; L=$2; out=$3
W=$(cd "$(dirname "$0")/../../.." && pwd)
for i in $(seq 1 $L); do
  if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    if [ $b = base ]; then lib=/work/wt/integ/_inst/lib; else lib=$W/.libs; fi
    for v in "-o avg --in-place" "-o avg" "-o sum"; do
      echo "# launch $i $b $v n $n $(uptime)" >> $out
      LD_LIBRARY_PATH=$lib timeout 60 $W/tools/plexusrun -n $n $W/perf/.libs/plx_perf -c allreduce -b 256K -e 16M -f 4 $v 2>&1 \
        | awk -v b=$b -v i=$i -v v="$v" '!/^#/ && $1 ~ /^[0-9]+$/ {print i, b, v, $0}' >> $out
    done
  done
done
echo "# end $(uptime)" >> $out
