#!/bin/bash
# ab_final.sh: the allgather rule 32K-64K/3-5@direct against base, interleaved (../s10g/ab.sh,
# order reversed every other round), 10 rounds: 5 ranks 128 KiB-1 MiB and 160-320 KiB (blocks in the
# new row), 3 ranks 64-256 KiB and 96-192 KiB; 4 ranks (unchanged) 8-64 KiB and 128-256 KiB; 5 ranks
# 8-64 KiB.  Then 6 ranks 256 KiB beside Open MPI (side.sh, 5 rounds).  Run under qlock x.
# BASE, NEW = install prefixes (side.sh reads B as the first size).
: "${BASE:?base install prefix}" "${NEW:?new install prefix}"
uptime
A=../s10g/ab.sh
NP=5 $A ab-n5.txt 10 allgather "-b 128K -e 1M -f 2" base=$BASE new=$NEW
NP=5 $A ab-n5-band.txt 10 allgather "-b 160K -e 320K -f 1.25" base=$BASE new=$NEW
NP=3 $A ab-n3.txt 10 allgather "-b 64K -e 256K -f 2" base=$BASE new=$NEW
NP=3 $A ab-n3-band.txt 10 allgather "-b 96K -e 192K -f 1.25" base=$BASE new=$NEW
NP=4 $A ab-n4.txt 8 allgather "-b 128K -e 256K -f 2" base=$BASE new=$NEW
NP=4 $A ab-small-n4.txt 8 allgather "-b 8K -e 64K -f 2" base=$BASE new=$NEW
NP=5 $A ab-small-n5.txt 8 allgather "-b 8K -e 64K -f 2" base=$BASE new=$NEW
B=256K E=256K NP=6 ./side.sh side6.txt 5 allgather def=$NEW slots=$NEW:PLX_TUNE=allgather:0-inf@shm_slots ompi-ob1 ompi-def
uptime
