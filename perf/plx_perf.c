/*
 * perf/plx_perf.c — the benchmark users run, in the style of nccl-tests:
 * latency and bandwidth of one collective over a range of sizes, with every
 * result checked against a serial reference.
 *
 *   plexusrun -n 4 plx_perf --coll allreduce -b 8 -e 128M -f 2
 *
 * The one-letter options are nccl-tests' letters with their nccl-tests
 * meaning (-b -e -i -f -g -t -c -n -w -d -o -r -z -a -C -m -G), so a
 * command line from an nccl-tests run means the same here; Plexus' own
 * options have long names only.  `plx_perf --help` lists them all (its
 * text, usage_text below, is also the base of plx_perf(1)).
 *
 * --overlap (implies --nonblocking): per size, t_comm is the nonblocking
 * time (post + wait); then for each of two kinds of "compute" lasting
 * T = t_comm (rank 0's value, broadcast, so every rank computes as long) --
 * idle: the thread sleeps (clock_nanosleep), as a host does while a GPU
 * kernel runs; busy: the thread spins doing arithmetic -- each iteration
 * posts the collective, computes for T, then waits.  Reported per size and
 * kind: t_compute (measured), t_total (per iteration) and
 * overlap = (t_comm + t_compute - t_total) / min(t_comm, t_compute):
 * 1 when the collective hid entirely behind the compute, 0 when it ran only
 * after it.  With caller-driven progress nothing moves while the thread
 * sleeps; PLX_PROGRESS=thread moves it.
 *
 * --counts uniform|skew|heavy: per-rank counts of the v-forms (default
 * uniform): the size is split over the ranks by weight w(r): uniform w = 1;
 * skew (linear) w = r + 1; heavy: rank size-1 has w = size, the others 1
 * (about half of everything is that one rank's).  allgatherv, gatherv,
 * scatterv, reduce_scatterv: rank r's block is its share of the size;
 * alltoallv: every rank sends rank j j's share of the size, so the heavy
 * rank receives most.
 *
 * -P, --persistent: each size's collective is made once by its plx_*_init,
 * then every iteration is plx_start + plx_wait (what a relaunch costs: no
 * selection, no schedule building).  sendrecv, which has no persistent
 * form, runs as plain calls.
 *
 * Sizes are total bytes as in nccl-tests: the result buffer for allgather,
 * gather; the send buffer for reduce_scatter, scatter; the whole exchanged
 * buffer for alltoall; the message for the others.  The v-forms: the sum
 * of all blocks (allgatherv, gatherv: the result; scatterv,
 * reduce_scatterv: the input; alltoallv: what each rank sends); count is
 * that sum in elements.  busbw uses nccl-tests'
 * factors so numbers compare across libraries and rank counts.
 *
 * To add a collective: a C_* name and its coll_names entry, then a case in
 * counts_for, busbw_factor, fill_inputs, start_once, run_once and
 * count_wrong.
 */
#include <plexus.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/half.h"
#include "core/config.h"          /* plx_parse_size: the size parser of the PLX_* variables */

