#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <sys/resource.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int c,char**v){ int n=200000; int h[64]={0}; long sw0; struct rusage ru; getrusage(RUSAGE_THREAD,&ru); sw0=ru.ru_nivcsw;
 double T=now();
 for(int i=0;i<n;i++){double a=now(); sched_yield(); double b=now(); int us=(int)((b-a)*1e6*4); if(us>63)us=63; h[us]++;}
 getrusage(RUSAGE_THREAD,&ru);
 printf("%s: %.3f us/yield, nivcsw %ld; hist (0.25us bins):", v[1], (now()-T)/n*1e6, ru.ru_nivcsw-sw0);
 for(int i=0;i<64;i++) if(h[i]) printf(" %.2f:%d", i/4.0, h[i]); printf("\n"); return 0;}
