#!/bin/bash
# one qlock x hold: overlap A/B, then t_comm alone (blocking and nonblocking with the thread,
# blocking without it).  hold1.sh BASE NEW TAG
b=$1; d=$2; t=$3
./ab.sh $b $d 2 16 thread -f 4 --overlap -b 1M -e 4M > ab$t-n2.txt 2>&1
./ab.sh $b $d 2 16 thread -f 4 -b 1M -e 4M > tcomm-thread-blk$t-n2.txt 2>&1
./ab.sh $b $d 2 16 thread -f 4 --nonblocking -b 1M -e 4M > tcomm-thread-nb$t-n2.txt 2>&1
./ab.sh $b $d 2 16 - -f 4 -b 1M -e 4M > tcomm-none-blk$t-n2.txt 2>&1
