#!/bin/bash
# perf/results/s12b/ab8.sh BASE NEW OUTDIR: direct reduce with twice the piece where ranks outnumber cores (NEW: a build of the branch with that change in node_direct.c work(), dropped after ab9):
# reduce 512K-4M at 3, 4, 5 ranks, base against it; R (10) rounds.
B=$1 N=$2 O=$3 R=${R:-10}
for np in 4 3 5; do
    NP=$np $(dirname "$0")/../s10g/ab.sh $O/ab8-n$np.txt $R "reduce" "-b 512K -e 4M -f 2" base=$B new=$N
done
