#!/bin/bash
# one qlock x hold: the full overlap range at 2 and 4 ranks.  hold2.sh BASE NEW LAUNCHES TAG
b=$1; d=$2; L=$3; t=$4
./ab.sh $b $d 2 $L thread -f 4 --overlap -b 1M -e 64M > full$t-n2.txt 2>&1
./ab.sh $b $d 4 $L thread -f 4 --overlap -b 1M -e 64M > full$t-n4.txt 2>&1
