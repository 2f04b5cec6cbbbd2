#!/bin/bash
# batch3.sh TAG: the second A/B (batch1.sh TAG), then graph_bench --trace at 2 ranks (this branch,
# TL launches: where the 2-rank excess goes).  BASE: main's built tree.  Run under qlock x.
set -u
t=$1; D=$(cd "$(dirname "$0")" && pwd); B=${BASE:?main\'s built tree}
bash $D/batch1.sh "$t"
EXTRA=--trace bash $D/ab.sh 2 ${TL:-6} $D/trace-n2-$t.txt $B/.libs new,base
