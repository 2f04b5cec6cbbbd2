#!/bin/bash
# The window's single-launch misses, base (9676a15) against the merge, interleaved:
# overlap 1-4 MiB at 4 and 2 ranks, graph_bench -m overlap at 2 ranks.
D=perf/results/s19-lead
# B, M: the base and the merge trees (built, installed in TREE/_inst)
: "${B:?}" "${M:?}"
bash perf/results/s17-lead/ab_ovl_pfx.sh $D/ovl-n4.txt 6 4 "-c allreduce -b 1M -e 4M -f 4" base=$B/_inst merge=$M/_inst
bash perf/results/s17-lead/ab_ovl_pfx.sh $D/ovl-n2.txt 6 2 "-c allreduce -b 1M -e 4M -f 4" base=$B/_inst merge=$M/_inst
bash perf/results/s17-lead/ab_graph.sh $D/graph-n2.txt 6 2 base=$B merge=$M
