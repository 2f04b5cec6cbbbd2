#!/bin/bash
# screen.sh DIR N: variants of the lone sleep (temporary S14B_* knobs, screening build only),
# interleaved unpinned probe launches, order rotating; then pinned 0111, 2 per arm (session s14b).
set -u
D=$1; N=$2; mkdir -p $D
# (first run, 09:24-09:27: V=("base" "v1:S14B_GAP0=0,S14B_GAPMAX=0,S14B_NOYT=1" "yt:S14B_GAP0=0,S14B_GAPMAX=0"
#  "ms1:S14B_SLEEP=1000000,S14B_GAP0=0.005,S14B_GAPMAX=0.05") on a build with those knobs; second: the final code)
V=(${VARIANTS:-base new})
one() { # variant file [wrapper]
  local v=$1 lab=${1%%:*} env=; [ "$v" != "$lab" ] && env=$(echo ${v#*:} | tr , ' ')
  local P=${NEW:?}/_inst a=new; [ $lab = base ] && { P=${BASE:?}/_inst; a=base; }
  echo "# $2 $(uptime)" >>$D/screen.log
  env $env PLX_PREFIX=$P timeout 60 $P/bin/plexusrun -n 4 ${3:-} /tmp/s14b_scprobe_$a 262144 6000 $D/$2 >>$D/screen.log 2>&1
}
for i in $(seq 1 $N); do
  for k in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (k + i) % ${#V[@]} ))]}; one "$v" ${v%%:*}-$i; done
done
for i in 1 2; do for v in "${V[@]}"; do for p in 0111 0001; do PIN=$p one "$v" pin$p-${v%%:*}-$i $(dirname $0)/pin.sh; done; done; done
