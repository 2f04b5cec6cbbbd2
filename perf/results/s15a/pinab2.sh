#!/bin/bash
# pinab2.sh OUT LAUNCHES BASE_PREFIX NEW_PREFIX NP SIZE PINS...: NP-rank scatter of SIZE bytes with
# the ranks pinned (s14b's pin.sh: the PLX_RANK-th character of PIN is the rank's CPU), arms base
# and new (two installed builds, defaults), interleaved per launch and placement.
out=$1; n=$2; bpre=$3; npre=$4; np=$5; sz=$6; shift 6
pin=$(cd "$(dirname "$0")/../s14b" && pwd)/pin.sh
for k in $(seq 1 $n); do
  for P in "$@"; do
    arms="base new"; [ $((k % 2)) -eq 0 ] && arms="new base"
    for a in $arms; do
      pre=$bpre; [ $a = new ] && pre=$npre
      ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a PIN=$P $(uptime)" >> $out
      env PIN=$P PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np bash $pin $pre/bin/plx_perf --coll scatter -b $sz -e $sz 2>&1 |
        awk -v r=$k -v n=$a-$P -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "scatter", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
    done
  done
done
