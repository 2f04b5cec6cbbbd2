#!/bin/bash
# claims_stress.sh TREE ROUNDS: repeated checked runs of claimed allreduce and reduce at 3-5
# ranks on 2 cores (direct forced), nonblocking with a progress thread and blocking with 4K
# pieces, to look for rare races in the claims; prints one line per run and a count of failures.
t=$1; n=${2:-10}; fails=0
T="allreduce:0-inf@direct;reduce:0-inf@direct"
for r in $(seq 1 $n); do
  for np in 3 4 5; do
    PLX_TUNE=$T PLX_PROGRESS=thread timeout 300 $t/tools/plexusrun -n $np --timeout 300 $t/tests/mr/coll_check --nb --counts 7,65537,524291 --coll allreduce,reduce > /tmp/cs.log 2>&1
    ok=$(grep -c "^coll_check: rank [0-9]* size [0-9]*.*: [0-9]* checks, 0 failures" /tmp/cs.log); [ "$ok" -eq "$np" ] || { fails=$((fails+1)); echo "FAIL nb np=$np round $r"; tail -5 /tmp/cs.log; }
    PLX_TUNE=$T PLX_DIRECT_PIECE=4K timeout 300 $t/tools/plexusrun -n $np --timeout 300 $t/tests/mr/coll_check --counts 100003,262147 --coll allreduce,reduce > /tmp/cs.log 2>&1
    ok=$(grep -c "^coll_check: rank [0-9]* size [0-9]*.*: [0-9]* checks, 0 failures" /tmp/cs.log); [ "$ok" -eq "$np" ] || { fails=$((fails+1)); echo "FAIL 4K np=$np round $r"; tail -5 /tmp/cs.log; }
  done
done
echo "claims_stress: $n rounds x 3 rank counts x 2 runs, $fails failed; /dev/shm: $(ls /dev/shm | wc -l) entries"
