#!/bin/bash
# drive.sh TAG COLLS CHUNK... : run chunks of MPICH's coll suite through the layer snapshot in /tmp/s5p_base
tag=$1 colls=$2; shift 2
out=/tmp/s5p_conf/res-$tag; mkdir -p $out
for c in "$@"; do
  case $c in ompi_*) m=openmpi ;; mpich_*) m=mpich ;; esac
  s=$(date +%s)
  top_builddir=/tmp/s5p_base top_srcdir=/work/wt/s5p PLX_MPICH_SRC=$(ls -d /tmp/i15_suite/src/mpich-*/ | head -1) \
   timeout 900 nice -n 19 /work/tools/qlock s /work/wt/s5p/tests/mpi/run_mpich_suite.sh --mpi $m --mode failures \
     --tests /tmp/s5p_conf/$c --work /tmp/s5p_suite --colls $colls > $out/$c.out 2>&1
  rc=$?
  cp /tmp/s5p_suite/results/$m-layer.tap $out/$c-layer.tap 2>/dev/null
  [ -f /tmp/s5p_suite/results/$m-plain.tap ] && cp /tmp/s5p_suite/results/$m-plain.tap $out/$c-plain.tap && rm -f /tmp/s5p_suite/results/$m-plain.tap
  echo "$c rc=$rc $(( $(date +%s)-s ))s $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -c '^ok' $out/$c-layer.tap) ok $(grep -c '^not ok' $out/$c-layer.tap) notok" >> $out/progress.txt
done
