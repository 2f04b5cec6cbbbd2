#!/bin/bash
# process_vm_* calls of graph_bench -m overlap (2 ranks): --iters 1 and 5 differ by 4 graph launches
W=/work/wt/s5g; cd /tmp/s5g
for it in 1 5; do
  LD_LIBRARY_PATH=$W/.libs strace -f -c -e trace=process_vm_readv,process_vm_writev -o /tmp/s5g/strace_it$it.txt \
    $W/tools/plexusrun -n 2 $W/perf/.libs/graph_bench -m overlap --iters $it --compute idle --policies comm_first > /tmp/s5g/strace_it$it.out 2>&1
done