#if PLX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define CHECK_OK(call)                                                                    \
    do {                                                                                  \
        plx_status_t s_ = (call);                                                         \
        if (s_ != PLX_SUCCESS) {                                                          \
            fprintf(stderr, "plx_perf: %s failed: %s\n", #call, plx_strerror(s_));        \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

enum { C_ALLREDUCE, C_BCAST, C_REDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL, C_GATHER,
       C_SCATTER, C_BARRIER, C_SENDRECV,
       C_ALLGATHERV, C_ALLTOALLV, C_GATHERV, C_SCATTERV, C_REDUCE_SCATTERV, C_SCAN, C_EXSCAN, C_N };
static const char *const coll_names[C_N] = { "allreduce", "bcast", "reduce", "allgather",
    "reduce_scatter", "alltoall", "gather", "scatter", "barrier", "sendrecv",
    "allgatherv", "alltoallv", "gatherv", "scatterv", "reduce_scatterv", "scan", "exscan" };
/* --counts: how the v-forms split the size over the ranks */
enum { P_UNIFORM, P_SKEW, P_HEAVY };
static const char *const pattern_names[] = { "uniform", "skew", "heavy" };
static int is_v(int c) { return c >= C_ALLGATHERV && c <= C_REDUCE_SCATTERV; }

typedef struct opts {
    int coll;                   /* -1 = all */
    size_t minb, maxb;
    double factor;              /* -f: multiply by this (0: add stepbytes) */
    size_t stepbytes;           /* -i */
    plx_dtype_t dt;
    plx_op_t op;
    int all_dtypes, all_ops;    /* -d all, -o all */
    int root, warmup, iters, in_place, check, minmax, nonblocking, overlap;
    int average;                /* -a: 0 rank 0's time, 1 mean over ranks, 2 min, 3 max */
    int device;                 /* --memory device: buffers in GPU memory */
    int pattern;                /* --counts (P_*) */
    int persistent;             /* -P */
    const char *csv, *json;
} opts_t;

/* Totals for the footer lines of nccl-tests. */
static double g_busbw_sum;
static long g_busbw_rows;
static double g_wrong_total;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- element access through double (exact for the small integers used) ---- */
static void put(void *buf, size_t i, plx_dtype_t dt, double v)
{
    switch (dt) {
    case PLX_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case PLX_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(int64_t)v; break;
    case PLX_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case PLX_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(int64_t)v; break;
    case PLX_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case PLX_UINT64: ((uint64_t *)buf)[i] = (uint64_t)(int64_t)v; break;
    case PLX_FLOAT16: ((uint16_t *)buf)[i] = plx_f32_to_f16((float)v); break;
    case PLX_BFLOAT16: ((uint16_t *)buf)[i] = plx_f32_to_bf16((float)v); break;
    case PLX_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case PLX_FLOAT64: ((double *)buf)[i] = v; break;
    default: break;
    }
}

static double get(const void *buf, size_t i, plx_dtype_t dt)
{
    switch (dt) {
    case PLX_INT8: return ((const int8_t *)buf)[i];
    case PLX_UINT8: return ((const uint8_t *)buf)[i];
    case PLX_INT32: return ((const int32_t *)buf)[i];
    case PLX_UINT32: return ((const uint32_t *)buf)[i];
    case PLX_INT64: return (double)((const int64_t *)buf)[i];
    case PLX_UINT64: return (double)((const uint64_t *)buf)[i];
    case PLX_FLOAT16: return plx_f16_to_f32(((const uint16_t *)buf)[i]);
    case PLX_BFLOAT16: return plx_bf16_to_f32(((const uint16_t *)buf)[i]);
    case PLX_FLOAT32: return ((const float *)buf)[i];
    case PLX_FLOAT64: return ((const double *)buf)[i];
    default: return 0;
    }
}


/* Input of rank r at element i: small values so every op stays exact in
 * every type (sums of <= a few hundred ranks of 0..3 fit even float16). */
static double input(int r, size_t i, plx_op_t op)
{
    if (op == PLX_PROD) return ((r + i) % 7 == 0) ? 2 : 1;
    return (double)((r * 7 + i * 13) % 4);
}

static double reduce_ref(size_t i, int nranks, plx_op_t op, plx_dtype_t dt)
{
    double acc = input(0, i, op);
    for (int r = 1; r < nranks; r++) {
        double v = input(r, i, op);
        switch (op) {
        case PLX_SUM: case PLX_AVG: acc += v; break;
        case PLX_PROD: acc *= v; break;
        case PLX_MIN: acc = v < acc ? v : acc; break;
        case PLX_MAX: acc = v > acc ? v : acc; break;
        case PLX_BAND: acc = (double)((int64_t)acc & (int64_t)v); break;
        case PLX_BOR: acc = (double)((int64_t)acc | (int64_t)v); break;
        case PLX_BXOR: acc = (double)((int64_t)acc ^ (int64_t)v); break;
        default: break;
        }
    }
    if (op == PLX_AVG) {
        if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64)
            acc = acc / nranks;
        else
            acc = (double)((int64_t)acc / nranks);
    }
    return acc;
}

/* Wrap the reference like the type does (only prod of many 2s could exceed int8). */
static double as_type(double v, plx_dtype_t dt)
{
    char tmp[8];
    put(tmp, 0, dt, v);
    return get(tmp, 0, dt);
}

typedef struct bench {
    const opts_t *o;
    plx_comm_t comm;
    int rank, size;
    size_t es;
    void *sbuf, *rbuf;          /* host: inputs are made and results checked here */
    size_t cap;                 /* bytes allocated for each buffer */
    void *dsbuf, *drbuf;        /* -m device: the GPU buffers the collectives run on */
    size_t *vc, *vd;            /* v-forms: each rank's block and its offset (packed) */
    size_t *vrc, *vrd;          /* alltoallv: what this rank receives from each */
    plx_request_t preq;         /* -P: the persistent request of the current size */
} bench_t;

/* Split total elements over the ranks by --counts (see the top). */
static void set_vcounts(bench_t *b, size_t total)
{
    int p = b->size;
    double wsum = 0;
    for (int r = 0; r < p; r++)
        wsum += b->o->pattern == P_SKEW ? r + 1 : b->o->pattern == P_HEAVY && r == p - 1 ? p : 1;
    size_t given = 0;
    for (int r = 0; r < p; r++) {
        double w = b->o->pattern == P_SKEW ? r + 1 : b->o->pattern == P_HEAVY && r == p - 1 ? p : 1;
        b->vc[r] = r == p - 1 ? total - given : (size_t)((double)total * w / wsum);
        b->vd[r] = given;
        given += b->vc[r];
    }
    /* alltoallv receives j's share from everyone; in place it sends with
     * the same layout, which then must be symmetric: the block between
     * ranks i and j is the share of the larger of the two */
    size_t at = 0;
    for (int r = 0; r < p; r++) {
        b->vrc[r] = b->o->in_place ? b->vc[r > b->rank ? r : b->rank] : b->vc[b->rank];
        b->vrd[r] = at;
        at += b->vrc[r];
    }
}

/* alltoallv in place: where sender s keeps its block for rank d. */
static size_t a2av_ip_off(const bench_t *b, int s, int d)
{
    size_t off = 0;
    for (int k = 0; k < d; k++) off += b->vc[k > s ? k : s];
    return off;
}

/* The buffers handed to the collectives: host, or device with -m device. */
#define SB(b) ((b)->dsbuf ? (b)->dsbuf : (b)->sbuf)
#define RB(b) ((b)->drbuf ? (b)->drbuf : (b)->rbuf)

/* Per-collective element counts for a total size in bytes. */
static void counts_for(const bench_t *b, int c, size_t bytes, size_t *count, size_t *sbytes, size_t *rbytes)
{
    size_t n = (size_t)b->size, es = b->es, cnt;
    switch (c) {
    case C_ALLGATHER: case C_GATHER:
        cnt = bytes / es / n; *sbytes = cnt * es; *rbytes = cnt * es * n; break;
    case C_REDUCE_SCATTER: case C_SCATTER:
        cnt = bytes / es / n; *sbytes = cnt * es * n; *rbytes = cnt * es; break;
    case C_ALLTOALL:
        cnt = bytes / es / n; *sbytes = *rbytes = cnt * es * n; break;
    case C_BARRIER:
        cnt = 0; *sbytes = *rbytes = 0; break;
    case C_ALLGATHERV: case C_GATHERV: case C_SCATTERV: case C_REDUCE_SCATTERV: case C_ALLTOALLV:
        cnt = bytes / es; *sbytes = *rbytes = cnt * es; break;
    default:
        cnt = bytes / es; *sbytes = *rbytes = cnt * es; break;
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
    const opts_t *o = b->o;
    size_t n = (size_t)b->size;
    switch (c) {
    case C_ALLREDUCE: case C_REDUCE: {
        /* in place: allreduce everywhere, reduce only at the root */
        int ip = o->in_place && (c == C_ALLREDUCE || b->rank == o->root);
        for (size_t i = 0; i < count; i++) put(ip ? b->rbuf : b->sbuf, i, o->dt, input(b->rank, i, o->op));
        break;
    }
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < count * n; i++) put(o->in_place ? b->rbuf : b->sbuf, i, o->dt, input(b->rank, i, o->op));
        break;
    case C_BCAST:
        for (size_t i = 0; i < count; i++) put(b->sbuf, i, o->dt, b->rank == o->root ? input(o->root, i, PLX_SUM) : 0);
        break;
    case C_ALLGATHER: case C_GATHER:
        for (size_t i = 0; i < count; i++) put(b->sbuf, i, o->dt, input(b->rank, i, PLX_SUM));
        if (o->in_place)
            for (size_t i = 0; i < count; i++) put(b->rbuf, (size_t)b->rank * count + i, o->dt, input(b->rank, i, PLX_SUM));
        break;
    case C_ALLTOALL: case C_SCATTER:
        for (size_t i = 0; i < count * n; i++) put(o->in_place && c == C_ALLTOALL ? b->rbuf : b->sbuf, i, o->dt, input(b->rank, i, PLX_SUM));
        break;
    case C_SENDRECV:
        for (size_t i = 0; i < count; i++) put(b->sbuf, i, o->dt, input(b->rank, i, PLX_SUM));
        break;
    case C_SCAN: case C_EXSCAN:
        for (size_t i = 0; i < count; i++) put(o->in_place ? b->rbuf : b->sbuf, i, o->dt, input(b->rank, i, o->op));
        break;
    case C_ALLGATHERV: case C_GATHERV: {
        size_t me = b->vc[b->rank];
        for (size_t i = 0; i < me; i++) put(b->sbuf, i, o->dt, input(b->rank, i, PLX_SUM));
        if (o->in_place)
            for (size_t i = 0; i < me; i++) put(b->rbuf, b->vd[b->rank] + i, o->dt, input(b->rank, i, PLX_SUM));
        break;
    }
    case C_SCATTERV:   /* root's whole input; element i of it is input(root, i) */
    case C_ALLTOALLV:  /* element i of what this rank sends is input(rank, i) */
    case C_REDUCE_SCATTERV:
        if (c == C_ALLTOALLV && o->in_place) {   /* the layout of what arrives */
            count = 0;
            for (int r = 0; r < b->size; r++) count += b->vrc[r];
        }
        for (size_t i = 0; i < count; i++)
            put(o->in_place && c != C_SCATTERV ? b->rbuf : b->sbuf, i, o->dt,
                input(b->rank, i, c == C_REDUCE_SCATTERV ? o->op : PLX_SUM));
        break;
    default: break;
    }
}

/* Start collective c as a request (the -t variant). */
static plx_status_t start_once(bench_t *b, int c, size_t count, plx_request_t *rq)
{
    const opts_t *o = b->o;
    const void *sb = o->in_place ? PLX_IN_PLACE : SB(b);
    switch (c) {
    case C_ALLREDUCE: return plx_iallreduce(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_BCAST: return plx_ibcast(SB(b), count, o->dt, o->root, b->comm, rq);
    case C_REDUCE:
        return plx_ireduce(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), RB(b), count,
                           o->dt, o->op, o->root, b->comm, rq);
    case C_ALLGATHER: return plx_iallgather(sb, RB(b), count, o->dt, b->comm, rq);
    case C_REDUCE_SCATTER: return plx_ireduce_scatter(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_ALLTOALL: return plx_ialltoall(sb, RB(b), count, o->dt, b->comm, rq);
    case C_GATHER:
        return plx_igather(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), RB(b), count,
                           o->dt, o->root, b->comm, rq);
    case C_SCATTER:
        return plx_iscatter(SB(b), o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b), count,
                            o->dt, o->root, b->comm, rq);
    case C_BARRIER: return plx_ibarrier(b->comm, rq);
    case C_ALLGATHERV:
        return plx_iallgatherv(sb, b->vc[b->rank], RB(b), b->vc, b->vd, o->dt, b->comm, rq);
    case C_ALLTOALLV:   /* in place: the layout is what arrives (vrc/vrd) */
        return plx_ialltoallv(sb, b->vc, b->vd, RB(b), b->vrc, b->vrd, o->dt, b->comm, rq);
    case C_GATHERV:
        return plx_igatherv(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), b->vc[b->rank], RB(b),
                            b->vc, b->vd, o->dt, o->root, b->comm, rq);
    case C_SCATTERV:
        return plx_iscatterv(SB(b), b->vc, b->vd, o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b),
                             b->vc[b->rank], o->dt, o->root, b->comm, rq);
    case C_REDUCE_SCATTERV: return plx_ireduce_scatterv(sb, RB(b), b->vc, o->dt, o->op, b->comm, rq);
    case C_SCAN: return plx_iscan(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_EXSCAN: return plx_iexscan(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    default: return PLX_ERR_INVALID_ARG;
    }
}

/* Whether persist_init below has a persistent form of c. */
static int has_persistent(int c) { return c != C_SENDRECV; }

/* -P: the persistent form of the collective, with start_once's arguments. */
static plx_status_t persist_init(bench_t *b, int c, size_t count, plx_request_t *rq)
{
    const opts_t *o = b->o;
    const void *sb = o->in_place ? PLX_IN_PLACE : SB(b);
    const void *rsb = o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b);
    switch (c) {
    case C_ALLREDUCE: return plx_allreduce_init(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_BCAST: return plx_bcast_init(SB(b), count, o->dt, o->root, b->comm, rq);
    case C_REDUCE: return plx_reduce_init(rsb, RB(b), count, o->dt, o->op, o->root, b->comm, rq);
    case C_ALLGATHER: return plx_allgather_init(sb, RB(b), count, o->dt, b->comm, rq);
    case C_REDUCE_SCATTER: return plx_reduce_scatter_init(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_ALLTOALL: return plx_alltoall_init(sb, RB(b), count, o->dt, b->comm, rq);
    case C_GATHER: return plx_gather_init(rsb, RB(b), count, o->dt, o->root, b->comm, rq);
    case C_SCATTER:
        return plx_scatter_init(SB(b), o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b), count,
                                o->dt, o->root, b->comm, rq);
    case C_BARRIER: return plx_barrier_init(b->comm, rq);
    /* the v-forms' arrays (vc, vd, vrc, vrd) stay put until the request is
     * freed, after the last run of this size */
    case C_ALLGATHERV:
        return plx_allgatherv_init(sb, b->vc[b->rank], RB(b), b->vc, b->vd, o->dt, b->comm, rq);
    case C_ALLTOALLV:
        return plx_alltoallv_init(sb, b->vc, b->vd, RB(b), b->vrc, b->vrd, o->dt, b->comm, rq);
    case C_GATHERV:
        return plx_gatherv_init(rsb, b->vc[b->rank], RB(b), b->vc, b->vd, o->dt, o->root, b->comm, rq);
    case C_SCATTERV:
        return plx_scatterv_init(SB(b), b->vc, b->vd, o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b),
                                 b->vc[b->rank], o->dt, o->root, b->comm, rq);
    case C_REDUCE_SCATTERV:
        return plx_reduce_scatterv_init(sb, RB(b), b->vc, o->dt, o->op, b->comm, rq);
    case C_SCAN: return plx_scan_init(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    case C_EXSCAN: return plx_exscan_init(sb, RB(b), count, o->dt, o->op, b->comm, rq);
    default: return PLX_ERR_INVALID_ARG;
    }
}

static plx_status_t run_once(bench_t *b, int c, size_t count)
{
    const opts_t *o = b->o;
    if (b->preq) {
        /* -P: what a relaunch costs (no selection, no schedule building) */
        plx_status_t s = plx_start(&b->preq);
        return s != PLX_SUCCESS ? s : plx_wait(&b->preq);
    }
    if (o->nonblocking && c == C_SENDRECV && b->size > 1) {
        /* ring exchange with both transfers in flight at once */
        int to = (b->rank + 1) % b->size, from = (b->rank - 1 + b->size) % b->size;
        plx_request_t rq[2];
        plx_status_t s = plx_irecv(RB(b), count, o->dt, from, 1, b->comm, NULL, &rq[0]);
        if (s != PLX_SUCCESS) return s;
        if ((s = plx_isend(SB(b), count, o->dt, to, 1, b->comm, &rq[1])) != PLX_SUCCESS) {
            plx_request_free(&rq[0]);
            return s;
        }
        return plx_waitall(2, rq, NULL);
    }
    if (o->nonblocking && c != C_SENDRECV) {
        plx_request_t rq;
        plx_status_t s = start_once(b, c, count, &rq);
        return s != PLX_SUCCESS ? s : plx_wait(&rq);
    }
    const void *sb = o->in_place ? PLX_IN_PLACE : SB(b);
    switch (c) {
    case C_ALLREDUCE: return plx_allreduce(sb, RB(b), count, o->dt, o->op, b->comm);
    case C_BCAST: return plx_bcast(SB(b), count, o->dt, o->root, b->comm);
    case C_REDUCE:
        return plx_reduce(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), RB(b), count,
                          o->dt, o->op, o->root, b->comm);
    case C_ALLGATHER: return plx_allgather(sb, RB(b), count, o->dt, b->comm);
    case C_REDUCE_SCATTER: return plx_reduce_scatter(sb, RB(b), count, o->dt, o->op, b->comm);
    case C_ALLTOALL: return plx_alltoall(sb, RB(b), count, o->dt, b->comm);
    case C_GATHER:
        return plx_gather(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), RB(b), count,
                          o->dt, o->root, b->comm);
    case C_SCATTER:
        return plx_scatter(SB(b), o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b), count,
                           o->dt, o->root, b->comm);
    case C_BARRIER: return plx_barrier(b->comm);
    case C_SENDRECV: {
        /* ring: even ranks send first, odd ranks receive first (works for any size incl. 1) */
        int to = (b->rank + 1) % b->size, from = (b->rank - 1 + b->size) % b->size;
        plx_status_t s;
        if (b->size == 1) {
            memcpy(RB(b), SB(b), count * b->es);
            return PLX_SUCCESS;
        }
        if (b->rank % 2 == 0) {
            if ((s = plx_send(SB(b), count, o->dt, to, 1, b->comm)) != PLX_SUCCESS) return s;
            return plx_recv(RB(b), count, o->dt, from, 1, b->comm, NULL);
        }
        if ((s = plx_recv(RB(b), count, o->dt, from, 1, b->comm, NULL)) != PLX_SUCCESS) return s;
        return plx_send(SB(b), count, o->dt, to, 1, b->comm);
    }
    case C_ALLGATHERV: return plx_allgatherv(sb, b->vc[b->rank], RB(b), b->vc, b->vd, o->dt, b->comm);
    case C_ALLTOALLV: return plx_alltoallv(sb, b->vc, b->vd, RB(b), b->vrc, b->vrd, o->dt, b->comm);
    case C_GATHERV:
        return plx_gatherv(o->in_place && b->rank == o->root ? PLX_IN_PLACE : SB(b), b->vc[b->rank], RB(b),
                           b->vc, b->vd, o->dt, o->root, b->comm);
    case C_SCATTERV:
        return plx_scatterv(SB(b), b->vc, b->vd, o->in_place && b->rank == o->root ? PLX_IN_PLACE : RB(b),
                            b->vc[b->rank], o->dt, o->root, b->comm);
    case C_REDUCE_SCATTERV: return plx_reduce_scatterv(sb, RB(b), b->vc, o->dt, o->op, b->comm);
    case C_SCAN: return plx_scan(sb, RB(b), count, o->dt, o->op, b->comm);
    case C_EXSCAN: return plx_exscan(sb, RB(b), count, o->dt, o->op, b->comm);
    default: return PLX_ERR_INVALID_ARG;
    }
}

