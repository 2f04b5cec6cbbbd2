#!/bin/bash
# ab_final.sh: base (main 6486766) against this branch's build, reduce, interleaved (abc.sh),
# each rank count one machine-lock call.
B=/work/wt/base/_inst N=/work/wt/s18b/_inst
/work/tools/qlock x env NP=4 ./abc.sh abf-reduce-n4.txt 12 reduce "-b 64K -e 1M -f 2" base=$B new=$N
/work/tools/qlock x env NP=3 ./abc.sh abf-reduce-n3.txt 8 reduce "-b 64K -e 512K -f 2" base=$B new=$N
/work/tools/qlock x env NP=5 ./abc.sh abf-reduce-n5.txt 8 reduce "-b 64K -e 512K -f 2" base=$B new=$N
