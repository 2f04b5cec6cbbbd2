#!/bin/bash
# ab_after_mpi.sh OUT ROUNDS NP "PERF ARGS" MPIBENCH LABEL=PREFIX...: interleaved plx_perf launches
# of installed builds, each right after one MPICH run of the same sweep (mpirun.mpich -n NP
# MPIBENCH, the mpi_bench binary perf/compare builds): perf/compare's order, where a Plexus run
# follows the last round's MPICH, which busy-polls with more ranks than cores. Order of the builds
# reversed every other round; "# round K LABEL" + uptime before each; plx_perf's rows as printed.
out=$1; n=$2; np=$3; read -r -a args <<<"$4"; mb=$5; shift 5; arms=("$@")
for k in $(seq 1 $n); do
  order=("${arms[@]}")
  if [ $((k % 2)) -eq 0 ]; then order=(); for ((i=${#arms[@]}-1; i>=0; i--)); do order+=("${arms[$i]}"); done; fi
  for a in "${order[@]}"; do
    label=${a%%=*}; pre=${a#*=}
    timeout 120 mpirun.mpich -n $np $mb -L mpich "${args[@]}" > /dev/null 2>&1
    echo "# round $k $label $(uptime)" >> $out
    PLX_PREFIX=$pre timeout 120 $pre/bin/plexusrun -n $np $pre/bin/plx_perf "${args[@]}" >> $out 2>&1
  done
done
