#!/bin/bash
# strace of Open MPI's 2-rank allgather/alltoall at 1 and 4 MiB
# mpi_bench.openmpi: mpicc.openmpi -O2 -o mpi_bench.openmpi perf/mpi_bench.c; writes into the current directory
for c in allgather alltoall; do
 for s in 1M 4M; do
  strace -f -qq -o st.ompi.$c.$s.txt -e trace=process_vm_readv,process_vm_writev mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 --mca pml ob1 --mca btl self,vader ./mpi_bench.openmpi -L openmpi -c $c -b $s -e $s -n 200 -w 5 > out.ompi.$c.$s.txt 2>&1
  strace -f -qq -c -o stc.ompi.$c.$s.txt mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 --mca pml ob1 --mca btl self,vader ./mpi_bench.openmpi -L openmpi -c $c -b $s -e $s -n 1000 -w 5 > outc.ompi.$c.$s.txt 2>&1
 done
done
