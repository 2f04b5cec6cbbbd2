#!/bin/bash
# ab_n5b.sh: 5 ranks again, 256K-1M, base / new / new with PLX_DIRECT_STREAM=0 (the new build
# with plain copies: a control for the launch noise), 10 rounds.  Run under qlock x.
: "${B:?base install prefix}" "${N:?new install prefix}"
NP=5 ../s10g/ab.sh ab-n5b.txt 10 allgather "-b 256K -e 1M" base=$B new=$N plain=$N:PLX_DIRECT_STREAM=0
