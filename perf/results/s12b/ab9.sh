#!/bin/bash
# perf/results/s12b/ab9.sh BASE NEW OUTDIR: the second window of ab8's 4-rank cells that change
# (2 and 4 MiB: 512 KiB / 1 MiB slices, two or three pieces before, one or two now); R (16) rounds.
B=$1 N=$2 O=$3 R=${R:-16}
NP=4 $(dirname "$0")/../s10g/ab.sh $O/ab9-n4.txt $R "reduce" "-b 2M -e 4M -f 2" base=$B new=$N
