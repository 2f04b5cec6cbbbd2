#!/bin/bash
# perf/results/s9x/ab_thp.sh OUT ROUNDS BASE_PREFIX NEW_PREFIX BASE_PERCALL NEW_PERCALL:
# 2 ranks, percall.c with 2 MiB-aligned buffers (PERCALL_ALIGN=1), allgather and alltoall
# 1 MiB and 2 MiB (total), base and new build interleaved per round (or COLLS="..." at
# SIZES="..."; allreduce and bcast: the library only).
# OUT lines: round pc-LABEL <percall output>.  Run under qlock x.
set -u
out=$1; rounds=$2; bp=$3; np=$4; bpc=$5; npc=$6
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
    for c in ${COLLS:-allgather alltoall}; do for sz in ${SIZES:-1M 2M}; do
        for v in base new; do
            if [ $v = base ]; then p=$bp; pc=$bpc; else p=$np; pc=$npc; fi
            echo "# $r $v $c $sz $(uptime)" >>"$out"
            PERCALL_ALIGN=1 PLX_PREFIX=$p timeout 60 "$p/bin/plexusrun" -n 2 "$pc" $c $sz 8 50 2>&1 | sed "s/^/$r pc-$v /" >>"$out"
        done
    done; done
done
echo "# end $(uptime)" >>"$out"
