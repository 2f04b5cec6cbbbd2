#!/bin/bash
# gab.sh OUT LAUNCHES PREFIX NP TABLE: NP-rank gather 128 KiB-1 MiB, arm base (defaults) and arm row
# (PLX_TUNE=TABLE), interleaved, order reversed every other launch; OUT lines as
# perf/results/s10g/ab.sh's (launch arm coll bytes us load algo).
out=$1; n=$2; pre=$3; np=$4; T=$5
for k in $(seq 1 $n); do
  arms="base row"; [ $((k % 2)) -eq 0 ] && arms="row base"
  for a in $arms; do
    e=(); [ $a = row ] && e=("PLX_TUNE=$T")
    ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a $T $(uptime)" >> $out
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf --coll gather -b 128K -e 1M -f 2 2>&1 |
      awk -v r=$k -v n=$a -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "gather", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
  done
done
