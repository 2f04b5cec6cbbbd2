#!/bin/bash
# ab.sh RANKS LAUNCHES OUT ARMS: graph_bench -m overlap --iters 3 --compute idle, this branch's
# binary (perf/.libs/graph_bench) against the base library (main at daead0a,
# /work/wt/integ/_inst/lib) and this branch's (.libs), launches interleaved, the arms' order
# rotated every launch; $EXTRA: more graph_bench options, $COMPUTE: idle (default) or busy.  ARMS: comma list of base, new, new0 (= new with
# PLX_GRAPH_WORKER_SLICE_US=0: the kernel's slice).  Run under qlock x.
n=$1; L=$2; out=$3; IFS=, read -r -a arms <<<"$4"
W=$(cd "$(dirname "$0")/../../.." && pwd)
na=${#arms[@]}
for i in $(seq 1 $L); do
  for j in $(seq 0 $((na - 1))); do
    b=${arms[$(( (i + j) % na ))]}
    env=()
    case $b in
      base) lib=/work/wt/integ/_inst/lib ;;
      new) lib=$W/.libs ;;
      new0) lib=$W/.libs; env=(PLX_GRAPH_WORKER_SLICE_US=0) ;;
    esac
    echo "# launch $i $b default n $n $(uptime)" >> $out
    env "${env[@]}" LD_LIBRARY_PATH=$lib timeout 100 $W/tools/plexusrun -n $n $W/perf/.libs/graph_bench \
      -m overlap --iters 3 --compute ${COMPUTE:-idle} --policies comm_first,compute_first $EXTRA >> $out 2>&1
  done
done
echo "# end $(uptime)" >> $out
