#!/bin/bash
# final.sh: perf/small_ratio.sh, before / main / s7s, 8 rounds, 2 and 4 ranks (each its own qlock x call)
cd /work/wt/s7s; D=perf/results/s7s
until grep -q "^## coll" $D/tests.txt 2>/dev/null; do sleep 5; done   # the build of this tree is done
/work/tools/qlock x perf/small_ratio.sh $D/small-n4.txt 4 8 reduce,allreduce,bcast before=/work/wt/h13r-before main=/work/wt/integ s7s=/work/wt/s7s
/work/tools/qlock x perf/small_ratio.sh $D/small-n2.txt 2 8 reduce,allreduce,bcast before=/work/wt/h13r-before main=/work/wt/integ s7s=/work/wt/s7s
