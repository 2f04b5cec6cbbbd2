#!/bin/bash
# summ.sh FILE...: per (coll, bytes, label) of sweep.sh's lines: n, min, q1, median, max (us),
# and the algorithm that ran (the last launch's)
grep -vh "^#\|^qlock" "$@" | awk '{k=$1" "$2" "$3; if(!(k in n)) o[++K]=k; split($4,a,"/"); if(a[1]+0>0) v[k,++n[k]]=a[1]+0; alg[k]=a[2]}
 END{for(i=1;i<=K;i++){k=o[i]; m=n[k]; delete w; for(j=1;j<=m;j++) w[j]=v[k,j]
   for(x=1;x<=m;x++)for(y=x+1;y<=m;y++)if(w[y]<w[x]){t=w[x];w[x]=w[y];w[y]=t}
   if(m==0){print k,"FAIL"; continue}
   q=int((m+3)/4); md=(m%2)?w[(m+1)/2]:(w[m/2]+w[m/2+1])/2
   split(k,kk," "); printf "%-7s %8s %-14s n=%2d min %8.2f q1 %8.2f med %8.2f max %8.2f %s\n",kk[1],kk[2],kk[3],m,w[1],w[q],md,w[m],alg[k]}}' | sort -k1,1 -k2,2n -s