/* Elements of this rank's result that differ from the serial reference. */
static size_t count_wrong(bench_t *b, int c, size_t count)
{
    const opts_t *o = b->o;
    size_t n = (size_t)b->size, wrong = 0;
    plx_dtype_t dt = o->dt;
    switch (c) {
    case C_ALLREDUCE:
        for (size_t i = 0; i < count; i++) wrong += get(b->rbuf, i, dt) != as_type(reduce_ref(i, b->size, o->op, dt), dt);
        break;
    case C_REDUCE:
        if (b->rank == o->root)
            for (size_t i = 0; i < count; i++) wrong += get(b->rbuf, i, dt) != as_type(reduce_ref(i, b->size, o->op, dt), dt);
        break;
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < count; i++)
            wrong += get(b->rbuf, i, dt) != as_type(reduce_ref((size_t)b->rank * count + i, b->size, o->op, dt), dt);
        break;
    case C_BCAST:
        for (size_t i = 0; i < count; i++) wrong += get(b->sbuf, i, dt) != as_type(input(o->root, i, PLX_SUM), dt);
        break;
    case C_ALLGATHER:
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < count; i++) wrong += get(b->rbuf, r * count + i, dt) != as_type(input((int)r, i, PLX_SUM), dt);
        break;
    case C_GATHER:
        if (b->rank == o->root)
            for (size_t r = 0; r < n; r++)
                for (size_t i = 0; i < count; i++) wrong += get(b->rbuf, r * count + i, dt) != as_type(input((int)r, i, PLX_SUM), dt);
        break;
    case C_ALLTOALL:
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < count; i++)
                wrong += get(b->rbuf, r * count + i, dt) != as_type(input((int)r, (size_t)b->rank * count + i, PLX_SUM), dt);
        break;
    case C_SCATTER: {
        const void *res = o->in_place && b->rank == o->root ? (const char *)b->sbuf + (size_t)o->root * count * b->es : b->rbuf;
        for (size_t i = 0; i < count; i++)
            wrong += get(res, i, dt) != as_type(input(o->root, (size_t)b->rank * count + i, PLX_SUM), dt);
        break;
    }
    case C_SENDRECV: {
        int from = (b->rank - 1 + b->size) % b->size;
        for (size_t i = 0; i < count; i++) wrong += get(b->rbuf, i, dt) != as_type(input(from, i, PLX_SUM), dt);
        break;
    }
    case C_ALLGATHERV: case C_GATHERV:
        if (c == C_GATHERV && b->rank != o->root) break;
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < b->vc[r]; i++) wrong += get(b->rbuf, b->vd[r] + i, dt) != as_type(input((int)r, i, PLX_SUM), dt);
        break;
    case C_SCATTERV: {
        const void *res = o->in_place && b->rank == o->root ? (const char *)b->sbuf + b->vd[o->root] * b->es : b->rbuf;
        for (size_t i = 0; i < b->vc[b->rank]; i++)
            wrong += get(res, i, dt) != as_type(input(o->root, b->vd[b->rank] + i, PLX_SUM), dt);
        break;
    }
    case C_ALLTOALLV:   /* from rank r: its elements vd[rank] .. of what it sends */
        for (size_t r = 0; r < n; r++) {
            size_t from = o->in_place ? a2av_ip_off(b, (int)r, b->rank) : b->vd[b->rank];
            for (size_t i = 0; i < b->vrc[r]; i++)
                wrong += get(b->rbuf, b->vrd[r] + i, dt) != as_type(input((int)r, from + i, PLX_SUM), dt);
        }
        break;
    case C_REDUCE_SCATTERV:
        for (size_t i = 0; i < b->vc[b->rank]; i++)
            wrong += get(b->rbuf, i, dt) != as_type(reduce_ref(b->vd[b->rank] + i, b->size, o->op, dt), dt);
        break;
    case C_SCAN: case C_EXSCAN: {
        int upto = c == C_SCAN ? b->rank + 1 : b->rank;   /* ranks combined */
        for (size_t i = 0; i < count && upto > 0; i++)
            wrong += get(b->rbuf, i, dt) != as_type(reduce_ref(i, upto, o->op, dt), dt);
        break;
    }
    default: break;
    }
    return wrong;
}

