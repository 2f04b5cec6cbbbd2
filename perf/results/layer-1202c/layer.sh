#!/bin/bash
# Issue 15 quiet window: the final layer, both MPIs, 2 and 4 ranks, 8 B-64 MiB.
cd /work/wt/integ
O=perf/results/layer-1202c; mkdir -p $O
log() { echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/') $*" | tee -a $O/uptime.log; }
log start
log n2-small; perf/compare -n 2 --mpi-layer --layer-only -b 8 -e 16M -f 8 --rounds 3 --keep /tmp/lay/n2 > $O/layer-n2.txt 2>&1
log n2-64M;   perf/compare -n 2 --mpi-layer --layer-only -b 64M -e 64M --rounds 3 --ab-time 1 --keep /tmp/lay/n2b > $O/layer-n2-64M.txt 2>&1
log n4-small; perf/compare -n 4 --mpi-layer --layer-only -b 8 -e 16M -f 8 --rounds 3 --keep /tmp/lay/n4 > $O/layer-n4.txt 2>&1
log n4-64M;   perf/compare -n 4 --mpi-layer --layer-only -b 64M -e 64M --rounds 2 --ab-time 1.5 --keep /tmp/lay/n4b > $O/layer-n4-64M.txt 2>&1
log n4-32K;   perf/compare -n 4 --mpi-layer --layer-only -c gather,reduce_scatter -b 32K -e 32K --rounds 10 --keep /tmp/lay/n4c > $O/layer-n4-32K-10.txt 2>&1
log done
