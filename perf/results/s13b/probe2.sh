#!/bin/bash
# probe2.sh OUTDIR LAUNCHES: lone-sleep variants with the probe
# (S13B_NOPAIR, S13B_LONE_US, S13B_NAP_NS: temporary toggles of the probe build, since removed; see perf/RESULTS.md, session s13b)
set -u
o=$1; L=$2; P=${PREFIX:?an installed build}
mkdir -p $o
for l in $(seq 1 $L); do
  for arm in off fut nap; do
    e=(S13B_NOPAIR=1); [ $arm = fut ] && e+=(S13B_LONE_US=50); [ $arm = nap ] && e+=(S13B_LONE_US=50 S13B_NAP_NS=50000)
    echo "# $l $arm $(uptime)" >> $o/log
    env "${e[@]}" PLX_DIRECT_PROBE_OUT=$o/a2a.$l.$arm $P/bin/plexusrun -n 4 $P/bin/plx_perf --coll alltoall -b 4M -e 4M 2>&1 | awk -v l=$l -v a=$arm '!/^#/ && $1 ~ /^[0-9]+$/ {print "a2a", l, a, $1, $6}' >> $o/log
    env "${e[@]}" PLX_DIRECT_PROBE_OUT=$o/red.$l.$arm $P/bin/plexusrun -n 4 $P/bin/plx_perf --coll reduce -b 2M -e 2M 2>&1 | awk -v l=$l -v a=$arm '!/^#/ && $1 ~ /^[0-9]+$/ {print "red", l, a, $1, $6}' >> $o/log
  done
done
