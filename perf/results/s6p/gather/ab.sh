#!/bin/bash
# ab.sh OUTDIR ROUNDS VARIANT... : MPICH 4 ranks, gather 16-64 KiB, mpi_bench --ab,
# one launch per variant per round, variants interleaved within a round.
# Variants: aa (no layer, --ab X: A/A), layer (preloaded, --ab X: MPI_X vs PMPI_X),
#  layerS (preloaded, --ab S: both halves MPI_X), off (preloaded with PLX_MPI=0:
#  the layer loaded, Plexus not started)
# Run under /work/tools/qlock x; the layer from $LIBS (default /tmp/s6p_base/.libs).
out=$1 rounds=$2; shift 2
libs=${LIBS:-/tmp/s6p_base/.libs}
bench=${BENCH:-/tmp/s6p_gather/mpi_bench.mpich}
sizes=${SIZES:-"-b 16K -e 64K -f 2"}
coll=${COLL:-gather}
mkdir -p "$out"
pre=(-genv LD_PRELOAD "$libs/libplexus-mpi-mpich.so" -genv LD_LIBRARY_PATH "$libs")
echo "# $(date +%T) $(uptime)" >> "$out/uptime.log"
for ((r = 1; r <= rounds; r++)); do
  for v in "$@"; do
    case $v in
      aa)     cmd=(mpirun.mpich -n 4 $bench -L aa --ab X) ;;
      layer)  cmd=(mpirun.mpich -n 4 "${pre[@]}" $bench -L layer --ab X) ;;
      layerS) cmd=(mpirun.mpich -n 4 "${pre[@]}" $bench -L layerS --ab S) ;;
      off)    cmd=(mpirun.mpich -n 4 "${pre[@]}" -genv PLX_MPI 0 $bench -L off --ab X) ;;
      *) echo "unknown variant $v" >&2; exit 2 ;;
    esac
    timeout -k 5 60 "${cmd[@]}" -c $coll $sizes --ab-time 0.3 --csv "$out/$v.$r.csv" > "$out/$v.$r.log" 2>&1 || echo "$v $r rc=$?" >> "$out/uptime.log"
  done
done
echo "# $(date +%T) $(uptime)" >> "$out/uptime.log"
