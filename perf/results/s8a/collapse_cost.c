#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static long ahp(void){char l[256];long a=0;FILE*f=fopen("/proc/self/smaps_rollup","r");while(fgets(l,256,f))if(!strncmp(l,"AnonHugePages:",14))a=atol(l+14);fclose(f);return a;}
int main(int c,char**v){size_t n=strtoul(v[1],0,0);char*p=malloc(n);memset(p,1,n);
uintptr_t b=((uintptr_t)p+(2u<<20)-1)&~(uintptr_t)((2u<<20)-1),e=((uintptr_t)p+n)&~(uintptr_t)((2u<<20)-1);
printf("before %ld kB\n",ahp());double t=now();int r=e>b?madvise((void*)b,e-b,MADV_COLLAPSE):-2;double u=now();
printf("collapse %zu MiB interior: rc %d, %.0f us, after %ld kB\n",(size_t)(e>b?e-b:0)>>20,r,(u-t)*1e6,ahp());
t=now();r=e>b?madvise((void*)b,e-b,MADV_COLLAPSE):-2;u=now();printf("again: rc %d %.0f us\n",r,(u-t)*1e6);}
