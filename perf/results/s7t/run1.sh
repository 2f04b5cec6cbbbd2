#!/bin/bash
# perf/results/s7t/run1.sh -- step 1+2: per-phase probe and variants, 2 ranks
# alltoall 1-4 MiB (8 rounds, with perf/limits' exchange figure per round), and
# 4 ranks alltoall 256 KiB (8 rounds, with Open MPI ob1/vader).  Run under qlock x
# from the worktree root with the probe build (perf/results/s7t/probe.diff).
cd "$(dirname "$0")/../../.." || exit 1
R=perf/results/s7t
uptime
LIMITS=/tmp/s7t_limits $R/ab.sh $R/ab1-n2.txt 8 2 alltoall 1M,4M base \
    p0:S7T_PROBE=1 \
    pO:S7T_PROBE=1,S7T_ORDER=1 \
    p1M:S7T_PROBE=1,S7T_SHFROM=1048576 \
    pH:S7T_PROBE=1,S7T_SHFROM=1048576,S7T_HALVE=1 \
    pH512:S7T_PROBE=1,S7T_SHFROM=524288,S7T_HALVE=1
uptime
MPIB=/tmp/s7t_mpi_bench $R/ab.sh $R/ab1-n4.txt 8 4 alltoall 256K base ompi \
    p0:S7T_PROBE=1 \
    pw:PLX_TUNE=alltoall:0-inf@pairwise \
    lin:PLX_TUNE=alltoall:0-inf@linear \
    slots:PLX_TUNE=alltoall:0-inf@shm_slots
uptime
