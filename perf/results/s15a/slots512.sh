#!/bin/bash
# slots512.sh OUT LAUNCHES PREFIX NP: scatter 256 KiB-1 MiB at NP ranks, arm base (defaults) and
# arm slots512 (PLX_SHM_COLL_BYTES=512K and a PLX_TUNE row sending the blocks that then fit to
# shm_slots: <=171K at 3 ranks, <=129K at 4, <=103K at 5), interleaved, order reversed every other
# launch; OUT lines as perf/results/s10g/ab.sh's (launch arm coll bytes us load algo).
# s14-lead/scatter512.sh generalised to 3-5 ranks.
out=$1; n=$2; pre=$3; np=$4
D='256K-inf/2-2@direct,64K-inf/4-4@direct,85K-inf/3-3@direct,4K-32K/4-5@linear,0-32K@binomial,32K-inf@linear'
case $np in
3) T="scatter:1K-32K/2-2@shm_slots,33K-65K/4-5@shm_slots,33K-171K/3-3@shm_slots,$D";;
4) T="scatter:1K-32K/2-2@shm_slots,33K-129K/4-4@shm_slots,33K-65K/5-5@shm_slots,33K-86K/3-3@shm_slots,$D";;
5) T="scatter:1K-32K/2-2@shm_slots,33K-65K/4-4@shm_slots,33K-103K/5-5@shm_slots,33K-86K/3-3@shm_slots,$D";;
esac
for k in $(seq 1 $n); do
  arms="base slots512"; [ $((k % 2)) -eq 0 ] && arms="slots512 base"
  for a in $arms; do
    e=(); [ $a = slots512 ] && e=(PLX_SHM_COLL_BYTES=524288 "PLX_TUNE=$T")
    ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a np=$np $(uptime)" >> $out
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf --coll scatter -b 256K -e 1M -f 2 2>&1 |
      awk -v r=$k -v n=$a -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "scatter", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
  done
done
