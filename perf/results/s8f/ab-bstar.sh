#!/bin/bash
# bcast at 4 ranks: main against star (S8F_BSTAR=1) and staggered star (=2)
# of the probe/knob build tree (temporary knobs, bstar.diff).
# usage: ab-bstar.sh MAIN_PREFIX KNOB_TREE  (MPI_BENCH, UPLOG as dist.sh)
B=$1 K=$2; here=$(dirname $0)
$here/dist.sh bcast 256K 8 main=$B k=$K%S8F_BSTAR=1 k=$K%S8F_BSTAR=2 ompi-ob1
$here/dist.sh bcast 1M 5 main=$B k=$K%S8F_BSTAR=1 k=$K%S8F_BSTAR=2 ompi-ob1
