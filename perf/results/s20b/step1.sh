#!/bin/bash
# step1.sh: 5-rank allgather 128 KiB-1 MiB, every algorithm forced beside the default and the MPIs,
# 6 rounds (side.sh, c2c probe per launch).  Run under qlock x.  BASE = base install prefix (side.sh reads B as the first size).
: "${BASE:?base install prefix}"
uptime
B=128K NP=5 ./side.sh side5.txt 6 allgather def=$BASE direct=$BASE:PLX_TUNE=allgather:0-inf@direct \
  slots=$BASE:PLX_TUNE=allgather:0-inf@shm_slots ring=$BASE:PLX_TUNE=allgather:0-inf@ring \
  bruck=$BASE:PLX_TUNE=allgather:0-inf@bruck ompi-ob1 ompi-def mpich
uptime
