#!/bin/bash
# ab5.sh OUT LAUNCHES PREFIX ROW: NP-rank (default 5) scatter 256 KiB-4 MiB, arm base (defaults) and arm row
# (the default scatter table with ROW put first, through PLX_TUNE), interleaved, order reversed
# every other launch (SIZES: plx_perf size options, default -b 256K -e 4M -f 2); OUT lines as perf/results/s10g/ab.sh's (launch arm coll bytes us load algo).
out=$1; n=$2; pre=$3; row=$4
T="scatter:$row,1K-32K/2-2@shm_slots,33K-65K/4-5@shm_slots,33K-86K/3-3@shm_slots,256K-inf/2-2@direct,64K-inf/4-4@direct,85K-inf/3-3@direct,4K-32K/4-5@linear,0-32K@binomial,32K-inf@linear"
for k in $(seq 1 $n); do
  arms="base row"; [ $((k % 2)) -eq 0 ] && arms="row base"
  for a in $arms; do
    e=(); [ $a = row ] && e=("PLX_TUNE=$T")
    ld=$(cut -d' ' -f1 /proc/loadavg); echo "# $k $a $row $(uptime)" >> $out
    env "${e[@]}" PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n ${NP:-5} $pre/bin/plx_perf --coll scatter ${SIZES:--b 256K -e 4M -f 2} 2>&1 |
      awk -v r=$k -v n=$a -v ld=$ld '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, "scatter", $1, $6, ld, $NF } /rror|FAIL/ { print "#", $0 }' >> $out
  done
done
