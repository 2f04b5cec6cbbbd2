/*
 * perf/mpi_bench.c — plx_perf's measurement loop written against MPI, so that
 * Plexus can be compared with Open MPI and MPICH number for number
 * (perf/compare builds it with mpicc.openmpi and mpicc.mpich).
 *
 *   mpirun -n 4 mpi_bench -L openmpi -c allreduce -b 8 -e 128M -f 2 --csv out.csv
 *
 * Everything that decides a number is the same as in perf/plx_perf.c:
 *   - sizes are total bytes as in nccl-tests: the result buffer for allgather,
 *     gather; the send buffer for reduce_scatter, scatter; the whole exchanged
 *     buffer for alltoall; the message for the others (barrier: one row, 0 B);
 *     a size whose element count equals the previous one is skipped;
 *   - inputs: rank r, element i holds (r*7 + i*13) % 4; one checked call
 *     first, #wrong = elements differing from the serial reference, summed
 *     over ranks;
 *   - -w warm-up calls (default 5); -n timed calls, default: the slowest
 *     rank's time of one call (barrier, t0, one call, MAX-allreduce) gives
 *     iters = 0.2 s / that, clamped to 5..20000 (every rank runs the same);
 *   - timing: barrier, t0, iters calls, t1; per-rank average
 *     (t1-t0)/iters, then averaged over ranks;
 *   - busbw = algbw * nccl-tests factor (allreduce 2(n-1)/n; allgather,
 *     reduce_scatter, alltoall, gather, scatter (n-1)/n; others 1).
 * Datatype float32, op sum, root 0, out of place.
 *
 * Options:
 *   -L NAME   library name written in the CSV (default "mpi"; compare passes
 *             openmpi or mpich)
 *   -c NAME   allreduce|bcast|reduce|allgather|reduce_scatter|alltoall|
 *             gather|scatter|barrier|allgatherv|alltoallv|gatherv|scatterv|
 *             reduce_scatterv|scan|exscan|all   (default allreduce)
 *   --counts uniform|skew|heavy   per-rank counts of the v-forms, exactly
 *             as plx_perf's --counts (MPI_Reduce_scatter for reduce_scatterv)
 *   -b SIZE   smallest size in bytes (K/M/G suffixes; default 8)
 *   -e SIZE   largest size (default 64M)
 *   -f N      multiply the size by N each step (default 2)
 *   -r ROOT   root of rooted collectives (default 0)
 *   -w N      warm-up iterations (default 5)
 *   -n N      timed iterations (default: scaled so each size takes ~0.2 s)
 *   --csv F   also write rows library,collective,ranks,bytes,time_us,busbw_gbps,wrong
 *   --ab X|S  in-process A/B instead of one timed loop (issue 15, libplexus-mpi):
 *             batches of calls through MPI_X (the layer when it is preloaded)
 *             alternate with batches through PMPI_X (the MPI itself; "X"), or
 *             with batches through MPI_X again ("S": the control, both halves
 *             the same), in one process, so both halves see the same
 *             placement of the ranks and the same load.  Per size: the
 *             per-call time of each half (min, first quartile, median over
 *             the batches; a batch's time is its slowest rank's) and the
 *             ratio first/second half.  The CSV then has the columns
 *             library,collective,ranks,bytes,a_min,a_q1,a_med,b_min,b_q1,b_med,
 *             ratio_q1,ratio_med,pairs,calls_per_batch,wrong (times in us).
 *   --ab-shared  both halves on the same buffers (default: two sets, each half
 *             on each set in turn: see perf/RESULTS.md, issue 15)
 *   --ab-time S  seconds per size in --ab mode (default 0.4)
 *
 * Run without the layer, --ab X is an A/A test of the MPI (both halves are
 * the same MPI code): its ratios are the noise of the measurement, and its
 * times are what a truly plain launch gives for the PMPI_ half.
 *
 * Exit status 1 when any result was wrong.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { C_ALLREDUCE, C_BCAST, C_REDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL, C_GATHER,
       C_SCATTER, C_BARRIER,
       C_ALLGATHERV, C_ALLTOALLV, C_GATHERV, C_SCATTERV, C_REDUCE_SCATTERV, C_SCAN, C_EXSCAN, C_N };
static const char *const coll_names[C_N] = { "allreduce", "bcast", "reduce", "allgather",
    "reduce_scatter", "alltoall", "gather", "scatter", "barrier",
    "allgatherv", "alltoallv", "gatherv", "scatterv", "reduce_scatterv", "scan", "exscan" };
enum { P_UNIFORM, P_SKEW, P_HEAVY };
static const char *const pattern_names[] = { "uniform", "skew", "heavy" };
static int is_v(int c) { return c >= C_ALLGATHERV && c <= C_REDUCE_SCATTERV; }

typedef struct opts {
    int coll;                   /* -1 = all */
    size_t minb, maxb;
    double factor;
    int root, warmup, iters, pattern;
    const char *csv, *lib;
    int ab;                     /* 0: one timed loop; 'X': MPI_X vs PMPI_X; 'S': MPI_X vs MPI_X */
    int ab_shared;              /* --ab-shared: both halves on the same buffers */
    double ab_time;             /* --ab-time */
} opts_t;

