/* stall.c: on one CPU, thread A sleeps T us (clock_nanosleep, abs) in a loop; thread B spins
 * reading the clock and records gaps > 3 us.  Prints A's overrun and B's gaps per second. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sched.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static volatile int stop; static double T; static int mode;
static double gapsum; static long ngap; static double over_sum; static long nover;
static void *spin(void *x){(void)x;double last=now();while(!stop){double t=now();if(t-last>3e-6){gapsum+=t-last;ngap++;}last=t;}return 0;}
int main(int c,char**v){T=atof(v[1])*1e-6;mode=c>2?atoi(v[2]):1;prctl(PR_SET_TIMERSLACK,1UL,0,0,0);
 pthread_t th; if(mode) pthread_create(&th,0,spin,0);
 double t0=now(); long n=0;
 while(now()-t0<1.0){double s=now()+T;struct timespec u;u.tv_sec=(time_t)s;u.tv_nsec=(long)((s-u.tv_sec)*1e9);
  clock_nanosleep(CLOCK_MONOTONIC,TIMER_ABSTIME,&u,0);over_sum+=now()-s;nover++;n++;}
 stop=1; if(mode) pthread_join(th,0);
 printf("T %.0f us spinner %d: sleeps %ld overrun mean %.1f us | spinner gaps>3us %ld, mean %.1f us, total %.1f ms/s\n",T*1e6,mode,n,over_sum/nover*1e6,ngap,ngap?gapsum/ngap*1e6:0,gapsum*1e3);}
