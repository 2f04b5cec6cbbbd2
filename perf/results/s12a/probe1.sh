#!/bin/bash
# probe1.sh PERCALL LIMITS BASE: (BASE: the base build, whose plexusrun launches) the library against the raw byte movement (percall) at 4-64 MiB alltoall
# and allgather, malloc'd and 2 MiB-aligned buffers, raw read in one call and in 512 KiB pieces.
P=$1; L=$2; B=$3
for s in 16M 64M 4M; do for c in alltoall allgather; do
  for v in "" "PERCALL_PIECE=524288" "PERCALL_ALIGN=1" "PERCALL_ALIGN=1 PERCALL_PIECE=524288"; do
    echo "### $c $s [$v] $(uptime)"
    env $v $B/_inst/bin/plexusrun -n 2 $P $c $s 6 40 | grep -v '^$' | sort
  done; done; done
echo "### limits $(uptime)"; $L -p 512K --sizes 4M,16M,64M --csv | grep -E 'exch|memcpy_gbps'
