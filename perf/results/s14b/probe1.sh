#!/bin/bash
# probe1.sh OUTDIR: scprobe launches (session s14b), run under the machine lock.
# 1) 16 unpinned launches at 256 KiB, 6 at 128 KiB and 512 KiB; 2) pinned placements.
set -u
D=$1; P=${PREFIX:?}; mkdir -p "$D"
run() { # label bytes iters [env...]
    local l=$1 b=$2 it=$3; shift 3
    echo "# $l $b $(uptime)" >>"$D/probe1.log"
    env "$@" PLX_PREFIX=$P timeout 60 $P/bin/plexusrun -n 4 --bind-to none $WRAP /tmp/s14b_scprobe $b $it "$D/$l" >>"$D/probe1.log" 2>&1
}
WRAP=
for i in $(seq 1 16); do run u256-$i 262144 6000; done
for i in $(seq 1 6); do run u128-$i 131072 8000; run u512-$i 524288 4000; done
WRAP=$(dirname $0)/pin.sh
for i in 1 2 3 4; do
  for p in 0011 0101 0111 0001 0010; do run p$p-256-$i 262144 6000 PIN=$p; done
done
echo "# end $(uptime)" >>"$D/probe1.log"
