#!/bin/bash
# allred 4 -count=100 under Open MPI: plain, layer default table, layer all routed, layer default with PLX_LOG=info
cd /tmp/s7m_suite/openmpi/coll
L=/tmp/s7m_suite/lib-both
M="mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for mode in plain default all default10 default-info; do
  case $mode in
  plain) timeout 60 $M -n 4 ./allred -count=100 ;;
  default) timeout 60 $M -n 4 -x LD_PRELOAD=$L/libplexus-mpi-openmpi.so -x LD_LIBRARY_PATH=$L ./allred -count=100 ;;
  all) timeout 60 $M -n 4 -x LD_PRELOAD=$L/libplexus-mpi-openmpi.so -x LD_LIBRARY_PATH=$L -x PLX_MPI_COLLS=all ./allred -count=100 ;;
  default10) timeout 60 $M -n 4 -x LD_PRELOAD=$L/libplexus-mpi-openmpi.so -x LD_LIBRARY_PATH=$L ./allred -count=10 ;;
  default-info) timeout 60 $M -n 4 -x LD_PRELOAD=$L/libplexus-mpi-openmpi.so -x LD_LIBRARY_PATH=$L -x PLX_LOG=info ./allred -count=100 ;;
  esac 2>&1 | grep -v "^--\|^$" | grep -E "Errors|Error for|plexus-mpi: (allreduce|rank 0)|Found" | sort | uniq -c | head -12
  echo "== $mode rc=${PIPESTATUS[0]}"
done
