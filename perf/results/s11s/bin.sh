#!/bin/bash
# bin.sh OUT BEFORE_BUILD AFTER_BUILD [ROUNDS] -- bcast 8-128 B on binomial (PLX_TUNE forces it at
# 2 ranks; the default at 4), 20000 iterations per size, before and after through one program
# (AFTER_BUILD's plx_perf), rotated; a point-to-point schedule's cost apart from 4 ranks' scheduling.
# OUT lines: round arm coll bytes time_us algorithm (arm: NAME-nRANKS).
out=${1:?}; b=${2:?}; a=${3:?}; R=${4:-16}
for r in $(seq 1 $R); do
  echo "# round $r $(uptime)" >> $out
  for n in 2 4; do
    if [ $((r % 2)) = 1 ]; then arms="before after"; else arms="after before"; fi
    for arm in $arms; do
      case $arm in before) d=$b;; *) d=$a;; esac
      PLX_TUNE='bcast:0-inf@binomial' LD_LIBRARY_PATH=$d/.libs timeout 60 $d/tools/plexusrun -n $n $a/perf/.libs/plx_perf -c bcast -b 8 -e 128 -f 2 -n 20000 -w 2000 2>&1 |
        awk -v r=$r -v b=$arm-n$n '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, "bcast", $1, $6, $NF }' >> $out
    done
  done
done
