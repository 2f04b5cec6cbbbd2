#!/bin/bash
# summ.sh FILE...: per line of dist.sh output: n, min, q1, median, max (us)
grep -vh "^#\|^qlock" "$@" | awk '{n=0; for(i=4;i<=NF;i++){split($i,a,"/"); if(a[1]+0>0) v[++n]=a[1]+0; alg=a[2]}
  for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(v[j]<v[i]){t=v[i];v[i]=v[j];v[j]=t}
  if(n==0){print $1,$2,$3,"FAIL"; next}
  q=int((n+3)/4); m=(n%2)?v[(n+1)/2]:(v[n/2]+v[n/2+1])/2
  printf "%-9s %8s %-16s n=%2d min %8.2f q1 %8.2f med %8.2f max %8.2f %s\n",$1,$2,$3,n,v[1],v[q],m,v[n],alg; delete v}'
