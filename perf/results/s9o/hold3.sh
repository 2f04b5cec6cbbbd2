#!/bin/bash
# one qlock x hold: the timer's cost on a shared CPU (timer.c), then 4 ranks: t_comm alone
# (nonblocking, thread) and the overlap at 1-4 MiB.  hold3.sh BASE NEW TIMER_BINARY
b=$1; d=$2; tm=$3
for c in 0 1; do echo "== cpu $c $(uptime)"; $tm 90 0.5 $c; done > timer.txt 2>&1
./ab.sh $b $d 4 8 thread -f 4 --nonblocking -b 1M -e 4M > tcomm-thread-nb4-n4.txt 2>&1
./ab.sh $b $d 4 10 thread -f 4 --overlap -b 1M -e 4M > ab4-n4.txt 2>&1
