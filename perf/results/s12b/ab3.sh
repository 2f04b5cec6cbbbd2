#!/bin/bash
# perf/results/s12b/ab3.sh BASE OUTDIR: 3 and 5 ranks, reduce and scatter 32-256 KiB (plx_perf
# totals), base against base with shm_slots rows for them (PLX_TUNE); R (8) rotated rounds.
B=$1 O=$2 R=${R:-8}
AB=$(dirname "$0")/../s10g/ab.sh
T="reduce:32K-257K/3-5@shm_slots;scatter:4K-86K/3-5@shm_slots"
for np in 3 5; do
    NP=$np $AB $O/ab3-n$np.txt $R "reduce scatter" "-b 32K -e 256K -f 2" base=$B slots=$B:PLX_TUNE=$T
done
