#!/bin/bash
# ratio.sh FILE...: per cell, main (or NAME=$1 of RATIO_A) q1 / median against the
# better Open MPI setup (ob1 or default pml) by the same statistic
A=${RATIO_A:-main}
$(dirname $0)/summ.sh "$@" | awk -v A=$A '{k=$1" "$2; for(i=4;i<NF;i++){if($i=="q1") q[k" "$3]=$(i+1); if($i=="med") m[k" "$3]=$(i+1)}; if(!(k in seen)){seen[k]=1; o[++n]=k}}
 END{for(i=1;i<=n;i++){k=o[i]; bq=q[k" ompi-ob1"]; bm=m[k" ompi-ob1"];
   if((k" ompi-def") in q){ if(q[k" ompi-def"]<bq) bq=q[k" ompi-def"]; if(m[k" ompi-def"]<bm) bm=m[k" ompi-def"]}
   if((k" "A) in q) printf "%-16s %s q1 %.1f / %.1f = %.2f  med %.1f / %.1f = %.2f\n", k, A, q[k" "A], bq, q[k" "A]/bq, m[k" "A], bm, m[k" "A]/bm}}'
