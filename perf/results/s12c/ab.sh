#!/bin/bash
# ab.sh RANKS LAUNCHES OUT BASE_LIBDIR ARMS: graph_bench -m overlap --iters ${ITERS:-3} --compute idle
# (comm_first, compute_first), this branch's binary (perf/.libs/graph_bench) against the base library
# (BASE_LIBDIR: main's built .libs) and this branch's (.libs), launches interleaved, the arms' order
# rotated every launch, `uptime` before each (s8g's ab.sh with ITERS).
# ARMS: comma list of base, new, or new:VAR=VALUE[:VAR=VALUE] (this branch with environment settings),
# base:VAR=VALUE likewise.  $EXTRA: more graph_bench options (e.g. --trace).  Run under qlock x.
n=$1; L=$2; out=$3; basel=$4; IFS=, read -r -a arms <<<"$5"
W=$(cd "$(dirname "$0")/../../.." && pwd)
na=${#arms[@]}
for i in $(seq 1 $L); do
  for j in $(seq 0 $((na - 1))); do
    b=${arms[$(( (i + j) % na ))]}
    env=()
    case $b in
      base) lib=$basel ;;
      base:*) lib=$basel; IFS=: read -r -a env <<<"${b#base:}" ;;
      new) lib=$W/.libs ;;
      new:*) lib=$W/.libs; IFS=: read -r -a env <<<"${b#new:}" ;;
    esac
    echo "# launch $i $(tr -c 'A-Za-z0-9_\n' _ <<<"$b") n $n $(uptime)" >> $out
    env "${env[@]}" LD_LIBRARY_PATH=$lib timeout 100 $W/tools/plexusrun -n $n $W/perf/.libs/graph_bench \
      -m overlap --iters ${ITERS:-3} --compute idle --policies comm_first,compute_first $EXTRA >> $out 2>&1
  done
done
echo "# end $(uptime)" >> $out