/* -m device: inputs are made on the host and copied to the GPU buffers;
 * results are copied back before they are checked (outside the timing).
 * count*size elements cover every region any collective touches. */
#if PLX_HAVE_CUDA
static size_t dev_span(const bench_t *b, size_t count)
{
    size_t n = count * b->es * (size_t)b->size + 64;
    return n < b->cap ? n : b->cap;
}
#endif

static void to_device(bench_t *b, size_t count)
{
#if PLX_HAVE_CUDA
    if (!b->dsbuf) return;
    if (cudaMemcpy(b->dsbuf, b->sbuf, dev_span(b, count), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(b->drbuf, b->rbuf, dev_span(b, count), cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "plx_perf: copy to the GPU failed\n");
        exit(1);
    }
#else
    (void)b, (void)count;
#endif
}

static void from_device(bench_t *b, size_t count)
{
#if PLX_HAVE_CUDA
    if (!b->dsbuf) return;
    if (cudaMemcpy(b->sbuf, b->dsbuf, dev_span(b, count), cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(b->rbuf, b->drbuf, dev_span(b, count), cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "plx_perf: copy from the GPU failed\n");
        exit(1);
    }
#else
    (void)b, (void)count;
#endif
}

static double allreduce_d(bench_t *b, double v, plx_op_t op)
{
    double out = v;
    CHECK_OK(plx_allreduce(PLX_IN_PLACE, &out, 1, PLX_FLOAT64, op, b->comm));
    return out;
}

/* ---- --overlap ---------------------------------------------------------- */
enum { K_IDLE, K_BUSY, K_N };
static const char *const kind_names[K_N] = { "idle", "busy" };

/* "Compute" for t seconds.  idle: the thread sleeps until the deadline, as a
 * host thread does while a GPU kernel runs (only a progress thread can move
 * the collective meanwhile).  busy: the thread spins on arithmetic, as CPU
 * compute does (a progress thread then competes for cores). */
static volatile double g_sink;

static void compute_for(int kind, double t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double end = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + t;
    if (kind == K_IDLE) {
        struct timespec until;
        until.tv_sec = (time_t)end;
        until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
            ;
        return;
    }
    double x = g_sink + 1.0;
    do {
        for (int i = 0; i < 256; i++) x = x * 1.0000001 + 1e-7;   /* dependent chain: cannot be skipped */
    } while (now_s() < end);
    g_sink = x;
}

/* Start collective c as requests (sendrecv: the ring pair); *n = how many. */
static plx_status_t start_reqs(bench_t *b, int c, size_t count, plx_request_t rq[2], int *n)
{
    const opts_t *o = b->o;
    *n = 0;
    if (c == C_SENDRECV) {
        if (b->size == 1) {           /* no peer: the copy is the whole operation */
            memcpy(RB(b), SB(b), count * b->es);
            return PLX_SUCCESS;
        }
        int to = (b->rank + 1) % b->size, from = (b->rank - 1 + b->size) % b->size;
        plx_status_t s = plx_irecv(RB(b), count, o->dt, from, 1, b->comm, NULL, &rq[0]);
        if (s != PLX_SUCCESS) return s;
        if ((s = plx_isend(SB(b), count, o->dt, to, 1, b->comm, &rq[1])) != PLX_SUCCESS) {
            plx_request_free(&rq[0]);
            return s;
        }
        *n = 2;
        return PLX_SUCCESS;
    }
    plx_status_t s = start_once(b, c, count, &rq[0]);
    if (s == PLX_SUCCESS) *n = 1;
    return s;
}

/* One overlapped iteration: post, compute for t, wait. */
static plx_status_t overlapped_once(bench_t *b, int c, size_t count, int kind, double t, double *t_compute)
{
    plx_request_t rq[2];
    int n;
    plx_status_t s = start_reqs(b, c, count, rq, &n);
    if (s != PLX_SUCCESS) return s;
    double t0 = now_s();
    compute_for(kind, t);
    *t_compute += now_s() - t0;
    return n ? plx_waitall(n, rq, NULL) : PLX_SUCCESS;
}

typedef struct ovl {
    double t_compute_us[K_N], t_total_us[K_N], overlap[K_N];
    double wrong;
} ovl_t;

/* The overlap measurement of one size.  t_comm_avg (us) is the -t time
 * averaged over ranks, the t_comm reported; rank 0's value of it, broadcast,
 * is the compute time T of every rank (the average rather than rank 0's own
 * loop time: a root finishes a bcast early, and T must be the t_comm the
 * overlap formula uses). */
static int overlap_measure(bench_t *b, int c, size_t count, int iters, double t_comm_avg, ovl_t *ov)
{
    const opts_t *o = b->o;
    double T = t_comm_avg * 1e-6;
    CHECK_OK(plx_bcast(&T, 1, PLX_FLOAT64, 0, b->comm));
    memset(ov, 0, sizeof *ov);
    for (int k = 0; k < K_N; k++) {
        double tc = 0;
        for (int w = 0; w < (o->warmup < 1 ? 1 : o->warmup); w++) CHECK_OK(overlapped_once(b, c, count, k, T, &tc));
        tc = 0;
        CHECK_OK(plx_barrier(b->comm));
        double t0 = now_s();
        for (int it = 0; it < iters; it++) {
            plx_status_t st = overlapped_once(b, c, count, k, T, &tc);
            if (st != PLX_SUCCESS) {
                fprintf(stderr, "plx_perf: rank %d: overlapped %s failed: %s\n", b->rank, coll_names[c], plx_strerror(st));
                return 1;
            }
        }
        double total = (now_s() - t0) / iters * 1e6;
        ov->t_total_us[k] = allreduce_d(b, total, PLX_SUM) / b->size;
        ov->t_compute_us[k] = allreduce_d(b, tc / iters * 1e6, PLX_SUM) / b->size;
        double m = t_comm_avg < ov->t_compute_us[k] ? t_comm_avg : ov->t_compute_us[k];
        ov->overlap[k] = m > 0 ? (t_comm_avg + ov->t_compute_us[k] - ov->t_total_us[k]) / m : 0;
        /* -c: the result of one overlapped iteration from fresh inputs */
        if (o->check) {
            fill_inputs(b, c, count);
            to_device(b, count);
            CHECK_OK(plx_barrier(b->comm));
            CHECK_OK(overlapped_once(b, c, count, k, T, &tc));
            from_device(b, count);
            ov->wrong += allreduce_d(b, (double)count_wrong(b, c, count), PLX_SUM);
        }
    }
    return 0;
}

/* Machine-readable outputs (rank 0 only). */
typedef struct outputs {
    FILE *csv, *json;
    int json_rows;
} outputs_t;

/* The size after sz: times -f, or plus -i (at least one byte more). */
static double next_size(const opts_t *o, double sz)
{
    double next = o->factor > 0 ? sz * o->factor : sz + (double)o->stepbytes;
    return next < sz + 1 ? sz + 1 : next;
}

static int bench_coll(bench_t *b, int c, outputs_t *out)
{
    const opts_t *o = b->o;
    int bad = 0;
    if (b->rank == 0) {
        printf("#\n# %s  ranks %d  type %s  op %s  root %d  %s%s%s  %s\n", coll_names[c], b->size,
               plx_dtype_name(o->dt), plx_op_name(o->op), o->root, o->in_place ? "in-place" : "out-of-place",
               is_v(c) ? "  counts " : "", is_v(c) ? pattern_names[o->pattern] : "",
               o->overlap ? "overlap: post, compute (idle = sleep, busy = spin) for T = t_comm, wait"
               : o->persistent ? "persistent (init once, start + wait)"
               : o->nonblocking ? "nonblocking (i-call + wait)" : "blocking");
        if (o->overlap)
            printf("# %12s %12s %8s %6s %5s %11s %10s%s %11s %11s %7s %11s %11s %7s %8s  %s\n", "size(B)", "count",
                   "type", "op", "root", "t_comm(us)", "busbw", o->minmax ? "   min(us)    max(us)" : "",
                   "idle:comp", "total(us)", "overlap", "busy:comp", "total(us)", "overlap", "#wrong",
                   "algorithm/transport");
        else
            printf("# %12s %12s %8s %6s %5s %11s %10s %10s%s %8s  %s\n", "size(B)", "count", "type", "op",
                   "root", "time(us)", "algbw", "busbw", o->minmax ? "   min(us)    max(us)" : "", "#wrong",
                   "algorithm/transport");
    }
    size_t last = (size_t)-1;
    for (double sz = (double)o->minb; sz <= (double)o->maxb * 1.0000001; sz = next_size(o, sz)) {
        size_t bytes = (size_t)sz, count, sbytes, rbytes;
        counts_for(b, c, bytes, &count, &sbytes, &rbytes);
        if (c != C_BARRIER && count == 0) continue;
        if (c == C_BARRIER && last == 0) break;
        if (count == last) continue;
        last = count;
        size_t shown = c == C_BARRIER ? 0 : (c == C_REDUCE_SCATTER || c == C_SCATTER ? sbytes : rbytes);
        if (is_v(c)) set_vcounts(b, count);

        /* -c N: N runs from fresh inputs, each result checked (-c 0: one unchecked run) */
        double wrong = 0;
        plx_status_t st;
        if (o->persistent && has_persistent(c)) CHECK_OK(persist_init(b, c, count, &b->preq));
        for (int chk = 0; chk < (o->check > 0 ? o->check : 1); chk++) {
            fill_inputs(b, c, count);
            to_device(b, count);
            CHECK_OK(plx_barrier(b->comm));
            st = run_once(b, c, count);
            if (st != PLX_SUCCESS) {
                fprintf(stderr, "plx_perf: rank %d: %s of %zu bytes failed: %s\n", b->rank, coll_names[c], shown, plx_strerror(st));
                return 1;
            }
            if (o->check) {
                from_device(b, count);
                wrong += allreduce_d(b, (double)count_wrong(b, c, count), PLX_SUM);
            }
        }

        /* iterations: rank 0's estimate, so every rank runs the same number */
        int iters = o->iters;
        for (int w = 0; w < o->warmup; w++) CHECK_OK(run_once(b, c, count));
        if (iters <= 0) {
            CHECK_OK(plx_barrier(b->comm));
            double t0 = now_s();
            CHECK_OK(run_once(b, c, count));
            double one = allreduce_d(b, now_s() - t0, PLX_MAX);
            iters = one > 0 ? (int)(0.2 / one) : 1000;
            if (iters < 5) iters = 5;
            if (iters > 20000) iters = 20000;
        }
        CHECK_OK(plx_barrier(b->comm));
        double t0 = now_s();
        for (int it = 0; it < iters; it++) {
            st = run_once(b, c, count);
            if (st != PLX_SUCCESS) {
                fprintf(stderr, "plx_perf: rank %d: %s failed: %s\n", b->rank, coll_names[c], plx_strerror(st));
                return 1;
            }
        }
        double t = (now_s() - t0) / iters * 1e6;
        double tmean = allreduce_d(b, t, PLX_SUM) / b->size;
        double tmin = allreduce_d(b, t, PLX_MIN), tmax = allreduce_d(b, t, PLX_MAX);
        double t0r = t;          /* -a 0: rank 0's own time, broadcast */
        CHECK_OK(plx_bcast(&t0r, 1, PLX_FLOAT64, 0, b->comm));
        double tavg = o->average == 0 ? t0r : o->average == 2 ? tmin : o->average == 3 ? tmax : tmean;
        ovl_t ov;
        if (o->overlap) {
            if (overlap_measure(b, c, count, iters, tavg, &ov)) return 1;
            wrong += ov.wrong;
        }
        const char *algo = "-", *tl = "-";
        if (c != C_SENDRECV && o->device)
            plx_query_algorithm_device(b->comm, coll_names[c], count * b->es, &algo, &tl);
        else if (c != C_SENDRECV)
            plx_query_algorithm(b->comm, coll_names[c], count * b->es, &algo, &tl);
        else plx_query_algorithm(b->comm, "bcast", 0, &algo, &tl), algo = "p2p";
        double algbw = tavg > 0 ? (double)shown / (tavg * 1e-6) / 1e9 : 0;
        double busbw = algbw * busbw_factor(c, b->size);
        if (b->rank == 0 && o->overlap) {
            printf("  %12zu %12zu %8s %6s %5d %11.2f %10.3f", shown, count, plx_dtype_name(o->dt),
                   plx_op_name(o->op), o->root, tavg, busbw);
            if (o->minmax) printf(" %10.2f %10.2f", tmin, tmax);
            for (int k = 0; k < K_N; k++)
                printf(" %11.2f %11.2f %7.3f", ov.t_compute_us[k], ov.t_total_us[k], ov.overlap[k]);
            printf(" %8.0f  %s/%s\n", wrong, algo, tl);
            fflush(stdout);
            if (out->csv)
                fprintf(out->csv, "plexus,%s,%d,%zu,%.3f,%.4f,%.0f,%.3f,%.3f,%.4f,%.3f,%.3f,%.4f\n", coll_names[c],
                        b->size, shown, tavg, busbw, wrong, ov.t_compute_us[K_IDLE], ov.t_total_us[K_IDLE],
                        ov.overlap[K_IDLE], ov.t_compute_us[K_BUSY], ov.t_total_us[K_BUSY], ov.overlap[K_BUSY]);
            if (out->json) {
                fprintf(out->json,
                        "%s  {\"library\": \"plexus\", \"collective\": \"%s\", \"ranks\": %d, \"bytes\": %zu, "
                        "\"count\": %zu, \"type\": \"%s\", \"op\": \"%s\", \"root\": %d, \"in_place\": %s, "
                        "\"iters\": %d, \"time_us\": %.3f, \"t_comm_us\": %.3f, \"time_min_us\": %.3f, "
                        "\"time_max_us\": %.3f, \"algbw_gbps\": %.4f, \"busbw_gbps\": %.4f, \"wrong\": %.0f, "
                        "\"algorithm\": \"%s\", \"transport\": \"%s\", \"overlap\": [",
                        out->json_rows++ ? ",\n" : "", coll_names[c], b->size, shown, count,
                        plx_dtype_name(o->dt), plx_op_name(o->op), o->root, o->in_place ? "true" : "false",
                        iters, tavg, tavg, tmin, tmax, algbw, busbw, wrong, algo, tl);
                for (int k = 0; k < K_N; k++)
                    fprintf(out->json, "%s{\"compute\": \"%s\", \"t_compute_us\": %.3f, \"t_total_us\": %.3f, "
                            "\"overlap\": %.4f}", k ? ", " : "", kind_names[k], ov.t_compute_us[k],
                            ov.t_total_us[k], ov.overlap[k]);
                fprintf(out->json, "]}");
            }
        } else if (b->rank == 0) {
            printf("  %12zu %12zu %8s %6s %5d %11.2f %10.3f %10.3f", shown, count, plx_dtype_name(o->dt),
                   plx_op_name(o->op), o->root, tavg, algbw, busbw);
            if (o->minmax) printf(" %10.2f %10.2f", tmin, tmax);
            printf(" %8.0f  %s/%s\n", wrong, algo, tl);
            fflush(stdout);
            if (out->csv)
                fprintf(out->csv, "plexus,%s,%d,%zu,%.3f,%.4f,%.0f\n", coll_names[c], b->size, shown, tavg, busbw, wrong);
            if (out->json)
                fprintf(out->json,
                        "%s  {\"library\": \"plexus\", \"collective\": \"%s\", \"ranks\": %d, \"bytes\": %zu, "
                        "\"count\": %zu, \"type\": \"%s\", \"op\": \"%s\", \"root\": %d, \"in_place\": %s, "
                        "\"iters\": %d, \"time_us\": %.3f, \"time_min_us\": %.3f, \"time_max_us\": %.3f, "
                        "\"algbw_gbps\": %.4f, \"busbw_gbps\": %.4f, \"wrong\": %.0f, \"algorithm\": \"%s\", "
                        "\"transport\": \"%s\"}",
                        out->json_rows++ ? ",\n" : "", coll_names[c], b->size, shown, count,
                        plx_dtype_name(o->dt), plx_op_name(o->op), o->root, o->in_place ? "true" : "false",
                        iters, tavg, tmin, tmax, algbw, busbw, wrong, algo, tl);
        }
        if (b->preq) CHECK_OK(plx_request_free(&b->preq));
        if (wrong > 0) bad = 1;
        g_busbw_sum += busbw;
        g_busbw_rows++;
        g_wrong_total += wrong;
    }
    return bad;
}

static const char usage_text[] =
"usage: plx_perf [options]    (run it through plexusrun, mpirun or srun)\n"
"\n"
"nccl-tests options (the same letters and meaning as nccl-tests):\n"
"  -b, --minbytes SIZE       smallest size in bytes, K/M/G suffixes (default 8)\n"
"  -e, --maxbytes SIZE       largest size (default 64M)\n"
"  -f, --stepfactor F        multiply the size by F each step (default 2)\n"
"  -i, --stepbytes SIZE      add SIZE each step instead of multiplying\n"
"  -n, --iters N             timed iterations per size (default: enough for ~0.2 s)\n"
"  -w, --warmup_iters N      warm-up iterations per size (default 5)\n"
"  -c, --check N             check the results of N runs per size (default 1; 0: off);\n"
"                            a wrong element makes the exit status 1\n"
"  -d, --datatype TYPE       int8 (char), uint8, int32 (int), uint32, int64, uint64,\n"
"                            float16 (half), bfloat16, float32 (float), float64 (double),\n"
"                            or all (default float32)\n"
"  -o, --op OP               sum, prod, min, max, avg, band, bor, bxor, or all (default sum)\n"
"  -r, --root N              root of bcast, reduce, gather, scatter (default 0)\n"
"  -z, --blocking 0|1        1: blocking calls (default here); 0: the nonblocking\n"
"                            call of each collective + plx_wait\n"
"  -a, --average 0|1|2|3     time reported: 0 rank 0's, 1 mean over ranks (default),\n"
"                            2 minimum, 3 maximum\n"
"  -g, --ngpus 1             GPUs per process: Plexus drives one per rank, so only 1\n"
"  -t, --nthreads 1          threads per process: only 1\n"
"  -m, --agg_iters 1         collectives aggregated per iteration: only 1\n"
"  -C, --report_cputime 0|1  accepted; Plexus always reports host (wall-clock) time\n"
"  -G, --cudagraph 0         CUDA graph launches: not supported, only 0\n"
"\n"
"Plexus options:\n"
"  --coll NAME               allreduce, bcast, reduce, allgather, reduce_scatter,\n"
"                            alltoall, gather, scatter, barrier, sendrecv, allgatherv,\n"
"                            alltoallv, gatherv, scatterv, reduce_scatterv, scan,\n"
"                            exscan, or all\n"
"                            (default allreduce; -c NAME is accepted as before)\n"
"  --counts uniform|skew|heavy  per-rank counts of the v-forms (default uniform;\n"
"                            skew: rank r's share grows as r+1; heavy: the last rank\n"
"                            has as much as all the others together)\n"
"  --in-place                in place (PLX_IN_PLACE)\n"
"  --nonblocking             the same as -z 0\n"
"  -P, --persistent          persistent collectives: plx_*_init once per size, then\n"
"                            plx_start + plx_wait per iteration\n"
"  --overlap                 communication/computation overlap (implies --nonblocking)\n"
"  --minmax                  also print the minimum and maximum time over ranks\n"
"  --memory host|device      where the buffers live (default host; device: CUDA)\n"
"  --csv FILE                also write the rows as CSV\n"
"  --json FILE               also write the rows as a JSON array\n"
"  -h, --help                this text\n"
"\n"
"Output: one row per size (bytes, count, type, op, root, time, algbw, busbw,\n"
"wrong elements, algorithm/transport), then nccl-tests' footer lines\n"
"\"# Out of bounds values\" and \"# Avg bus bandwidth\".  Exit status: 0, 1 when a\n"
"result was wrong or a call failed, 2 for bad options.\n";

static void usage(FILE *f) { fputs(usage_text, f); }

/* A bad option value: say which and why, exit 2 (before plx_init). */
static void bad_value(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "plx_perf: %s '%s': expected %s (plx_perf --help)\n", opt, val, want);
    exit(2);
}

/* A whole decimal number in [lo, hi]; no junk after it ("4x" is refused). */
static int parse_int(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        char want[96];
        snprintf(want, sizeof want, "a whole number from %ld to %ld", lo, hi);
        bad_value(opt, s, want);
    }
    return (int)v;
}

