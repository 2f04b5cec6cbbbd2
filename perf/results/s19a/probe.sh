#!/bin/bash
# probe.sh OUTDIR ROUNDS PROBE_PREFIX: 2-rank allreduce 16/64 MiB with a -DPLX_DIRECT_PROBE build
# (per call and rank: rd/ar/wr/cp us = CMA reads, arithmetic, CMA writes, streaming copy);
# arms interleaved (ARMS, default "def nt inpl"): default, PLX_TMP_NT=8M (reduce into the bounce buffer,
# stream to recvbuf), bounce (PLX_TMP_BOUNCE=8M: operands via the bounce buffer, reduced into recvbuf), in place.
d=$1; n=$2; pre=$3
mkdir -p $d
for r in $(seq 1 $n); do
  for arm in ${ARMS:-def nt inpl}; do
    e=(); a=()
    [ $arm = nt ] && e=(PLX_TMP_NT=8388608)
    [ $arm = bounce ] && e=(PLX_TMP_BOUNCE=8388608)
    [ $arm = inpl ] && a=(--in-place)
    echo "# $r $arm $(uptime)" >> $d/log.txt
    env "${e[@]}" PLX_DIRECT_PROBE_OUT=$d/$arm.$r PLX_PREFIX=$pre timeout 200 $pre/bin/plexusrun -n 2 \
      $pre/bin/plx_perf -b 16M -e 64M -f 4 -c 0 "${a[@]}" 2>&1 | sed "s/^/$r $arm /" >> $d/log.txt
  done
done
