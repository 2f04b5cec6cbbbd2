cd /work/wt/integ; export PLX_PREFIX=/work/wt/integ/_inst
uptime
for rep in 1 2 3; do
for PIN in 001 010 100 011 101 110; do
  for T in "bcast:0-inf@shm_slots" "reduce:0-inf@shm_slots"; do
  c=${T%%:*}
  r=$(PIN=$PIN PLX_TUNE=$T _inst/bin/plexusrun -n 3 perf/results/s14b/pin.sh _inst/bin/plx_perf --coll $c -b 128K -e 256K -f 2 2>&1 | grep -E "^ +[0-9]" | awk '{printf "%s ", $6}')
  echo "rep $rep PIN $PIN $c $r"
  done
done; done
uptime
