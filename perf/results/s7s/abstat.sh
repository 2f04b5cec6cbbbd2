#!/bin/bash
# abstat.sh OUT ROUNDS NRANKS COLL SIZES NAME=DIR[:LIBDIR][+ENV=V]...
# Interleaved launches, one size per launch, each under `perf stat` (all
# processes of the launch: plexusrun and the ranks): per launch the time per
# call (mean / min / max over ranks, plx_perf -F or --minmax) and the
# launch's context switches, migrations and task-clock (ms of CPU).
# LIBDIR (optional): run DIR's plexusrun and plx_perf with LIBDIR's
# libplexus (to separate library from launcher/benchmark).
out=$1; rounds=$2; n=$3; coll=$4; IFS=, read -r -a sizes <<<"$5"; shift 5
st=$(mktemp)
for r in $(seq 1 "$rounds"); do
  echo "# round $r $(uptime)" >>"$out"
  for s in "${sizes[@]}"; do
    for nb in "$@"; do
      name=${nb%%=*}; d=${nb#*=}; envv=
      case $d in *+*) envv=${d#*+}; d=${d%%+*};; esac
      lib=$d/.libs; case $d in *:*) lib=${d#*:}; d=${d%%:*};; esac
      if grep -q '"minmax"' "$d/perf/plx_perf.c"; then mm=--minmax; else mm=-F; fi
      line=$(env $envv LD_LIBRARY_PATH=$lib perf stat -x, -e context-switches,cpu-migrations,task-clock -o "$st" -- \
          timeout 60 "$d/tools/plexusrun" -n "$n" "$d/perf/.libs/plx_perf" -c "$coll" -b "$s" -e "$s" -n 2000 -w 200 $mm 2>&1 |
          awk '!/^#/ && $1 ~ /^[0-9]+$/ { print $1, $6, $9, $10, $NF; exit }')
      cs=$(awk -F, '$3=="context-switches"{print $1}' "$st"); mg=$(awk -F, '$3=="cpu-migrations"{print $1}' "$st")
      tc=$(awk -F, '$3=="task-clock"{printf "%.0f", $1}' "$st")
      echo "$r $name $coll $line cs=$cs mig=$mg cpu_ms=$tc" >>"$out"
    done
  done
done
rm -f "$st"
echo "# end $(uptime)" >>"$out"
