#!/bin/bash
# exp5c.sh: the third run of the experiment build (exp5.patch) through ../s10g/ab.sh: 5 ranks,
# allgather 512 KiB-1 MiB, 12 rounds, base / plain (kept code) / wall (s19b's rule at 5 ranks).
: "${BASE:?base install prefix}" "${NEW:?new install prefix}"
uptime
NP=5 ../s10g/ab.sh exp5c.txt 12 allgather "-b 512K -e 1M -f 2" base=$BASE plain=$NEW wall=$NEW:PLX_S20B_EXP=1
uptime
