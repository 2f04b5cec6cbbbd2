#!/bin/bash
# bcast at 4 ranks: main against star (S8F_BSTAR=1) and E (=3: non-roots read
# the head N-N/4 from the root, the root writes the tails) of the knob tree.
# usage: ab-bE.sh MAIN_PREFIX KNOB_TREE  (MPI_BENCH, UPLOG as dist.sh)
B=$1 K=$2; here=$(dirname $0)
$here/dist.sh bcast 256K 10 main=$B k=$K%S8F_BSTAR=1 k=$K%S8F_BSTAR=3 ompi-ob1 ompi-def
$here/dist.sh bcast 1M 5 main=$B k=$K%S8F_BSTAR=3 ompi-ob1
