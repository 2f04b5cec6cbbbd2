#include <stdio.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){int N=200000;double a=now();for(int i=0;i<N;i++)now();double b=now();
for(int i=0;i<N;i++)sched_yield();double c=now();for(int i=0;i<N;i++)syscall(SYS_getppid);double d=now();
printf("clock_gettime %.3f us, sched_yield %.3f us, getppid %.3f us\n",(b-a)/N*1e6,(c-b)/N*1e6,(d-c)/N*1e6);}
