#!/bin/bash
# band.sh: allgather with 32-64 KiB blocks (the band no 3- or 5-rank row covers: the ring ran
# there), default against direct, shm_slots and bruck forced; 3 ranks 96-192 KiB totals, 5 ranks
# 160-320 KiB; 6 rounds each (side.sh).  Run under qlock x.  BASE = base install prefix.
: "${BASE:?base install prefix}"
uptime
arms=(def=$BASE direct=$BASE:PLX_TUNE=allgather:0-inf@direct slots=$BASE:PLX_TUNE=allgather:0-inf@shm_slots
      bruck=$BASE:PLX_TUNE=allgather:0-inf@bruck)
B=160K E=320K F=1.25 NP=5 ./side.sh band5.txt 6 allgather "${arms[@]}"
B=96K E=192K F=1.25 NP=3 ./side.sh band3.txt 6 allgather "${arms[@]}"
uptime
