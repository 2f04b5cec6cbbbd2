#!/bin/bash
# scatter512.sh OUT LAUNCHES PREFIX: 4-rank scatter 256 KiB-1 MiB, arm base (defaults) and arm
# slots512 (PLX_SHM_COLL_BYTES=512K and a PLX_TUNE row sending 128 KiB blocks at 4 ranks to
# shm_slots), interleaved, order reversed every other launch; OUT lines as perf/results/s10g/ab.sh's.
out=$1; n=$2; pre=$3
T='scatter:1K-32K/2-2@shm_slots,33K-129K/4-4@shm_slots,33K-65K/5-5@shm_slots,33K-86K/3-3@shm_slots,256K-inf/2-2@direct,64K-inf/4-4@direct,85K-inf/3-3@direct,4K-32K/4-5@linear,0-32K@binomial,32K-inf@linear'
for k in $(seq 1 $n); do
  arms="base slots512"; [ $((k % 2)) -eq 0 ] && arms="slots512 base"
  for a in $arms; do
    e=(); [ $a = slots512 ] && e=(PLX_SHM_COLL_BYTES=524288 "PLX_TUNE=$T")
    ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a $(uptime)" >> $out
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n 4 $pre/bin/plx_perf --coll scatter -b 256K -e 1M -f 2 2>&1 |
      awk -v r=$k -v n=$a -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "scatter", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
  done
done
