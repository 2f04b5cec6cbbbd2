#!/bin/bash
# alternate default and forced algorithm; prints per-size times per launch
cd /work/wt/h11b
c=$1 b=$2 e=$3 reps=$4; shift 4
for rep in $(seq $reps); do for t in default "$@"; do
  if [ $t = default ]; then env=(); else env=(PLX_TUNE="$c:0-inf@$t"); fi
  env "${env[@]}" ./tools/plexusrun -n ${NR:-4} ./perf/plx_perf --coll $c -b $b -e $e -f 2 -c 0 | grep -E "^ +[0-9]" | awk -v t=$t -v c=$c '{printf "%s %s %s %s\n", c, $1, t, $6}'
done; done | sort -k2,2n -k3,3 | awk '{k=$1" "$2" "$3; v[k]=v[k]" "$4} END{for(k in v) print k, v[k]}' | sort -k2,2n -k3,3
