#!/bin/bash
# abperf.sh N LAUNCHES OUT: plx_perf allreduce 64 KiB-16 MiB, base vs new library, alternating
n=$1; L=$2; out=$3
W=/work/wt/s5g
for i in $(seq 1 $L); do
  if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    if [ $b = base ]; then lib=/work/wt/integ/_inst/lib; else lib=$W/.libs; fi
    for v in "-o avg" "-o avg --in-place" "-o sum"; do
      echo "# launch $i $b $v n $n $(uptime)" >> $out
      LD_LIBRARY_PATH=$lib timeout 60 $W/tools/plexusrun -n $n $W/perf/.libs/plx_perf -c allreduce -b 64K -e 16M -f 4 $v 2>&1 \
        | awk -v b=$b -v i=$i -v v="$v" '!/^#/ && $1 ~ /^[0-9]+$/ {print i, b, v, $0}' >> $out
    done
  done
done
echo "# end $(uptime)" >> $out
