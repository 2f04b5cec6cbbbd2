#!/bin/bash
# layer_ab.sh BASE_DIR NEW_DIR OUT_DIR [ROUNDS]: issue 15, the cost of a call left to MPI at
# 8-512 B, main (BASE_DIR) against the branch (NEW_DIR), both built and installed (_inst), rounds
# interleaved; each round is one in-process A/B per build (through the layer / plain MPI in the
# same launch). Run it with nothing else on the machine; uptime is logged before every launch.
A=${1:?base build dir}; B=${2:?new build dir}; O=${3:?output dir}; R=${4:-10}
COLLS=${COLLS:-bcast,reduce,alltoall,gather,scatter,reduce_scatter,allgather}; NP=${NP:-2}  # env overrides
mkdir -p "$O"
log() { echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/') $*" | tee -a "$O/uptime.log"; }
for r in $(seq 1 "$R"); do
  for d in "$A" "$B"; do
    t=$([ "$d" = "$A" ] && echo base || echo new)
    log "round $r $t"
    (cd "$d" && PLX_PREFIX="$d/_inst" perf/compare -n "$NP" --mpi-layer --layer-only \
       -c "$COLLS" -b 8 -e 512 -f 8 --rounds 1 \
       > "$O/ab-$t-$r.txt" 2>&1)
  done
done
log done
