#!/bin/bash
# final.sh BASE_PREFIX NEW_PREFIX LIMITS_BIN: the final A/B of s19a in one hold (run under qlock x):
# limits (memcpy and the model's per-size rows, 16 and 64 MiB) before and after; 2-rank allreduce
# 1-64 MiB blocking, 10 interleaved rounds (ab.sh); PLX_PROGRESS=thread --overlap 1-64 MiB, 8 per arm.
b=$1; n=$2; lim=$3; here=$(dirname "$0")
uptime > final-limits-1.csv.uptime; timeout 180 $lim -p 512K --sizes 16M,64M --csv > final-limits-1.csv 2>/dev/null
$here/../s10g/ab.sh final-ab.txt 10 allreduce "-b 1M -e 64M -f 2" base=$b new=$n
$here/ab_ovl_builds.sh final-ovl.txt 8 2 "-c allreduce -b 1M -e 64M -f 4" base=$b new=$n
uptime > final-limits-2.csv.uptime; timeout 180 $lim -p 512K --sizes 16M,64M --csv > final-limits-2.csv 2>/dev/null
