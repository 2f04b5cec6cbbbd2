# prof.sh -- perf record of 4-rank bcast 16 B (binomial), 10^6 iterations, before and main through main's plx_perf (cpu-clock sampling: no PMU on this VM)
for arm in before base; do
  d=${BUILDS:?dir holding before/ and base/}/$arm
  uptime
  LD_LIBRARY_PATH=$d/.libs perf record -q -F 4999 -o $arm.data -- $d/tools/plexusrun -n 4 $BUILDS/base/perf/.libs/plx_perf -c bcast -b 16 -e 16 -n 1000000 -w 2000 2>&1 | grep -E '^ +16 '
done
