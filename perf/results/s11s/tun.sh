#!/bin/bash
# tun.sh OUT BEFORE_BUILD AFTER_BUILD [ROUNDS] -- 2-rank bcast 1-4 KiB (shm_slots) of the two
# libraries through one program (AFTER_BUILD's plx_perf), each plain, with every allocation of
# 4 KiB or more from mmap (M: glibc.malloc.mmap_threshold=4096, so plx_perf's buffers sit at the
# same page offset whatever the library allocated before them) and with memcpy's rep movsb
# from 1 KiB (R: glibc.cpu.x86_rep_movsb_threshold=1024); rotated order, uptime per round.
# OUT lines: round arm coll bytes time_us algorithm.
out=${1:?}; b=${2:?}; a=${3:?}; R=${4:-12}
arms=(before after beforeM afterM beforeR afterR); k=${#arms[@]}
for r in $(seq 1 $R); do
  echo "# round $r $(uptime)" >> $out
  for ((j = 0; j < k; j++)); do
    arm=${arms[(r - 1 + j) % k]}
    case $arm in before*) d=$b;; *) d=$a;; esac
    case $arm in *M) t=glibc.malloc.mmap_threshold=4096;; *R) t=glibc.cpu.x86_rep_movsb_threshold=1024;; *) t=;; esac
    GLIBC_TUNABLES=$t LD_LIBRARY_PATH=$d/.libs timeout 60 $d/tools/plexusrun -n 2 $a/perf/.libs/plx_perf -c bcast -b 1K -e 4K -f 2 -n 20000 -w 2000 2>&1 |
      awk -v r=$r -v b=$arm '!/^#/ && $1 ~ /^[0-9]+$/ { print r, b, "bcast", $1, $6, $NF }' >> $out
  done
done
