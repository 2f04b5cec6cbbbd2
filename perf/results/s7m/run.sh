#!/bin/bash
# perf/results/s7m/run.sh LABEL RANKS "COLLS" [compare args...]
# Issue 15 routing table (branch s7m): perf/compare --mpi-layer --layer-only,
# one collective per `qlock x` command (each < 4 minutes), uptime logged
# before and after; table to LABEL-nRANKS-COLL.txt, the per-launch raw
# rows to LABEL-nRANKS-COLL.csv (raw-ab.csv of --keep).  PLX_PREFIX and
# PLX_MPI_COLLS come from the caller's environment.
label=$1 n=$2 colls=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.." || exit 1
for c in $colls; do
    out=$here/$label-n$n-$c
    keep=/tmp/s7m-keep/$label-n$n-$c; rm -rf "$keep"
    /work/tools/qlock x bash -c "echo \"\$(date -u +%T) \$(uptime | sed 's/.*load/load/') start $label n$n $c PLX_MPI_COLLS=${PLX_MPI_COLLS:-default}\" >> $here/uptime.log
        perf/compare -n $n --mpi-layer --layer-only -c $c --keep $keep $* > $out.txt 2>&1; rc=\$?
        echo \"\$(date -u +%T) \$(uptime | sed 's/.*load/load/') end rc=\$rc\" >> $here/uptime.log"
    cp "$keep/raw-ab.csv" "$out.csv" 2>/dev/null
done
