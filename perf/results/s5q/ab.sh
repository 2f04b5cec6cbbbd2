#!/bin/bash
# ab.sh: this branch (new) against main ebfa0e7 (old, /work/wt/integ/_inst), interleaved launches
d=$(dirname "$0"); N=/tmp/s5q/pfx O=/work/wt/integ/_inst
for c in scatter gather; do
  $d/dist.sh $N $c 262144 8 new=$N old=$O ompi-ob1
  $d/dist.sh $N $c 1048576 6 new=$N old=$O
done
for n in 3 5; do for c in scatter gather; do NR=$n $d/dist.sh $N $c 262144 5 new=$N old=$O | sed "s/^/n$n /"; done; done
