/* wakelat.c MODE BYTES: a sleeper thread (400 us sleeps, 1 ns timer slack) and a busy thread on
 * the same CPU; the busy thread copies BYTES in a loop with process_vm_readv (MODE cma) or memcpy
 * (MODE memcpy) or spins (MODE spin).  Prints the sleeper's lateness: median, p90, p99, mean (us). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
static volatile int stop; static int mode; static size_t bytes; static char *src, *dst;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void pin(void){cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);}
static void *busy(void *a){(void)a;pin();pid_t me=getpid();volatile double x=1;
  while(!stop){ if(mode==0){struct iovec l={dst,bytes},r={src,bytes};process_vm_readv(me,&l,1,&r,1,0);}
    else if(mode==1) memcpy(dst,src,bytes); else for(int i=0;i<1000;i++) x=x*1.0000001;}
  return NULL;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){mode=!strcmp(v[1],"cma")?0:!strcmp(v[1],"memcpy")?1:2;bytes=strtoul(v[2],0,0);
  src=aligned_alloc(2<<20,bytes);dst=aligned_alloc(2<<20,bytes);memset(src,1,bytes);memset(dst,2,bytes);
  pin();prctl(PR_SET_TIMERSLACK,1UL,0,0,0);pthread_t t;pthread_create(&t,0,busy,0);
  enum{N=2000};static double late[N];
  for(int i=0;i<N;i++){double t0=now();struct timespec ts={0,400000};clock_nanosleep(CLOCK_MONOTONIC,0,&ts,0);late[i]=(now()-t0)*1e6-400;}
  stop=1;pthread_join(t,0);double m=0;for(int i=0;i<N;i++)m+=late[i];qsort(late,N,sizeof*late,cmp);
  printf("%-6s %8zu: lateness median %.1f p90 %.1f p99 %.1f mean %.1f us\n",v[1],bytes,late[N/2],late[N*9/10],late[N*99/100],m/N);}
