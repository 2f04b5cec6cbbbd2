/* timer.c: what an application thread's clock_nanosleep(T) costs the CPU it shares with a
 * busy thread (the progress thread's situation at 2 ranks, plexusrun binding each rank to a
 * core).  Both threads on one CPU; the busy thread counts loop iterations.
 *   alone:  the busy thread for D seconds, no sleeper -> its rate r0;
 *   shared: the sleeper sleeps T (absolute deadline, as plx_perf --overlap's idle compute)
 *           in a loop for D seconds -> overshoot (wake - deadline) and the busy thread's lost
 *           time per sleep ((r0 * D - iters) / r0 / sleeps);
 *   also with no busy thread (overshoot only), and each with the default timer slack
 *   (50 us) and with 1 us (prctl PR_SET_TIMERSLACK).
 * Build: cc -O2 -pthread timer.c -o timer; run: ./timer [T_us] [D_s] [cpu]. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile int stop, go;
static volatile unsigned long count;
static int cpu;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void pin(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static void *busy(void *arg)
{
    (void)arg;
    pin();
    while (!go) ;
    unsigned long c = 0;
    while (!stop) {
        for (int i = 0; i < 64; i++) __asm__ volatile("" ::: "memory");
        c++;
    }
    count = c;
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One phase: busy thread or not, sleeper or not; returns the busy thread's iterations. */
static unsigned long phase(int with_busy, int with_sleep, double T, double D, double *ov, int *n)
{
    pthread_t t;
    stop = go = 0;
    if (with_busy) pthread_create(&t, NULL, busy, NULL);
    go = 1;
    double t0 = now(), end = t0 + D;
    *n = 0;
    if (with_sleep) {
        while (now() < end && *n < 200000) {
            double dl = now() + T;
            struct timespec u = { (time_t)dl, (long)((dl - (time_t)dl) * 1e9) };
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &u, NULL)) ;
            ov[(*n)++] = (now() - dl) * 1e6;
        }
    } else {
        struct timespec u = { (time_t)end, (long)((end - (time_t)end) * 1e9) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &u, NULL)) ;
    }
    stop = 1;
    if (with_busy) pthread_join(t, NULL);
    return with_busy ? count : 0;
}

int main(int argc, char **argv)
{
    double T = (argc > 1 ? atof(argv[1]) : 90) * 1e-6, D = argc > 2 ? atof(argv[2]) : 1.0;
    cpu = argc > 3 ? atoi(argv[3]) : 0;
    pin();
    static double ov[200000];
    int n;
    for (int slack = 0; slack < 2; slack++) {
        unsigned long sl = slack ? 1000 : 50000;
        prctl(PR_SET_TIMERSLACK, sl, 0, 0, 0);
        double r0 = phase(1, 0, T, D, ov, &n) / (D * 1e6);   /* iterations per us */
        for (int wb = 0; wb < 2; wb++) {
            unsigned long it = phase(wb, 1, T, D, ov, &n);
            qsort(ov, n, sizeof ov[0], cmp);
            double lost = wb ? (r0 * D * 1e6 - it) / r0 / n : 0;
            printf("T %.0f us slack %lu us busy %d: sleeps %d, overshoot us min %.1f med %.1f p90 %.1f; "
                   "busy thread's lost time per sleep %.1f us (period %.1f us)\n",
                   T * 1e6, sl / 1000, wb, n, ov[0], ov[n / 2], ov[n * 9 / 10], lost, D * 1e6 / n);
        }
    }
    return 0;
}
