#!/bin/bash
# ab_tune.sh OUT ROUNDS NP PREFIX "PERF ARGS" "TUNE": interleaved plx_perf launches of one
# installed build, the default rules ("def") against PLX_TUNE=TUNE ("tune"; commas allowed),
# order reversed every other round; lines as s10g/ab.sh (round label coll bytes time_us load1
# algorithm), so perf/results/s8x/summ.py OUT summarizes (base = "def").
out=$1; rounds=$2; np=$3; pre=$4; read -r -a args <<<"$5"; tune=$6
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
  order=(def tune); [ $((r % 2)) -eq 0 ] && order=(tune def)
  for v in "${order[@]}"; do
    ld=$(cut -d' ' -f1 /proc/loadavg)
    echo "# $r $v $(uptime)" >>"$out"
    if [ $v = tune ]; then e=(PLX_TUNE="$tune"); else e=(); fi
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" 2>&1 |
      awk -v r=$r -v v=$v -v ld=$ld '/^ *[0-9]+ +[0-9]+ /{print r, (v=="def"?"base":v), c, $1, $6, ld, $NF}' c=$(echo "${args[@]}" | sed -n 's/.*--coll \([a-z_]*\).*/\1/p') >>"$out"
  done
done
