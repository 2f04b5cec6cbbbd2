#!/bin/bash
# A rank SIGKILLed in a loop of the new default paths (shm_slots bcast and
# gather at 3-5 ranks): every survivor must get PLX_ERR_PEER_FAILED.
# Run from a build tree: perf/results/s10f/kill.sh
for spec in "4 gather 0 0 16384" "4 gather 2 0 16384" "4 gather 3 3 16384" "5 gather 1 0 8192" \
            "3 bcast 2 0 50000" "5 bcast 0 0 50000" "5 bcast 3 0 50000"; do set -- $spec
  log=$(PLX_TIMEOUT=60 PLX_LOG=info tools/plexusrun -n $1 --timeout 120 tests/mr/direct_kill_check --coll $2 \
        --victim $3 --root $4 --count $5 2>&1); rc=$?
  got=$(echo "$log" | grep -c "returned a peer process failed")
  alg=$(echo "$log" | grep -o "algorithm [a-z_]*" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  echo "n=$1 $2 victim $3 root $4 count $5: exit $rc, $got of $(($1-1)) survivors PLX_ERR_PEER_FAILED, killed: $(echo "$log" | grep -c 'died by SIGKILL'); $alg"
done
