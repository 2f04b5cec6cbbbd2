#!/bin/bash
# ab_gb_env.sh OUT LAUNCHES NP PREFIX "ENV=V ...": interleaved graph_bench -m overlap --iters 3
# launches of one installed build, arm "base" as it is and arm "new" with the given environment
# (order reversed every other launch), "# launch K ARM" + uptime before each; summaries as
# perf/results/s13-lead/ab_gb.sh's (s12c/armsum.py, s13a/freesum.py).
out=$1; n=$2; np=$3; pre=$4; read -r -a envs <<<"$5"
for k in $(seq 1 $n); do
  arms="base new"; [ $((k % 2)) -eq 0 ] && arms="new base"
  for a in $arms; do
    e=(); [ $a = new ] && e=("${envs[@]}")
    echo "# launch $k $a $(uptime)" >> $out
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/graph_bench -m overlap --iters 3 >> $out 2>&1
  done
done
