#!/bin/bash
# thp_cma.sh BIN: 4 KiB pages against THP for the CMA pair (thp_cma.c), interleaved; then
# what MADV_COLLAPSE of a populated buffer costs (collapse_cost.c built as /tmp/coll)
B=${1:-/tmp/thp_cma}
for r in 1 2 3; do
  uptime
  for sz in $((1<<20)) $((4<<20)) $((16<<20)); do
    for t in 0 1; do $B $sz $((512<<10)) $(( (64<<20) / sz * 4 )) $t; done
  done
done
uptime
for sz in $((4<<20)) $((16<<20)); do /tmp/coll $sz; done