typedef struct bench {
    const opts_t *o;
    MPI_Comm comm;
    int rank, size;
    float *sbuf, *rbuf;
    float *sbuf2, *rbuf2;       /* --ab: the second half's buffers */
    int *vc, *vd, *vrc, *vrd;   /* v-forms: as plx_perf's set_vcounts (MPI takes int) */
} bench_t;

/* The same split as plx_perf's set_vcounts. */
static void set_vcounts(bench_t *b, size_t total)
{
    int p = b->size;
    double wsum = 0;
    for (int r = 0; r < p; r++)
        wsum += b->o->pattern == P_SKEW ? r + 1 : b->o->pattern == P_HEAVY && r == p - 1 ? p : 1;
    size_t given = 0;
    for (int r = 0; r < p; r++) {
        double w = b->o->pattern == P_SKEW ? r + 1 : b->o->pattern == P_HEAVY && r == p - 1 ? p : 1;
        size_t c = r == p - 1 ? total - given : (size_t)((double)total * w / wsum);
        b->vc[r] = (int)c;
        b->vd[r] = (int)given;
        given += c;
    }
    for (int r = 0; r < p; r++) {
        b->vrc[r] = b->vc[b->rank];
        b->vrd[r] = r * b->vc[b->rank];
    }
}

static const size_t ES = sizeof(float);

/* the same clock as plx_perf (not MPI_Wtime) so the timer is identical */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

/* plx_perf's input() for op sum */
static float input(int r, size_t i)
{
    return (float)((r * 7 + i * 13) % 4);
}

static float reduce_ref(size_t i, int nranks)
{
    double acc = 0;
    for (int r = 0; r < nranks; r++) acc += input(r, i);
    return (float)acc;
}

static void counts_for(const bench_t *b, int c, size_t bytes, size_t *count, size_t *sbytes, size_t *rbytes)
{
    size_t n = (size_t)b->size, cnt;
    switch (c) {
    case C_ALLGATHER: case C_GATHER:
        cnt = bytes / ES / n; *sbytes = cnt * ES; *rbytes = cnt * ES * n; break;
    case C_REDUCE_SCATTER: case C_SCATTER:
        cnt = bytes / ES / n; *sbytes = cnt * ES * n; *rbytes = cnt * ES; break;
    case C_ALLTOALL:
        cnt = bytes / ES / n; *sbytes = *rbytes = cnt * ES * n; break;
    case C_BARRIER:
        cnt = 0; *sbytes = *rbytes = 0; break;
    default:   /* the v-forms: the sum of all blocks */
        cnt = bytes / ES; *sbytes = *rbytes = cnt * ES; break;
    }
    *count = cnt;
}