static size_t parse_bytes(const char *opt, const char *s)
{
    size_t v;
    if (plx_parse_size(s, &v) != 0 || v == SIZE_MAX)
        bad_value(opt, s, "a size in bytes with an optional K/M/G suffix (e.g. 8, 64K, 1M)");
    return v;
}

/* Datatype names of Plexus and their nccl-tests spellings; -1 if unknown. */
static int parse_dtype(const char *s)
{
    static const struct { const char *name; plx_dtype_t dt; } alias[] = {
        { "char", PLX_INT8 }, { "int", PLX_INT32 }, { "half", PLX_FLOAT16 },
        { "float", PLX_FLOAT32 }, { "double", PLX_FLOAT64 }, { "bf16", PLX_BFLOAT16 },
    };
    for (int d = 0; d < PLX_DTYPE_COUNT; d++)
        if (!strcmp(s, plx_dtype_name((plx_dtype_t)d))) return d;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(s, alias[i].name)) return (int)alias[i].dt;
    return -1;
}

static int parse_coll(const char *s)
{
    if (!strcmp(s, "all")) return -1;
    for (int c = 0; c < C_N; c++)
        if (!strcmp(s, coll_names[c])) return c;
    return -2;
}

enum { OPT_COLL = 256, OPT_IN_PLACE, OPT_NONBLOCKING, OPT_OVERLAP, OPT_MINMAX, OPT_MEMORY, OPT_CSV,
       OPT_JSON, OPT_COUNTS };

