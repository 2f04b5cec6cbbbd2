/* wakecost.c (probe of session s20a): what a sleeping thread beside the caller costs the
 * 2-rank allreduces of graph_bench -m overlap, without the graph.  Per rank, passes of the 50
 * ResNet-50 buckets (in-place float32 average, blocking, back to back, as graph_bench's b2b),
 * interleaved by round among arms: "none" (no other thread), "sleepN" (a thread on the same
 * core sleeping N us in a loop, 1 ns timer slack, as graph_bench's idle compute), "spin" (a
 * thread spinning, no wake-ups: the core shared by time slices only).  Prints per arm the
 * median pass (ms), the ratio to "none", and the sleeper's wake-ups per pass.
 * Usage: plexusrun -n 2 wakecost [ROUNDS [ARMS]]  (ARMS: a bit mask of the arms, default 15) */
#define _GNU_SOURCE
#include <plexus.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
static const size_t bytes[] = { 8196000, 4210688, 9441280, 4198400, 4210688, 9441280, 4198400, 12615680, 9441280,
    2101248, 1056768, 2361344, 1050624, 1056768, 2361344, 1050624, 1056768, 2361344, 1050624, 1056768, 2361344,
    1050624, 1056768, 2361344, 1050624, 3165184, 2361344, 526336, 264192, 590848, 263168, 264192, 590848, 263168,
    264192, 590848, 263168, 792576, 590848, 131584, 67584, 147968, 66048, 67584, 147968, 66048, 134144, 147968,
    16896, 38144 };
#define NL (int)(sizeof bytes / sizeof bytes[0])
static volatile int stop;
static volatile long wakes;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void *sleeper(void *arg)
{
    long us = (long)arg;
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (!stop) {
        if (us > 0) {
            struct timespec ts = { 0, us * 1000 };
            nanosleep(&ts, NULL);
            wakes++;
        }
    }
    return NULL;
}
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9, mask = argc > 2 ? atoi(argv[2]) : 15;
    plx_context_t ctx; plx_comm_t w; int rank;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &w); plx_comm_rank(w, &rank);
    float *g[NL];
    for (int i = 0; i < NL; i++) { g[i] = malloc(bytes[i]); for (size_t j = 0; j < bytes[i] / 4; j++) g[i][j] = 1.0f; }
    const long arm_us[] = { -2, 340, 1700, 0 };   /* -2: none; 0: spin */
    const char *name[] = { "none", "sleep340", "sleep1700", "spin" };
    enum { NA = 4 };
    double *t[NA]; long *wk[NA];
    for (int a = 0; a < NA; a++) { t[a] = calloc((size_t)rounds, sizeof(double)); wk[a] = calloc((size_t)rounds, sizeof(long)); }
    for (int r = -1; r < rounds; r++)   /* round -1: warm-up */
        for (int k = 0; k < NA; k++) {
            int a = (r & 1) ? NA - 1 - k : k;
            if (!(mask & (1 << a))) continue;
            pthread_t th; stop = 0; wakes = 0;
            if (arm_us[a] != -2) pthread_create(&th, NULL, sleeper, (void *)arm_us[a]);
            plx_barrier(w);
            double t0 = now();
            for (int i = 0; i < NL; i++) plx_allreduce(PLX_IN_PLACE, g[i], bytes[i] / 4, PLX_FLOAT32, PLX_AVG, w);
            double dt = now() - t0, mx;
            long wn = wakes;
            stop = 1;
            if (arm_us[a] != -2) pthread_join(th, NULL);
            plx_allreduce(&dt, &mx, 1, PLX_FLOAT64, PLX_MAX, w);
            if (r >= 0) { t[a][r] = mx; wk[a][r] = wn; }
        }
    if (rank == 0) {
        double base = 0;
        for (int a = 0; a < NA; a++) {
            if (!(mask & (1 << a))) continue;
            double s[rounds]; memcpy(s, t[a], sizeof s); qsort(s, (size_t)rounds, sizeof(double), cmp);
            double med = s[rounds / 2]; long wsum = 0;
            for (int r = 0; r < rounds; r++) wsum += wk[a][r];
            if (base == 0) base = med;
            printf("wakecost %-9s pass median %.2f ms (min %.2f), / none %.3f, wake-ups per pass %.1f (rank 0)\n",
                   name[a], med * 1e3, s[0] * 1e3, med / base, (double)wsum / rounds);
        }
    }
    plx_finalize(&ctx);
    return 0;
}
