#!/bin/bash
# PREFIX=<an installed build> (main for st_plx.sh, the branch for st_new.sh); writes its files into the current directory
P=$PREFIX
for c in allgather alltoall; do
  strace -f -qq -c -o stc.new.$c.1M.txt $P/bin/plexusrun -n 2 $P/bin/plx_perf --coll $c -b 1M -e 4M -f 2 -n 1000 -w 5 > outc.new.$c.txt 2>&1
done
W=.
PLX_PREFIX=$P PLX_DIRECT_THP=1 PLX_LOG=none strace -f -qq -c -o stc.kill.txt $P/bin/plexusrun -n 2 $W/tests/mr/direct_kill_check --coll allgather --victim 7 --count 131072 --huge > out.kill.txt 2>&1
PLX_PREFIX=$P PLX_LOG=none strace -f -qq -c -o stc.kill0.txt $P/bin/plexusrun -n 2 $W/tests/mr/direct_kill_check --coll allgather --victim 7 --count 131072 --huge > out.kill0.txt 2>&1
