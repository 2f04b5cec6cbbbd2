#!/bin/bash
# abc.sh OUT ROUNDS COLL "PERF ARGS" VARIANT...: interleaved plx_perf launches (NP ranks, default 4),
# order reversed every other round; before each launch the c2c probe (s17b's c2c.c: CPU 0 <-> 1
# cache-line round trip, 51-94 ns one die, ~300+ ns two) is logged with uptime.
# VARIANT: LABEL=PREFIX[:ENV=V,ENV=V...].  OUT lines: round label coll bytes time_us load1 rtt_ns.
set -u
out=$1; rounds=$2; coll=$3; read -r -a args <<<"$4"; shift 4
vars=("$@"); C2C=${C2C:-/tmp/s18b-bench/c2c}
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
  order=("${vars[@]}")
  if [ $((r % 2)) -eq 0 ]; then order=(); for ((i=${#vars[@]}-1; i>=0; i--)); do order+=("${vars[$i]}"); done; fi
  for v in "${order[@]}"; do
    label=${v%%=*}; rest=${v#*=}; pre=${rest%%:*}; envs=()
    [ "$pre" != "$rest" ] && IFS=, read -r -a envs <<<"${rest#*:}"
    ld=$(cut -d' ' -f1 /proc/loadavg); rtt=$($C2C | awk '{print $3}')
    echo "# $r $label $coll rtt $rtt $(uptime)" >>"$out"
    env "${envs[@]}" PLX_PREFIX=$pre timeout 120 "$pre/bin/plexusrun" -n "${NP:-4}" \
        "$pre/bin/plx_perf" --coll $coll "${args[@]}" 2>&1 |
      awk -v r="$r" -v n="$label" -v ld="$ld" -v c=$coll -v rt="$rtt" '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, ld, rt, $NF }
          /rror|FAIL/ { print "#", $0 }' >>"$out"
  done
done
echo "# end $(uptime)" >>"$out"