static double busbw_factor(int c, int n)
{
    switch (c) {
    case C_ALLREDUCE: return n > 1 ? 2.0 * (n - 1) / n : 0;
    case C_ALLGATHER: case C_REDUCE_SCATTER: case C_ALLTOALL: case C_GATHER: case C_SCATTER:
    case C_ALLGATHERV: case C_ALLTOALLV: case C_GATHERV: case C_SCATTERV: case C_REDUCE_SCATTERV:
        return n > 1 ? (double)(n - 1) / n : 0;
    default: return 1;
    }
}

static void fill_inputs(bench_t *b, int c, size_t count)
{
    size_t n = (size_t)b->size;
    switch (c) {
    case C_ALLREDUCE: case C_REDUCE:
        for (size_t i = 0; i < count; i++) b->sbuf[i] = input(b->rank, i);
        break;
    case C_REDUCE_SCATTER: case C_ALLTOALL: case C_SCATTER:
        for (size_t i = 0; i < count * n; i++) b->sbuf[i] = input(b->rank, i);
        break;
    case C_BCAST:
        for (size_t i = 0; i < count; i++) b->sbuf[i] = b->rank == b->o->root ? input(b->o->root, i) : 0;
        break;
    case C_ALLGATHER: case C_GATHER:
        for (size_t i = 0; i < count; i++) b->sbuf[i] = input(b->rank, i);
        break;
    case C_SCAN: case C_EXSCAN: case C_SCATTERV: case C_ALLTOALLV: case C_REDUCE_SCATTERV:
        for (size_t i = 0; i < count; i++) b->sbuf[i] = input(b->rank, i);
        break;
    case C_ALLGATHERV: case C_GATHERV:
        for (int i = 0; i < b->vc[b->rank]; i++) b->sbuf[i] = input(b->rank, (size_t)i);
        break;
    default: break;
    }
}

