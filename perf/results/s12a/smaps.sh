#!/bin/bash
# smaps.sh BUILD COLL SIZE MAXB [ENV=V...]: run a 2-rank plx_perf COLL at SIZE (buffers sized for
# -e MAXB) and, after 2.5 s, print each rank's mappings over 1 MiB with AnonHugePages.
D=$1; C=$2; S=$3; M=$4; shift 4
env "$@" LD_LIBRARY_PATH=$D/.libs $D/tools/plexusrun -n 2 $D/perf/.libs/plx_perf --coll $C -b $S -e $S -n 3000 -w 5 -c 0 > /tmp/smaps_run.$$ 2>&1 &
L=$!
sleep 2.5
for p in $(pgrep -P $L; for c in $(pgrep -P $L); do pgrep -P $c; done); do
  [ "$(cat /proc/$p/comm)" = plx_perf ] || continue
  echo "== pid $p"
  python3 $(dirname $0)/thpmap.py $p; continue
  python3 - /proc/$p/smaps <<'PY'
import sys,re
r=None
for l in open(sys.argv[1]):
    m=re.match(r'^([0-9a-f]+)-([0-9a-f]+) ',l)
    if m: r=(int(m.group(1),16),int(m.group(2),16)); name=l.split()[5] if len(l.split())>5 else ''
    elif l.startswith('AnonHugePages:') and r[1]-r[0]>(1<<20):
        print(f"{r[0]:x}-{r[1]:x} {(r[1]-r[0])>>10:8d} kB start%2M={(r[0]%(2<<20))>>10} kB AnonHuge {l.split()[1]:>8} kB {name}")
PY
done
wait $L; grep -v '^#' /tmp/smaps_run.$$ | tail -2; rm -f /tmp/smaps_run.$$
