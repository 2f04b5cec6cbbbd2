#!/bin/bash
# exp5.sh: a temporary build (exp5.patch, not kept) with s19b's timed staging copy at 5 ranks,
# PLX_S20B_EXP=1 timed by the wall clock (s19b's rule), =2 by the thread's CPU time (a rank
# descheduled inside the copy is not taken for a slow copy); unset: the kept code (5 ranks plain).
# 5 ranks, allgather 512 KiB-1 MiB, 20 rounds (exp5b.txt: the second run) (side.sh, c2c probe).  Run under qlock x.
: "${BASE:?base install prefix}" "${NEW:?new install prefix}"
uptime
B=512K E=1M NP=5 ./side.sh exp5b.txt 20 allgather base=$BASE plain=$NEW wall=$NEW:PLX_S20B_EXP=1 cpu=$NEW:PLX_S20B_EXP=2
uptime
