#!/bin/bash
# profile.sh BUILD COLL SIZE OUT: perf record of a 2-rank plx_perf COLL at SIZE (both ranks), report by symbol
D=$1; C=$2; S=$3; O=$4
LD_LIBRARY_PATH=$D/.libs perf record -q -F 2000 -o /tmp/perf_s12a.data -- $D/tools/plexusrun -n 2 $D/perf/.libs/plx_perf --coll $C -b $S -e $S -n 1500 -w 5 -c 0 > /dev/null 2>&1
perf report -i /tmp/perf_s12a.data --no-children --sort comm,dso,symbol --stdio 2>/dev/null | grep -v '^#' | grep . | head -40 > $O
rm -f /tmp/perf_s12a.data
