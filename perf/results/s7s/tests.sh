#!/bin/bash
# tests.sh PART: the correctness runs of this branch, one part per qlock s call
cd /work/wt/s7s
case $1 in
build) nice -n 19 make -j2 libplexus.la tools/plexusrun tools/plexus_info tests/mr/coll_check >/tmp/s7s-tb.log 2>&1 || { tail -20 /tmp/s7s-tb.log; exit 1; }
       nice -n 19 make -j2 tests/mr/direct_kill_check tests/mr/direct_mismatch_check tests/mr/mismatch_check tests/mr/stress_check tests/mr/coll_check >>/tmp/s7s-tb.log 2>&1 || { tail -20 /tmp/s7s-tb.log; exit 1; }
       echo built ;;
coll)  # coll_check, every collective at the default table (reduce now shm_slots at 2 ranks <= 32 KiB and 4 ranks from 16 KiB)
       for n in 1 2 3 4 5; do
         PLX_BIND_TO=none nice -n 19 timeout 280 tools/plexusrun -n $n tests/mr/coll_check --coll reduce,comm 2>&1 | grep -E "failures|FAIL|rror" | sort | uniq -c | head -5
       done
       for n in 2 4; do
         PLX_BIND_TO=none nice -n 19 timeout 280 tools/plexusrun -n $n tests/mr/coll_check --quick 2>&1 | grep -E "failures|FAIL|rror" | sort | uniq -c | head -5
       done ;;
*)     PLX_BIND_TO=none nice -n 19 make check TESTS="$1" 2>&1 | grep -E "^(PASS|FAIL|ERROR|SKIP)|# (PASS|FAIL|ERROR)" ;;
esac
