#!/bin/bash
# ranks35.sh: allreduce 256 KiB-16 MiB at 3, 4 and 5 ranks, base against new (6 rounds each, ab.sh),
# then limits at N = 16 and 32 MiB three times (the 16 MiB op's working set is limits' at 32 MiB).
b=$1; n=$2; lim=$3; here=$(dirname "$0")
for np in 3 4 5; do NP=$np $here/../s10g/ab.sh ranks$np-ab.txt 6 allreduce "-b 256K -e 16M -f 4" base=$b new=$n; done
for k in 1 2 3; do uptime > ws-limits-$k.uptime; timeout 180 $lim -p 512K --sizes 16M,32M --csv > ws-limits-$k.csv 2>/dev/null; done
