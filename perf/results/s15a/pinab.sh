#!/bin/bash
# pinab.sh OUT LAUNCHES PREFIX PINS...: 4-rank scatter 512 KiB with the ranks pinned (s14b's pin.sh:
# the PLX_RANK-th character of PIN is the rank's CPU), arms base (defaults) and slots512
# (PLX_SHM_COLL_BYTES=512K and s14-lead's PLX_TUNE row), interleaved per launch and placement.
out=$1; n=$2; pre=$3; shift 3
T='scatter:1K-32K/2-2@shm_slots,33K-129K/4-4@shm_slots,33K-65K/5-5@shm_slots,33K-86K/3-3@shm_slots,256K-inf/2-2@direct,64K-inf/4-4@direct,85K-inf/3-3@direct,4K-32K/4-5@linear,0-32K@binomial,32K-inf@linear'
pin=$(cd "$(dirname "$0")/../s14b" && pwd)/pin.sh
for k in $(seq 1 $n); do
  for P in "$@"; do
    arms="base slots512"; [ $((k % 2)) -eq 0 ] && arms="slots512 base"
    for a in $arms; do
      e=(); [ $a = slots512 ] && e=(PLX_SHM_COLL_BYTES=524288 "PLX_TUNE=$T")
      ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a PIN=$P $(uptime)" >> $out
      env "${e[@]}" PIN=$P PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n 4 bash $pin $pre/bin/plx_perf --coll scatter -b 512K -e 512K 2>&1 |
        awk -v r=$k -v n=$a-$P -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "scatter", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
    done
  done
done
