/* wake.c [0|1]: on-CPU time per wake-up of a thread sleeping 400 us 200 times (timer slack 1 ns),
 * pinned to CPU 0, with (1) or without (0) a second thread spinning on that CPU (s8g).
 * gcc -O2 -pthread -o wake wake.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdatomic.h>
static atomic_int stop;
static int spin;
static double rd(long tid){char p[96];snprintf(p,96,"/proc/self/task/%ld/schedstat",tid);FILE*f=fopen(p,"r");unsigned long long r=0,w=0;fscanf(f,"%llu %llu",&r,&w);fclose(f);return r*1e-9;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
static void*spinner(void*a){(void)a;pin(0);volatile double x=1;while(!atomic_load(&stop))x=x*1.0000001;return 0;}
int main(int argc,char**argv){int n=200;spin=argc>1?atoi(argv[1]):1;pthread_t t;if(spin)pthread_create(&t,0,spinner,0);pin(0);prctl(PR_SET_TIMERSLACK,1UL,0,0,0);
 usleep(20000);long tid=syscall(SYS_gettid);double r0=rd(tid);struct timespec ts0,ts1;clock_gettime(CLOCK_MONOTONIC,&ts0);
 for(int i=0;i<n;i++){struct timespec ts={0,400000};nanosleep(&ts,0);}
 clock_gettime(CLOCK_MONOTONIC,&ts1);double r1=rd(tid);atomic_store(&stop,1);if(spin)pthread_join(t,0);
 double wall=(ts1.tv_sec-ts0.tv_sec)+1e-9*(ts1.tv_nsec-ts0.tv_nsec);
 printf("spin=%d: on cpu per wake-up %.1f us, wall per sleep %.1f us (asked 400)\n",spin,(r1-r0)/n*1e6,wall/n*1e6);}
