#!/bin/bash
# Issue 15: the size rule's cost at 8-512 B, main (fd34edd, /work/wt/integ) against s7l, interleaved
# rounds, each an in-process A/B against plain MPI. Quiet.
O=/work/wt/s7l/perf/results/s7l; mkdir -p $O
log() { echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/') $*" | tee -a $O/uptime.log; }
for r in 1 2 3 4 5; do
  for b in integ s7l; do
    log "round $r $b"
    (cd /work/wt/$b && PLX_PREFIX=/work/wt/$b/_inst perf/compare -n 2 --mpi-layer --layer-only -c bcast,reduce,alltoall,gather,scatter,reduce_scatter,allgather -b 8 -e 512 -f 8 --rounds 1 --keep /tmp/lay3/$b-$r > $O/ab-$b-$r.txt 2>&1)
  done
done
log done
