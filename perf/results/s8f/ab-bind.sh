#!/bin/bash
# 4 ranks: main unbound (plexusrun's default when oversubscribed) against
# PLX_BIND_TO=core (ranks r and r+2 share core r mod 2), Open MPI ob1.
# usage: ab-bind.sh MAIN_PREFIX  (MPI_BENCH, UPLOG as dist.sh)
B=$1; here=$(dirname $0)
for c in bcast alltoall reduce; do $here/dist.sh $c 256K 6 main=$B main=$B%PLX_BIND_TO=core ompi-ob1; done