static void parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option longopts[] = {
        { "minbytes", required_argument, NULL, 'b' },
        { "maxbytes", required_argument, NULL, 'e' },
        { "stepfactor", required_argument, NULL, 'f' },
        { "stepbytes", required_argument, NULL, 'i' },
        { "iters", required_argument, NULL, 'n' },
        { "warmup_iters", required_argument, NULL, 'w' },
        { "check", required_argument, NULL, 'c' },
        { "datatype", required_argument, NULL, 'd' },
        { "op", required_argument, NULL, 'o' },
        { "root", required_argument, NULL, 'r' },
        { "blocking", required_argument, NULL, 'z' },
        { "average", required_argument, NULL, 'a' },
        { "ngpus", required_argument, NULL, 'g' },
        { "nthreads", required_argument, NULL, 't' },
        { "agg_iters", required_argument, NULL, 'm' },
        { "report_cputime", required_argument, NULL, 'C' },
        { "cudagraph", required_argument, NULL, 'G' },
        { "coll", required_argument, NULL, OPT_COLL },
        { "in-place", no_argument, NULL, OPT_IN_PLACE },
        { "nonblocking", no_argument, NULL, OPT_NONBLOCKING },
        { "overlap", no_argument, NULL, OPT_OVERLAP },
        { "minmax", no_argument, NULL, OPT_MINMAX },
        { "memory", required_argument, NULL, OPT_MEMORY },
        { "csv", required_argument, NULL, OPT_CSV },
        { "json", required_argument, NULL, OPT_JSON },
        { "counts", required_argument, NULL, OPT_COUNTS },
        { "persistent", no_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int ch;
    opterr = 0;              /* our own messages */
    while ((ch = getopt_long(argc, argv, ":b:e:f:i:n:w:c:d:o:r:z:a:g:t:m:C:G:hP", longopts, NULL)) != -1) {
        switch (ch) {
        case 'b': o->minb = parse_bytes("-b", optarg); break;
        case 'e': o->maxb = parse_bytes("-e", optarg); break;
        case 'f': {
            char *end;
            errno = 0;
            double f = strtod(optarg, &end);
            if (!*optarg || *end || errno || !(f > 1) || !isfinite(f)) bad_value("-f", optarg, "a factor > 1");
            o->factor = f;
            break;
        }
        case 'i':
            o->stepbytes = parse_bytes("-i", optarg);
            if (o->stepbytes == 0) bad_value("-i", optarg, "a step of at least 1 byte");
            o->factor = 0;
            break;
        case 'n': o->iters = parse_int("-n", optarg, 1, INT_MAX); break;
        case 'w': o->warmup = parse_int("-w", optarg, 0, INT_MAX); break;
        case 'c': {
            /* nccl-tests: -c N checks N runs.  A collective's name is taken
             * too, as -c meant --coll in earlier plx_perf versions. */
            int c = parse_coll(optarg);
            if (c != -2) o->coll = c;
            else o->check = parse_int("-c", optarg, 0, 1000000);
            break;
        }
        case 'd':
            if (!strcmp(optarg, "all")) o->all_dtypes = 1;
            else {
                int d = parse_dtype(optarg);
                if (d < 0) bad_value("-d", optarg, "a datatype: int8 uint8 int32 uint32 int64 uint64 float16 "
                                                   "bfloat16 float32 float64 (char int half float double) or all");
                o->dt = (plx_dtype_t)d;
                o->all_dtypes = 0;
            }
            break;
        case 'o': {
            if (!strcmp(optarg, "all")) { o->all_ops = 1; break; }
            int found = -1;
            for (int p = 0; p < PLX_OP_COUNT; p++)
                if (!strcmp(optarg, plx_op_name((plx_op_t)p))) found = p;
            if (found < 0) bad_value("-o", optarg, "sum, prod, min, max, avg, band, bor, bxor or all");
            o->op = (plx_op_t)found;
            o->all_ops = 0;
            break;
        }
        case 'r': o->root = parse_int("-r", optarg, 0, INT_MAX); break;
        case 'z': o->nonblocking = !parse_int("-z", optarg, 0, 1); break;
        case 'a': o->average = parse_int("-a", optarg, 0, 3); break;
        case 'g': if (strcmp(optarg, "1")) bad_value("-g", optarg, "1 (each rank drives one GPU)"); break;
        case 't': if (strcmp(optarg, "1")) bad_value("-t", optarg, "1 (one thread per rank)"); break;
        case 'm': if (strcmp(optarg, "1")) bad_value("-m", optarg, "1 (no aggregation; --memory picks host or device buffers)"); break;
        case 'C': parse_int("-C", optarg, 0, 1); break;
        case 'G': if (strcmp(optarg, "0")) bad_value("-G", optarg, "0 (CUDA graphs are not supported)"); break;
        case OPT_COLL:
            o->coll = parse_coll(optarg);
            if (o->coll == -2)
                bad_value("--coll", optarg, "allreduce bcast reduce allgather reduce_scatter alltoall gather "
                                            "scatter barrier sendrecv allgatherv alltoallv gatherv scatterv "
                                            "reduce_scatterv scan exscan or all");
            break;
        case OPT_IN_PLACE: o->in_place = 1; break;
        case OPT_NONBLOCKING: o->nonblocking = 1; break;
        case OPT_OVERLAP: o->overlap = o->nonblocking = 1; break;
        case OPT_MINMAX: o->minmax = 1; break;
        case OPT_MEMORY:
            if (!strcmp(optarg, "device")) o->device = 1;
            else if (!strcmp(optarg, "host")) o->device = 0;
            else bad_value("--memory", optarg, "host or device");
            break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_JSON: o->json = optarg; break;
        case 'P': o->persistent = 1; break;
        case OPT_COUNTS:
            o->pattern = -1;
            for (int k = 0; k < 3; k++)
                if (!strcmp(optarg, pattern_names[k])) o->pattern = k;
            if (o->pattern < 0) bad_value("--counts", optarg, "uniform, skew or heavy");
            break;
        case 'h': usage(stdout); exit(0);
        case ':':
            if (optopt) fprintf(stderr, "plx_perf: -%c needs a value (plx_perf --help)\n", optopt);
            else fprintf(stderr, "plx_perf: %s needs a value (plx_perf --help)\n", argv[optind - 1]);
            exit(2);
        default:
            if (optopt) fprintf(stderr, "plx_perf: unknown option '-%c' (plx_perf --help)\n", optopt);
            else fprintf(stderr, "plx_perf: unknown option '%s' (plx_perf --help)\n", argv[optind - 1]);
            exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "plx_perf: unexpected argument '%s' (plx_perf --help)\n", argv[optind]);
        exit(2);
    }
    if (o->minb > o->maxb) {
        fprintf(stderr, "plx_perf: -b %zu is larger than -e %zu\n", o->minb, o->maxb);
        exit(2);
    }
    if (o->overlap && o->nonblocking == 0) o->nonblocking = 1;
}

int main(int argc, char **argv)
{
    opts_t o = { .coll = C_ALLREDUCE, .minb = 8, .maxb = 64u << 20, .factor = 2, .dt = PLX_FLOAT32,
                 .op = PLX_SUM, .root = 0, .warmup = 5, .iters = 0, .in_place = 0, .check = 1,
                 .average = 1 };
    parse_args(argc, argv, &o);
#ifdef PR_SET_TIMERSLACK
    /* --overlap sleeps for T: without this, Linux lets a sleep run up to
     * 50 us late (the default timer slack), longer than a small T itself */
    if (o.overlap) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif

    plx_context_t ctx;
    CHECK_OK(plx_init(&ctx));
    bench_t b = { .o = &o };
    CHECK_OK(plx_comm_world(ctx, &b.comm));
    CHECK_OK(plx_comm_rank(b.comm, &b.rank));
    CHECK_OK(plx_comm_size(b.comm, &b.size));
    if (o.root < 0 || o.root >= b.size) {
        if (b.rank == 0) fprintf(stderr, "plx_perf: root %d is not a rank (size %d)\n", o.root, b.size);
        plx_finalize(&ctx);
        return 2;
    }
    /* the largest buffer any collective needs at -e, for the widest type
     * (-d all): count*size elements; alltoallv's heavy rank receives up to
     * size x its share */
    int vmult = o.coll < 0 || is_v(o.coll) ? b.size + 1 : 2;
    b.cap = (o.maxb / 8 + 1) * 8 * (size_t)(vmult > 2 ? vmult : 2) + 64;
    b.vc = calloc((size_t)b.size, sizeof *b.vc);
    b.vd = calloc((size_t)b.size, sizeof *b.vd);
    b.vrc = calloc((size_t)b.size, sizeof *b.vrc);
    b.vrd = calloc((size_t)b.size, sizeof *b.vrd);
    if (!b.vc || !b.vd || !b.vrc || !b.vrd) { fprintf(stderr, "plx_perf: out of memory\n"); return 1; }
    b.sbuf = malloc(b.cap);
    b.rbuf = malloc(b.cap);
    if (!b.sbuf || !b.rbuf) { fprintf(stderr, "plx_perf: out of memory\n"); return 1; }
    memset(b.sbuf, 0, b.cap);
    memset(b.rbuf, 0, b.cap);
    const char *dev_note = NULL;
    char dev_line[256] = "";
    if (o.device) {
#if PLX_HAVE_CUDA
        int usable = 0, ndev = 0;
        plx_query_device(ctx, &usable);
        if (!usable || cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
            if (b.rank == 0) fprintf(stderr, "plx_perf: --memory device: no usable CUDA device\n");
            plx_finalize(&ctx);
            return 2;
        }
        /* one GPU per rank where there are enough (ranks of one node) */
        int dev = b.rank % ndev;
        struct cudaDeviceProp prop;
        if (cudaSetDevice(dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
            cudaMalloc(&b.dsbuf, b.cap) != cudaSuccess || cudaMalloc(&b.drbuf, b.cap) != cudaSuccess) {
            fprintf(stderr, "plx_perf: rank %d: GPU %d: cudaMalloc of 2 x %zu bytes failed\n", b.rank, dev, b.cap);
            return 1;
        }
        /* the first device collective decides the path (NCCL or staged) */
        CHECK_OK(plx_allreduce(PLX_IN_PLACE, b.drbuf, 1, PLX_FLOAT32, PLX_SUM, b.comm));
        const char *alg = "?", *tl = "?";
        plx_query_algorithm_device(b.comm, "allreduce", 1 << 20, &alg, &tl);
        snprintf(dev_line, sizeof dev_line, "device buffers (%d GPU(s) seen, rank 0 on GPU %d: %.80s) through %s", ndev,
                 dev, prop.name, tl);
        dev_note = !strncmp(tl, "staged", 6) ? " (no NCCL path on this communicator: staged through pinned host "
                                                "memory, slower)" : "";
#else
        if (b.rank == 0) fprintf(stderr, "plx_perf: --memory device: this Plexus was built without CUDA\n");
        plx_finalize(&ctx);
        return 2;
#endif
    }

    outputs_t out = { 0 };
    if (o.csv && b.rank == 0) {
        out.csv = fopen(o.csv, "w");
        if (!out.csv) { perror(o.csv); return 1; }
        fprintf(out.csv, "library,collective,ranks,bytes,time_us,busbw_gbps,wrong%s\n",
                o.overlap ? ",t_compute_idle_us,t_total_idle_us,overlap_idle,t_compute_busy_us,t_total_busy_us,overlap_busy"
                          : "");
    }
    if (o.json && b.rank == 0) {
        out.json = fopen(o.json, "w");
        if (!out.json) { perror(o.json); return 1; }
        fprintf(out.json, "[\n");
    }
    if (b.rank == 0) printf("# plx_perf: Plexus %s, %d ranks\n", plx_version_string(), b.size);
    if (b.rank == 0 && dev_note) printf("# %s%s\n", dev_line, dev_note);
    int bad = 0;
    /* every collective x datatype x op asked for (-d all, -o all: each in turn;
     * collectives without a reduction run once per datatype) */
    for (int c = 0; c < C_N; c++) {
        if (o.coll >= 0 && c != o.coll) continue;
        if (o.device && c == C_SENDRECV) {
            if (b.rank == 0) printf("# sendrecv: point-to-point calls take host buffers only, skipped with --memory device\n");
            continue;
        }
        int reduction = c == C_ALLREDUCE || c == C_REDUCE || c == C_REDUCE_SCATTER || c == C_REDUCE_SCATTERV ||
                        c == C_SCAN || c == C_EXSCAN;
        for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
            if (o.all_dtypes ? 0 : d != (int)o.dt) continue;
            for (int p = 0; p < PLX_OP_COUNT; p++) {
                if (reduction && !o.all_ops && p != (int)o.op) continue;
                if (!reduction && p != (int)(o.all_ops ? PLX_SUM : o.op)) continue;
                opts_t run = o;
                run.dt = (plx_dtype_t)d;
                run.op = (plx_op_t)p;
                int is_float = d == PLX_FLOAT16 || d == PLX_BFLOAT16 || d == PLX_FLOAT32 || d == PLX_FLOAT64;
                if (reduction && p > PLX_AVG && is_float) {
                    if (b.rank == 0 && !o.all_ops)
                        printf("# %s: op %s not defined on %s, skipped\n", coll_names[c], plx_op_name(run.op),
                               plx_dtype_name(run.dt));
                    continue;
                }
                b.o = &run;
                b.es = plx_dtype_size(run.dt);
                bad |= bench_coll(&b, c, &out);
                b.o = &o;
            }
        }
    }
    if (out.csv) fclose(out.csv);
    if (out.json) {
        fprintf(out.json, "\n]\n");
        fclose(out.json);
    }
    if (b.rank == 0) {
        /* nccl-tests' footer lines, which scripts parse */
        printf("# Out of bounds values : %.0f %s\n", g_wrong_total, g_wrong_total > 0 ? "FAILED" : "OK");
        printf("# Avg bus bandwidth    : %g \n", g_busbw_rows ? g_busbw_sum / (double)g_busbw_rows : 0.0);
        printf("#\n# %s\n", bad ? "FAILED: some results were wrong" : "all results correct");
    }
    free(b.sbuf);
    free(b.rbuf);
    free(b.vc);
    free(b.vd);
    free(b.vrc);
    free(b.vrd);
#if PLX_HAVE_CUDA
    if (b.dsbuf) cudaFree(b.dsbuf);
    if (b.drbuf) cudaFree(b.drbuf);
#endif
    CHECK_OK(plx_finalize(&ctx));
    return bad;
}
