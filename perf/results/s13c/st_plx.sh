#!/bin/bash
# PREFIX=<an installed build> (main for st_plx.sh, the branch for st_new.sh); writes its files into the current directory
P=$PREFIX
for c in allgather alltoall; do
 for s in 1M 4M; do
  strace -f -qq -c -o stc.plx.$c.$s.txt $P/bin/plexusrun -n 2 $P/bin/plx_perf --coll $c -b $s -e $s -n 1000 -w 5 > outc.plx.$c.$s.txt 2>&1
  strace -f -qq -o st.plx.$c.$s.txt -e trace=process_vm_readv,process_vm_writev $P/bin/plexusrun -n 2 $P/bin/plx_perf --coll $c -b $s -e $s -n 200 -w 5 > out.plx.$c.$s.txt 2>&1
 done
done
