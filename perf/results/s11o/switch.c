/* switch.c: the cost of one context switch between two threads of a process sharing one CPU
 * (the application thread and its progress thread at 2 ranks), by sched_yield ping-pong: each
 * thread yields in a loop for D seconds; switches = total yields (each yield hands the CPU to
 * the other thread); also one thread alone (a yield with nobody to switch to).
 * Build: cc -O2 -pthread switch.c -o switch; run: ./switch [cpu] [D_s]. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile int stop;
static int cpu;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void pin(void) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
static void *yielder(void *a) { pin(); unsigned long n = 0; while (!stop) { sched_yield(); n++; } *(unsigned long *)a = n; return NULL; }
int main(int argc, char **argv)
{
    cpu = argc > 1 ? atoi(argv[1]) : 0;
    double D = argc > 2 ? atof(argv[2]) : 0.5;
    for (int nt = 1; nt <= 2; nt++) {
        pthread_t t[2]; unsigned long c[2] = {0, 0};
        stop = 0;
        double t0 = now();
        for (int i = 0; i < nt; i++) pthread_create(&t[i], NULL, yielder, &c[i]);
        while (now() - t0 < D) { struct timespec ts = {0, 10000000}; nanosleep(&ts, NULL); }
        stop = 1;
        for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
        double el = now() - t0;
        printf("cpu %d, %d thread(s): %.2f us per yield\n", cpu, nt, el / (c[0] + c[1]) * 1e6);
    }
    return 0;
}
