#!/bin/bash
# pin.sh PROGRAM ARGS...: run this rank on the CPU given by the PLX_RANK-th
# character of $PIN (e.g. PIN=0011: ranks 0,1 on CPU 0, ranks 2,3 on CPU 1).
exec taskset -c "${PIN:$PLX_RANK:1}" "$@"
