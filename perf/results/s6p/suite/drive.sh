#!/bin/bash
# drive.sh TAG COLLS CHUNK... : run chunks of MPICH's coll suite through the layer
# snapshot in /tmp/s6p_base (built from /work/wt/s6p), one work dir per TAG so that
# two settings of --colls can run side by side; one chunk per `qlock s` command
tag=$1 colls=$2; shift 2
out=/tmp/s6p_conf/res-$tag work=/tmp/s6p_suite_$tag; mkdir -p $out
for c in "$@"; do
  case $c in ompi*) m=openmpi ;; mpich*) m=mpich ;; esac
  s=$(date +%s)
  top_builddir=/tmp/s6p_base top_srcdir=/work/wt/s6p PLX_MPICH_SRC=$(ls -d /tmp/i15_suite/src/mpich-*/ | head -1) \
   timeout 600 nice -n 19 /work/tools/qlock s /work/wt/s6p/tests/mpi/run_mpich_suite.sh --mpi $m --mode failures \
     --tests /tmp/s6p_conf/$c --work $work --colls $colls > $out/$c.out 2>&1
  rc=$?
  cp $work/results/$m-layer.tap $out/$c-layer.tap 2>/dev/null
  [ -f $work/results/$m-plain.tap ] && cp $work/results/$m-plain.tap $out/$c-plain.tap && rm -f $work/results/$m-plain.tap
  rm -f $work/results/$m-layer.tap
  echo "$c rc=$rc $(( $(date +%s)-s ))s $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -c '^ok' $out/$c-layer.tap) ok $(grep -c '^not ok' $out/$c-layer.tap) notok" >> $out/progress.txt
done
