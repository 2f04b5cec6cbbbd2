#!/bin/bash
# Issue 15, the new routing table (s7m) at fd34edd: what s7m's checks left out -- 4-rank gather and
# scatter, and 64 MiB at 2 and 4 ranks. Quiet (run alone).
cd /work/wt/integ
O=perf/results/layer-1202d; mkdir -p $O
log() { echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/') $*" | tee -a $O/uptime.log; }
log n4-gs;  perf/compare -n 4 --mpi-layer --layer-only -c gather,scatter -b 8 -e 16M -f 8 --rounds 3 --keep /tmp/lay2/n4gs > $O/layer-n4-gather-scatter.txt 2>&1
log n2-64M; perf/compare -n 2 --mpi-layer --layer-only -b 64M -e 64M --rounds 3 --ab-time 1 --keep /tmp/lay2/n2b > $O/layer-n2-64M.txt 2>&1
log n4-64M; perf/compare -n 4 --mpi-layer --layer-only -b 64M -e 64M --rounds 2 --ab-time 1.5 --keep /tmp/lay2/n4b > $O/layer-n4-64M.txt 2>&1
log done
