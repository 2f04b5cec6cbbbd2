/* scprobe.c -- per-call times and CPUs of back-to-back plx_scatter calls
 * (session s14b).  Usage: scprobe BYTES_TOTAL ITERS OUTPREFIX [root]
 * Each rank writes OUTPREFIX.<rank>: "call start_ns dur_ns cpu_start cpu_end"
 * per timed call (after 200 warm-up calls and a barrier), then a line
 * "# schedstat run_ns wait_ns slices" of the thread over the timed loop. */
#define _GNU_SOURCE
#include <plexus.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void schedstat(long long v[3])
{
    v[0] = v[1] = v[2] = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f) return;
    if (fscanf(f, "%lld %lld %lld", &v[0], &v[1], &v[2]) != 3) v[0] = v[1] = v[2] = 0;
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    size_t total = strtoull(argv[1], NULL, 0);
    int iters = atoi(argv[2]);
    int root = argc > 4 ? atoi(argv[4]) : 0;
    plx_context_t ctx;
    plx_comm_t w;
    if (plx_init(&ctx) != PLX_SUCCESS || plx_comm_world(ctx, &w) != PLX_SUCCESS) return 1;
    int rank, size;
    plx_comm_rank(w, &rank);
    plx_comm_size(w, &size);
    size_t count = total / 4 / (size_t)size;
    float *sb = malloc(total + 64), *rb = malloc(total / size + 64);
    memset(sb, 1, total);
    memset(rb, 0, total / size);
    long long *rec = malloc(sizeof(long long) * 4 * (size_t)iters);
    for (int i = 0; i < 200; i++)
        if (plx_scatter(sb, rb, count, PLX_FLOAT32, root, w) != PLX_SUCCESS) return 1;
    plx_barrier(w);
    long long s0[3], s1[3];
    schedstat(s0);
    long long t00 = now_ns();
    for (int i = 0; i < iters; i++) {
        int c0 = sched_getcpu();
        long long t0 = now_ns();
        if (plx_scatter(sb, rb, count, PLX_FLOAT32, root, w) != PLX_SUCCESS) return 1;
        long long t1 = now_ns();
        rec[4 * i] = t0 - t00;
        rec[4 * i + 1] = t1 - t0;
        rec[4 * i + 2] = c0;
        rec[4 * i + 3] = sched_getcpu();
    }
    long long tend = now_ns() - t00;
    schedstat(s1);
    char name[512];
    snprintf(name, sizeof name, "%s.%d", argv[3], rank);
    FILE *f = fopen(name, "w");
    for (int i = 0; i < iters; i++)
        fprintf(f, "%d %lld %lld %lld %lld\n", i, rec[4 * i], rec[4 * i + 1], rec[4 * i + 2], rec[4 * i + 3]);
    fprintf(f, "# total_ns %lld per_call_us %.3f schedstat_run_ns %lld wait_ns %lld slices %lld\n", tend,
            tend / 1e3 / iters, s1[0] - s0[0], s1[1] - s0[1], s1[2] - s0[2]);
    fclose(f);
    plx_barrier(w);
    plx_finalize(&ctx);
    return 0;
}
