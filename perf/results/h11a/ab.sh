#!/bin/bash
# ab.sh ROUNDS COLLS SIZES VARIANT... : interleaved launches of plx_perf, 2 ranks.
# VARIANT = label:prefix:ENV=V,ENV=V (prefix: an installed tree; env optional).
# Prints: label coll bytes time_us busbw round uptime-load.  Run under qlock x.
rounds=$1 colls=$2 sizes=$3; shift 3
for ((r = 1; r <= rounds; r++)); do
  for v in "$@"; do
    IFS=: read -r lab pre envs <<<"$v"
    IFS=, read -r -a ev <<<"$envs"
    for c in ${colls//,/ }; do
      for s in ${sizes//,/ }; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        env "${ev[@]}" PLX_PREFIX=$pre LD_LIBRARY_PATH=$pre/lib $pre/bin/plexusrun -n 2 $pre/bin/plx_perf --coll $c -b $s -e $s -w 5 -c 1 2>&1 |
          awk -v l=$lab -v c=$c -v r=$r -v ld=$load '$1 ~ /^[0-9]+$/ && NF > 5 {print l, c, $1, $(NF-4), $(NF-2), r, ld; exit}'
      done
    done
  done
done