static int run_once(bench_t *b, int c, size_t count)
{
    int root = b->o->root, n = (int)count;
    switch (c) {
    case C_ALLREDUCE: return MPI_Allreduce(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_BCAST: return MPI_Bcast(b->sbuf, n, MPI_FLOAT, root, b->comm);
    case C_REDUCE: return MPI_Reduce(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, root, b->comm);
    case C_ALLGATHER: return MPI_Allgather(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, b->comm);
    case C_REDUCE_SCATTER: return MPI_Reduce_scatter_block(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_ALLTOALL: return MPI_Alltoall(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, b->comm);
    case C_GATHER: return MPI_Gather(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, root, b->comm);
    case C_SCATTER: return MPI_Scatter(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, root, b->comm);
    case C_BARRIER: return MPI_Barrier(b->comm);
    case C_ALLGATHERV:
        return MPI_Allgatherv(b->sbuf, b->vc[b->rank], MPI_FLOAT, b->rbuf, b->vc, b->vd, MPI_FLOAT, b->comm);
    case C_ALLTOALLV:
        return MPI_Alltoallv(b->sbuf, b->vc, b->vd, MPI_FLOAT, b->rbuf, b->vrc, b->vrd, MPI_FLOAT, b->comm);
    case C_GATHERV:
        return MPI_Gatherv(b->sbuf, b->vc[b->rank], MPI_FLOAT, b->rbuf, b->vc, b->vd, MPI_FLOAT, root, b->comm);
    case C_SCATTERV:
        return MPI_Scatterv(b->sbuf, b->vc, b->vd, MPI_FLOAT, b->rbuf, b->vc[b->rank], MPI_FLOAT, root, b->comm);
    case C_REDUCE_SCATTERV: return MPI_Reduce_scatter(b->sbuf, b->rbuf, b->vc, MPI_FLOAT, MPI_SUM, b->comm);
    case C_SCAN: return MPI_Scan(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_EXSCAN: return MPI_Exscan(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    default: return MPI_ERR_ARG;
    }
}

/* run_once through PMPI_ (the MPI itself, past any profiling layer) */
static int run_once_pmpi(bench_t *b, int c, size_t count)
{
    int root = b->o->root, n = (int)count;
    switch (c) {
    case C_ALLREDUCE: return PMPI_Allreduce(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_BCAST: return PMPI_Bcast(b->sbuf, n, MPI_FLOAT, root, b->comm);
    case C_REDUCE: return PMPI_Reduce(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, root, b->comm);
    case C_ALLGATHER: return PMPI_Allgather(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, b->comm);
    case C_REDUCE_SCATTER: return PMPI_Reduce_scatter_block(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_ALLTOALL: return PMPI_Alltoall(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, b->comm);
    case C_GATHER: return PMPI_Gather(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, root, b->comm);
    case C_SCATTER: return PMPI_Scatter(b->sbuf, n, MPI_FLOAT, b->rbuf, n, MPI_FLOAT, root, b->comm);
    case C_BARRIER: return PMPI_Barrier(b->comm);
    case C_ALLGATHERV:
        return PMPI_Allgatherv(b->sbuf, b->vc[b->rank], MPI_FLOAT, b->rbuf, b->vc, b->vd, MPI_FLOAT, b->comm);
    case C_ALLTOALLV:
        return PMPI_Alltoallv(b->sbuf, b->vc, b->vd, MPI_FLOAT, b->rbuf, b->vrc, b->vrd, MPI_FLOAT, b->comm);
    case C_GATHERV:
        return PMPI_Gatherv(b->sbuf, b->vc[b->rank], MPI_FLOAT, b->rbuf, b->vc, b->vd, MPI_FLOAT, root, b->comm);
    case C_SCATTERV:
        return PMPI_Scatterv(b->sbuf, b->vc, b->vd, MPI_FLOAT, b->rbuf, b->vc[b->rank], MPI_FLOAT, root, b->comm);
    case C_REDUCE_SCATTERV: return PMPI_Reduce_scatter(b->sbuf, b->rbuf, b->vc, MPI_FLOAT, MPI_SUM, b->comm);
    case C_SCAN: return PMPI_Scan(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    case C_EXSCAN: return PMPI_Exscan(b->sbuf, b->rbuf, n, MPI_FLOAT, MPI_SUM, b->comm);
    default: return MPI_ERR_ARG;
    }
}

static size_t count_wrong(bench_t *b, int c, size_t count)
{
    size_t n = (size_t)b->size, wrong = 0;
    int root = b->o->root;
    switch (c) {
    case C_ALLREDUCE:
        for (size_t i = 0; i < count; i++) wrong += b->rbuf[i] != reduce_ref(i, b->size);
        break;
    case C_REDUCE:
        if (b->rank == root)
            for (size_t i = 0; i < count; i++) wrong += b->rbuf[i] != reduce_ref(i, b->size);
        break;
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < count; i++) wrong += b->rbuf[i] != reduce_ref((size_t)b->rank * count + i, b->size);
        break;
    case C_BCAST:
        for (size_t i = 0; i < count; i++) wrong += b->sbuf[i] != input(root, i);
        break;
    case C_ALLGATHER:
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < count; i++) wrong += b->rbuf[r * count + i] != input((int)r, i);
        break;
    case C_GATHER:
        if (b->rank == root)
            for (size_t r = 0; r < n; r++)
                for (size_t i = 0; i < count; i++) wrong += b->rbuf[r * count + i] != input((int)r, i);
        break;
    case C_ALLTOALL:
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < count; i++)
                wrong += b->rbuf[r * count + i] != input((int)r, (size_t)b->rank * count + i);
        break;
    case C_SCATTER:
        for (size_t i = 0; i < count; i++) wrong += b->rbuf[i] != input(root, (size_t)b->rank * count + i);
        break;
    case C_ALLGATHERV: case C_GATHERV:
        if (c == C_GATHERV && b->rank != root) break;
        for (size_t r = 0; r < n; r++)
            for (int i = 0; i < b->vc[r]; i++) wrong += b->rbuf[b->vd[r] + i] != input((int)r, (size_t)i);
        break;
    case C_SCATTERV:
        for (int i = 0; i < b->vc[b->rank]; i++) wrong += b->rbuf[i] != input(root, (size_t)(b->vd[b->rank] + i));
        break;
    case C_ALLTOALLV:
        for (size_t r = 0; r < n; r++)
            for (int i = 0; i < b->vrc[r]; i++)
                wrong += b->rbuf[b->vrd[r] + i] != input((int)r, (size_t)(b->vd[b->rank] + i));
        break;
    case C_REDUCE_SCATTERV:
        for (int i = 0; i < b->vc[b->rank]; i++) wrong += b->rbuf[i] != reduce_ref((size_t)(b->vd[b->rank] + i), b->size);
        break;
    case C_SCAN: case C_EXSCAN: {
        int upto = c == C_SCAN ? b->rank + 1 : b->rank;
        for (size_t i = 0; i < count && upto > 0; i++) wrong += b->rbuf[i] != reduce_ref(i, upto);
        break;
    }
    default: break;
    }
    return wrong;
}

static double allreduce_d(bench_t *b, double v, MPI_Op op)
{
    double out;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, op, b->comm);
    return out;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* one half's call: half 0 is always MPI_X; half 1 is PMPI_X (--ab X) or MPI_X (--ab S) */
static int ab_call(bench_t *h, int half, int c, size_t count)
{
    return half == 1 && h->o->ab == 'X' ? run_once_pmpi(h, c, count) : run_once(h, c, count);
}

/* The slowest rank's seconds per call of k calls of one half, all ranks
 * started together.  The barrier and the max are PMPI_ calls: neither half
 * pays for the other's library. */
static double ab_batch(bench_t *h, int half, int c, size_t count, int k)
{
    PMPI_Barrier(h->comm);
    double t0 = now_s();
    for (int i = 0; i < k; i++) ab_call(h, half, c, count);
    double t = (now_s() - t0) / k, mx = 0;
    PMPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, h->comm);
    return mx;
}

/* --ab: hb[0] and hb[1] are the two halves' views (their own buffers unless
 * --ab-shared).  Returns 1 when a result was wrong. */
static int bench_ab_size(bench_t *hb, int c, size_t count, size_t shown, FILE *csv)
{
    const opts_t *o = hb[0].o;
    double wrong = 0;
    for (int half = 0; half < 2; half++) {
        bench_t *h = &hb[half];
        fill_inputs(h, c, count);
        PMPI_Barrier(h->comm);
        if (ab_call(h, half, c, count) != MPI_SUCCESS) {
            fprintf(stderr, "mpi_bench: rank %d: %s of %zu bytes failed\n", h->rank, coll_names[c], shown);
            return 1;
        }
        double w = (double)count_wrong(h, c, count), all = 0;
        PMPI_Allreduce(&w, &all, 1, MPI_DOUBLE, MPI_SUM, h->comm);
        wrong += all;
    }
    for (int w = 0; w < o->warmup; w++)
        for (int half = 0; half < 2; half++) ab_call(&hb[half], half, c, count);
    /* calls per batch: about 2 ms of the slower half; pairs: the time per size, 8 to 56 */
    double one = 0;
    for (int half = 0; half < 2; half++) {
        double t = ab_batch(&hb[half], half, c, count, 3);
        if (t > one) one = t;
    }
    int k = one > 0 ? (int)(0.002 / one) : 1000;
    if (k < 1) k = 1;
    if (k > 5000) k = 5000;
    if (o->iters > 0) k = o->iters;
    int pairs = one > 0 ? (int)(o->ab_time / (2.0 * k * one)) : 60;
    if (pairs < 8) pairs = 8;
    if (pairs > 56) pairs = 56;
    pairs = (pairs + 7) / 8 * 8;                        /* whole periods of the swap schedule below */
    PMPI_Bcast(&k, 1, MPI_INT, 0, hb[0].comm);          /* every rank runs the same loop */
    PMPI_Bcast(&pairs, 1, MPI_INT, 0, hb[0].comm);
    double *t[2] = { malloc(sizeof(double) * (size_t)pairs), malloc(sizeof(double) * (size_t)pairs) };
    if (!t[0] || !t[1]) { fprintf(stderr, "mpi_bench: out of memory\n"); MPI_Abort(hb[0].comm, 1); }
    /* ABBA: neither half always goes first.  And the halves swap buffer
     * sets by a period-8 schedule: A/A runs (both halves the same code)
     * showed one set up to 1.6x slower than the other at 2-16 MiB whichever
     * library used it, and with a period-4 swap the half that runs twice in
     * a row (ABBA) found its buffers still in cache more often than the
     * other (A/A 1.1-1.16 at 2 MiB).  This schedule gives each half each
     * set half the time and as many of those warm starts as the other. */
    static const int swap_at[8] = { 0, 0, 1, 1, 1, 0, 0, 1 };
    bench_t hv[2][2] = { { hb[0], hb[1] }, { hb[1], hb[0] } };
    for (int p = 0; p < pairs; p++) {
        int first = p & 1, swap = swap_at[p & 7];
        for (int i = 0; i < 2; i++) {
            int half = i ? !first : first;
            t[half][p] = ab_batch(&hv[swap][half], half, c, count, k) * 1e6;
        }
    }
    double q[2][3];
    for (int half = 0; half < 2; half++) {
        qsort(t[half], (size_t)pairs, sizeof(double), cmp_double);
        q[half][0] = t[half][0];
        q[half][1] = t[half][pairs / 4];
        q[half][2] = pairs % 2 ? t[half][pairs / 2] : (t[half][pairs / 2 - 1] + t[half][pairs / 2]) / 2;
    }
    free(t[0]);
    free(t[1]);
    double rq1 = q[1][1] > 0 ? q[0][1] / q[1][1] : 0, rmed = q[1][2] > 0 ? q[0][2] / q[1][2] : 0;
    if (hb[0].rank == 0) {
        printf("  %12zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7.3f %7.3f %5d %5d %6.0f\n", shown, q[0][0],
               q[0][1], q[0][2], q[1][0], q[1][1], q[1][2], rq1, rmed, pairs, k, wrong);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%s,%s,%d,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%d,%d,%.0f\n", o->lib,
                    coll_names[c], hb[0].size, shown, q[0][0], q[0][1], q[0][2], q[1][0], q[1][1], q[1][2],
                    rq1, rmed, pairs, k, wrong);
    }
    return wrong > 0;
}

static int bench_coll(bench_t *b, int c, FILE *csv)
{
    const opts_t *o = b->o;
    int bad = 0;
    if (b->rank == 0) {
        printf("#\n# %s  ranks %d  type float32  op sum  root %d  out-of-place%s%s  (%s)\n", coll_names[c], b->size,
               o->root, is_v(c) ? "  counts " : "", is_v(c) ? pattern_names[o->pattern] : "", o->lib);
        if (o->ab)
            printf("# A = MPI_%s, B = %s_%s (in-process A/B, %s buffers); us per call over the batches\n"
                   "# %12s %9s %9s %9s %9s %9s %9s %7s %7s %5s %5s %6s\n", coll_names[c],
                   o->ab == 'X' ? "PMPI" : "MPI", coll_names[c], o->ab_shared ? "shared" : "separate",
                   "size(B)", "A min", "A q1", "A med", "B min", "B q1", "B med", "A/B q1", "A/B med",
                   "pairs", "calls", "#wrong");
        else
            printf("# %12s %12s %8s %6s %5s %11s %10s %10s %8s\n", "size(B)", "count", "type", "op",
                   "root", "time(us)", "algbw", "busbw", "#wrong");
    }
    size_t last = (size_t)-1;
    for (double sz = (double)o->minb; sz <= (double)o->maxb * 1.0000001; sz = sz * o->factor < sz + 1 ? sz + 1 : sz * o->factor) {
        size_t bytes = (size_t)sz, count, sbytes, rbytes;
        counts_for(b, c, bytes, &count, &sbytes, &rbytes);
        if (c != C_BARRIER && count == 0) continue;
        if (c == C_BARRIER && last == 0) break;
        if (count == last) continue;
        last = count;
        if (count > (size_t)0x7fffffff) {
            if (b->rank == 0) fprintf(stderr, "mpi_bench: count %zu does not fit an MPI int, stopping\n", count);
            break;
        }
        size_t shown = c == C_BARRIER ? 0 : (c == C_REDUCE_SCATTER || c == C_SCATTER ? sbytes : rbytes);
        if (is_v(c)) set_vcounts(b, count);
        if (o->ab) {
            bench_t hb[2] = { *b, *b };
            if (!o->ab_shared) {                /* the second half's own buffers */
                hb[1].sbuf = b->sbuf2;
                hb[1].rbuf = b->rbuf2;
            }
            bad |= bench_ab_size(hb, c, count, shown, csv);
            continue;
        }

        fill_inputs(b, c, count);
        MPI_Barrier(b->comm);
        if (run_once(b, c, count) != MPI_SUCCESS) {
            fprintf(stderr, "mpi_bench: rank %d: %s of %zu bytes failed\n", b->rank, coll_names[c], shown);
            return 1;
        }
        double wrong = allreduce_d(b, (double)count_wrong(b, c, count), MPI_SUM);

        int iters = o->iters;
        for (int w = 0; w < o->warmup; w++) run_once(b, c, count);
        if (iters <= 0) {
            MPI_Barrier(b->comm);
            double t0 = now_s();
            run_once(b, c, count);
            double one = allreduce_d(b, now_s() - t0, MPI_MAX);
            iters = one > 0 ? (int)(0.2 / one) : 1000;
            if (iters < 5) iters = 5;
            if (iters > 20000) iters = 20000;
        }
        MPI_Barrier(b->comm);
        double t0 = now_s();
        for (int it = 0; it < iters; it++) {
            if (run_once(b, c, count) != MPI_SUCCESS) {
                fprintf(stderr, "mpi_bench: rank %d: %s failed\n", b->rank, coll_names[c]);
                return 1;
            }
        }
        double t = (now_s() - t0) / iters * 1e6;
        double tavg = allreduce_d(b, t, MPI_SUM) / b->size;
        double algbw = tavg > 0 ? (double)shown / (tavg * 1e-6) / 1e9 : 0;
        double busbw = algbw * busbw_factor(c, b->size);
        if (b->rank == 0) {
            printf("  %12zu %12zu %8s %6s %5d %11.2f %10.3f %10.3f %8.0f\n", shown, count, "float32", "sum",
                   o->root, tavg, algbw, busbw, wrong);
            fflush(stdout);
            if (csv)
                fprintf(csv, "%s,%s,%d,%zu,%.3f,%.4f,%.0f\n", o->lib, coll_names[c], b->size, shown, tavg, busbw, wrong);
        }
        if (wrong > 0) bad = 1;
    }
    return bad;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mpi_bench [-L LIBNAME] [-c COLL|all] [-b MIN] [-e MAX] [-f FACTOR] [-r ROOT]\n"
            "                 [-w WARMUP] [-n ITERS] [--csv FILE] [--counts uniform|skew|heavy]\n"
            "                 [--ab X|S] [--ab-shared] [--ab-time SECONDS]\n");
}

int main(int argc, char **argv)
{
    opts_t o = { .coll = C_ALLREDUCE, .minb = 8, .maxb = 64u << 20, .factor = 2, .root = 0,
                 .warmup = 5, .iters = 0, .lib = "mpi", .ab_time = 0.4 };
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "-c") && v) {
            o.coll = -2;
            if (!strcmp(v, "all")) o.coll = -1;
            for (int c = 0; c < C_N; c++) if (!strcmp(v, coll_names[c])) o.coll = c;
            if (o.coll == -2) { fprintf(stderr, "mpi_bench: unknown collective '%s'\n", v); ok = 0; }
        } else if (!strcmp(a, "-b") && v) ok = !parse_size(v, &o.minb);
        else if (!strcmp(a, "-e") && v) ok = !parse_size(v, &o.maxb);
        else if (!strcmp(a, "-f") && v) { o.factor = atof(v); ok = o.factor > 1; }
        else if (!strcmp(a, "-r") && v) o.root = atoi(v);
        else if (!strcmp(a, "-w") && v) o.warmup = atoi(v);
        else if (!strcmp(a, "-n") && v) o.iters = atoi(v);
        else if (!strcmp(a, "-L") && v) o.lib = v;
        else if (!strcmp(a, "--csv") && v) o.csv = v;
        else if (!strcmp(a, "--ab") && v) {
            o.ab = !strcmp(v, "X") ? 'X' : !strcmp(v, "S") ? 'S' : 0;
            ok = o.ab != 0;
        }
        else if (!strcmp(a, "--ab-shared")) { o.ab_shared = 1; i--; }
        else if (!strcmp(a, "--ab-time") && v) { o.ab_time = atof(v); ok = o.ab_time > 0; }
        else if (!strcmp(a, "--counts") && v) {
            o.pattern = -1;
            for (int k = 0; k < 3; k++) if (!strcmp(v, pattern_names[k])) o.pattern = k;
            ok = o.pattern >= 0;
        }
        else ok = 0;
        if (!ok) { usage(); MPI_Finalize(); return 2; }
        i++;
    }
    if (o.minb > o.maxb) { usage(); MPI_Finalize(); return 2; }

    bench_t b = { .o = &o, .comm = MPI_COMM_WORLD };
    MPI_Comm_rank(b.comm, &b.rank);
    MPI_Comm_size(b.comm, &b.size);
    if (o.root < 0 || o.root >= b.size) {
        if (b.rank == 0) fprintf(stderr, "mpi_bench: root %d is not a rank (size %d)\n", o.root, b.size);
        MPI_Finalize();
        return 2;
    }
    /* as plx_perf (alltoallv's heavy rank receives up to size x its share) */
    int vmult = o.coll < 0 || is_v(o.coll) ? b.size + 1 : 2;
    size_t cap = (o.maxb / ES + 1) * ES * (size_t)(vmult > 2 ? vmult : 2) + 64;
    b.vc = calloc((size_t)b.size, sizeof *b.vc);
    b.vd = calloc((size_t)b.size, sizeof *b.vd);
    b.vrc = calloc((size_t)b.size, sizeof *b.vrc);
    b.vrd = calloc((size_t)b.size, sizeof *b.vrd);
    b.sbuf = malloc(cap);
    b.rbuf = malloc(cap);
    if (!b.sbuf || !b.rbuf) { fprintf(stderr, "mpi_bench: out of memory\n"); MPI_Abort(b.comm, 1); }
    memset(b.sbuf, 0, cap);
    memset(b.rbuf, 0, cap);
    if (o.ab && !o.ab_shared) {
        b.sbuf2 = malloc(cap);
        b.rbuf2 = malloc(cap);
        if (!b.sbuf2 || !b.rbuf2) { fprintf(stderr, "mpi_bench: out of memory\n"); MPI_Abort(b.comm, 1); }
        memset(b.sbuf2, 0, cap);
        memset(b.rbuf2, 0, cap);
    }

    FILE *csv = NULL;
    if (o.csv && b.rank == 0) {
        csv = fopen(o.csv, "w");
        if (!csv) { perror(o.csv); MPI_Abort(b.comm, 1); }
        fprintf(csv, o.ab ? "library,collective,ranks,bytes,a_min,a_q1,a_med,b_min,b_q1,b_med,"
                            "ratio_q1,ratio_med,pairs,calls_per_batch,wrong\n"
                          : "library,collective,ranks,bytes,time_us,busbw_gbps,wrong\n");
    }
    if (b.rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(ver, &len);
        char *nl = strchr(ver, '\n');
        if (nl) *nl = 0;
        printf("# mpi_bench (%s): %s, %d ranks\n", o.lib, ver, b.size);
    }
    int bad = 0;
    for (int c = 0; c < C_N; c++) {
        if (o.coll >= 0 && c != o.coll) continue;
        bad |= bench_coll(&b, c, csv);
    }
    if (csv) fclose(csv);
    if (b.rank == 0) printf("# %s\n", bad ? "FAILED: some results were wrong" : "all results correct");
    free(b.sbuf);
    free(b.rbuf);
    free(b.sbuf2);
    free(b.rbuf2);
    MPI_Finalize();
    return bad;
}
