#!/bin/bash
# strace.sh BUILD COLL SIZE ITERS: strace -c -f of one rank pair's plx_perf COLL at SIZE (syscall counts per call)
D=$1; C=$2; S=$3; I=$4
LD_LIBRARY_PATH=$D/.libs $D/tools/plexusrun -n 2 strace -f -c -o /tmp/strace_s12a.%p.txt -e trace=process_vm_readv,process_vm_writev,sched_yield,futex,nanosleep,madvise $D/perf/.libs/plx_perf --coll $C -b $S -e $S -n $I -w 5 -c 1 | grep -v '^#' | grep .
for f in /tmp/strace_s12a.*.txt; do echo "== $f"; cat $f; done; rm -f /tmp/strace_s12a.*.txt
