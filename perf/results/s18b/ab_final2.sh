#!/bin/bash
# ab_final2.sh: 5 ranks again (12 rounds), then 4-rank reduce of this branch's build beside
# Open MPI (side.sh, 8 rounds, no MPICH).
B=/work/wt/base/_inst N=/work/wt/s18b/_inst
/work/tools/qlock x env NP=5 ./abc.sh abf2-reduce-n5.txt 12 reduce "-b 64K -e 512K -f 2" base=$B new=$N
/work/tools/qlock x env MPICH=0 ./side.sh side-reduce-new.txt 8 $N reduce "new=-"
