/*
 * perf/persist_bench.c — what a persistent collective saves per call,
 * measured interleaved inside one job so that every variant sees the same
 * machine load:
 *
 *   plexusrun -n 2 persist_bench [-c allreduce|bcast|barrier] [-s BYTES]
 *                                [-k BLOCKS] [-b ITERS_PER_BLOCK]
 *
 * For each of k blocks (default 200), the three variants run b iterations
 * each (default 500), one after the other, in an order that rotates from
 * block to block, every block starting after a barrier:
 *   plain        plx_allreduce (blocking; argument checks, selection,
 *                schedule or slot operation made at each call)
 *   nonblocking  plx_iallreduce + plx_wait
 *   persistent   plx_start + plx_wait of one plx_allreduce_init request
 * Per variant it prints the median and the minimum over blocks of the mean
 * time per iteration (rank 0's clock; the blocks end with every rank), and
 * the median over blocks of (persistent / plain) taken block by block, the
 * figure least moved by load that changes between blocks.  The result of
 * the last iteration of each variant is checked.  Float32 sum, 8 bytes by
 * default.
 */
#include <plexus.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { V_PLAIN, V_NB, V_PERSIST, V_N };
static const char *vname[V_N] = { "plain", "nonblocking", "persistent" };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define OK(call)                                                                  \
    do {                                                                          \
        plx_status_t s_ = (call);                                                 \
        if (s_ != PLX_SUCCESS) {                                                  \
            fprintf(stderr, "persist_bench: %s failed: %s\n", #call, plx_strerror(s_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    const char *coll = "allreduce";
    size_t bytes = 8;
    int blocks = 200, per = 500;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-c")) coll = argv[i + 1];
        else if (!strcmp(argv[i], "-s")) bytes = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-k")) blocks = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-b")) per = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: persist_bench [-c allreduce|bcast|barrier] [-s BYTES] [-k BLOCKS] [-b ITERS]\n");
            return 2;
        }
    }
    int c = !strcmp(coll, "allreduce") ? 0 : !strcmp(coll, "bcast") ? 1 : !strcmp(coll, "barrier") ? 2 : -1;
    if (c < 0 || blocks < 1 || per < 1) {
        fprintf(stderr, "persist_bench: bad arguments\n");
        return 2;
    }
    plx_context_t ctx;
    plx_comm_t world;
    int rank, size;
    OK(plx_init(&ctx));
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    size_t n = bytes / sizeof(float);
    if (n == 0) n = 1;
    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) in[i] = (float)(rank + 1);

    plx_request_t preq;
    if (c == 0) OK(plx_allreduce_init(in, out, n, PLX_FLOAT32, PLX_SUM, world, &preq));
    else if (c == 1) OK(plx_bcast_init(out, n, PLX_FLOAT32, 0, world, &preq));
    else OK(plx_barrier_init(world, &preq));

    double *t[V_N], *ratio = malloc((size_t)blocks * sizeof(double));
    for (int v = 0; v < V_N; v++) t[v] = malloc((size_t)blocks * sizeof(double));
    long wrong = 0;
    for (int w = -1; w < blocks; w++) {          /* block -1: warm-up, not recorded */
        for (int k = 0; k < V_N; k++) {
            int v = (k + (w < 0 ? 0 : w)) % V_N;
            OK(plx_barrier(world));
            double t0 = now_s();
            for (int it = 0; it < per; it++) {
                if (c == 1 && rank == 0)
                    for (size_t i = 0; i < n; i++) out[i] = (float)it;
                plx_request_t r;
                switch (v) {
                case V_PLAIN:
                    if (c == 0) OK(plx_allreduce(in, out, n, PLX_FLOAT32, PLX_SUM, world));
                    else if (c == 1) OK(plx_bcast(out, n, PLX_FLOAT32, 0, world));
                    else OK(plx_barrier(world));
                    break;
                case V_NB:
                    if (c == 0) OK(plx_iallreduce(in, out, n, PLX_FLOAT32, PLX_SUM, world, &r));
                    else if (c == 1) OK(plx_ibcast(out, n, PLX_FLOAT32, 0, world, &r));
                    else OK(plx_ibarrier(world, &r));
                    OK(plx_wait(&r));
                    break;
                default:
                    OK(plx_start(&preq));
                    OK(plx_wait(&preq));
                    break;
                }
            }
            double dt = (now_s() - t0) / per * 1e6;
            if (w >= 0) t[v][w] = dt;
            /* the last result of the block */
            for (size_t i = 0; i < n; i++) {
                float want = c == 0 ? (float)size * (float)(size + 1) / 2 : c == 1 ? (float)(per - 1) : out[i];
                wrong += out[i] != want;
            }
        }
        if (w >= 0) ratio[w] = t[V_PERSIST][w] / t[V_PLAIN][w];
    }
    double tot_wrong = (double)wrong;
    OK(plx_allreduce(PLX_IN_PLACE, &tot_wrong, 1, PLX_FLOAT64, PLX_SUM, world));
    if (rank == 0) {
        printf("# persist_bench: %s, %zu bytes, %d ranks, %d blocks x %d iterations per variant, "
               "interleaved\n", coll, n * sizeof(float), size, blocks, per);
        printf("# %-12s %14s %14s\n", "variant", "median(us)", "min(us)");
        for (int v = 0; v < V_N; v++) {
            double mn = t[v][0];
            for (int w = 1; w < blocks; w++) if (t[v][w] < mn) mn = t[v][w];
            printf("  %-12s %14.3f %14.3f\n", vname[v], median(t[v], blocks), mn);
        }
        printf("  persistent/plain, median of per-block ratios: %.3f\n", median(ratio, blocks));
        printf("# %s\n", tot_wrong == 0 ? "all results correct" : "WRONG RESULTS");
    }
    OK(plx_request_free(&preq));
    for (int v = 0; v < V_N; v++) free(t[v]);
    free(ratio);
    free(in);
    free(out);
    plx_finalize(&ctx);
    return tot_wrong == 0 ? 0 : 1;
}
