#!/bin/bash
# perf/results/s12b/ab4.sh BASE OUTDIR: 4-rank alltoall 1-4 MiB, base unbound (plexusrun's
# default with more ranks than cores) against base with PLX_BIND_TO=core (rank r on core r mod 2);
# R (10) rotated rounds.  Under qlock x.
B=$1 O=$2 R=${R:-10}
NP=4 $(dirname "$0")/../s10g/ab.sh $O/ab4-bind.txt $R "alltoall" "-b 1M -e 4M -f 2" base=$B bind=$B:PLX_BIND_TO=core
