#!/bin/bash
# thread.sh: the progress-thread path of the blocking calls (run_coll_driving)
cd /work/wt/s7s
for n in 2 4; do
  PLX_PROGRESS=thread PLX_BIND_TO=none nice -n 19 timeout 250 tools/plexusrun -n $n tests/mr/coll_check --quick 2>&1 | grep -E "size $n:|FAIL|rror" | head -6
done
