#!/bin/bash
# ab_final3.sh: base against this branch's final build, 4 ranks 16 rounds and 3 ranks 12 rounds.
B=/work/wt/base/_inst N=/work/wt/s18b/_inst
/work/tools/qlock x env NP=4 ./abc.sh abf3-reduce-n4.txt 16 reduce "-b 64K -e 1M -f 2" base=$B new=$N
/work/tools/qlock x env NP=3 ./abc.sh abf3-reduce-n3.txt 12 reduce "-b 64K -e 512K -f 2" base=$B new=$N
