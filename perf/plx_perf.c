/*
 * perf/plx_perf.c — the benchmark users run, in the style of nccl-tests:
 * latency and bandwidth of one collective over a range of sizes, with every
 * result checked against a serial reference.
 *
 *   plexusrun -n 4 plx_perf -c allreduce -b 8 -e 128M -f 2
 *
 * Options:
 *   -c NAME   allreduce|bcast|reduce|allgather|reduce_scatter|alltoall|
 *             gather|scatter|barrier|sendrecv|all   (default allreduce)
 *   -b SIZE   smallest size in bytes (K/M/G suffixes; default 8)
 *   -e SIZE   largest size (default 64M)
 *   -f N      multiply the size by N each step (default 2)
 *   -d TYPE   datatype (float32 default; any plexus datatype name)
 *   -o OP     reduction op (sum default)
 *   -r ROOT   root of rooted collectives (default 0)
 *   -w N      warm-up iterations (default 5)
 *   -n N      timed iterations (default: scaled so each size takes ~0.2 s)
 *   -i        in place
 *   -C 0|1    check results (default 1); wrong elements make the exit status 1
 *   -F        also print min/max time over ranks
 *   -t        nonblocking variant: plx_i<collective> (plx_isend/plx_irecv) + plx_wait
 *   -P, --persistent  persistent variant: plx_<collective>_init once per size, then
 *             each iteration plx_start + plx_wait (collectives; sendrecv as without -P)
 *   --overlap communication/computation overlap (implies -t): per size, t_comm is
 *             the -t time (post + wait); then for each of two kinds of
 *             "compute" lasting T = t_comm (rank 0's value, broadcast, so every
 *             rank computes as long) -- idle: the thread sleeps (clock_nanosleep),
 *             as a host does while a GPU kernel runs; busy: the thread spins
 *             doing arithmetic -- each iteration posts the collective,
 *             computes for T, then waits.  Reported per size and kind:
 *             t_compute (measured), t_total (per iteration) and
 *             overlap = (t_comm + t_compute - t_total) / min(t_comm, t_compute):
 *             1 when the collective hid entirely behind the compute, 0 when
 *             it ran only after it (all times: mean over iterations, then
 *             over ranks, as for -t).  With caller-driven progress nothing
 *             moves while the thread sleeps; PLX_PROGRESS=thread moves it.
 *   --csv F   also write rows library,collective,ranks,bytes,time_us,busbw_gbps,wrong
 *             (--overlap: time_us is t_comm, and six columns follow:
 *             t_compute_idle_us,t_total_idle_us,overlap_idle,
 *             t_compute_busy_us,t_total_busy_us,overlap_busy)
 *   --json F  also write every row with all its fields as a JSON array of objects
 *   -m host|device  where the buffers live (default host); device: cudaMalloc'd on
 *             GPU rank % GPUs, inputs copied there and results back outside the
 *             timing; the header says whether the collectives go through NCCL
 *             or are staged through host memory ("staged/shm"), and each row's
 *             algorithm/transport column is plx_query_algorithm_device's.
 *             (sendrecv is skipped: point-to-point takes host buffers.)
 *
 * Sizes are total bytes as in nccl-tests: the result buffer for allgather,
 * gather; the send buffer for reduce_scatter, scatter; the whole exchanged
 * buffer for alltoall; the message for the others.  busbw uses nccl-tests'
 * factors so numbers compare across libraries and rank counts.
 */
#include <plexus.h>

#include <errno.h>
#include <math.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "half.h"

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
       C_SCATTER, C_BARRIER, C_SENDRECV, C_N };
static const char *const coll_names[C_N] = { "allreduce", "bcast", "reduce", "allgather",
    "reduce_scatter", "alltoall", "gather", "scatter", "barrier", "sendrecv" };

typedef struct opts {
    int coll;                   /* -1 = all */
    size_t minb, maxb;
    double factor;
    plx_dtype_t dt;
    plx_op_t op;
    int root, warmup, iters, in_place, check, minmax, nonblocking, overlap;
    int persistent;             /* -P */
    int device;                 /* -m device: buffers in GPU memory */
    const char *csv, *json;
} opts_t;

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
    plx_request_t preq;         /* -P: the persistent request of the current size */
} bench_t;

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
    default: return PLX_ERR_INVALID_ARG;
    }
}

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
        /* -C: the result of one overlapped iteration from fresh inputs */
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

static int bench_coll(bench_t *b, int c, outputs_t *out)
{
    const opts_t *o = b->o;
    int bad = 0;
    if (b->rank == 0) {
        printf("#\n# %s  ranks %d  type %s  op %s  root %d  %s  %s\n", coll_names[c], b->size,
               plx_dtype_name(o->dt), plx_op_name(o->op), o->root, o->in_place ? "in-place" : "out-of-place",
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
    for (double sz = (double)o->minb; sz <= (double)o->maxb * 1.0000001; sz = sz * o->factor < sz + 1 ? sz + 1 : sz * o->factor) {
        size_t bytes = (size_t)sz, count, sbytes, rbytes;
        counts_for(b, c, bytes, &count, &sbytes, &rbytes);
        if (c != C_BARRIER && count == 0) continue;
        if (c == C_BARRIER && last == 0) break;
        if (count == last) continue;
        last = count;
        size_t shown = c == C_BARRIER ? 0 : (c == C_REDUCE_SCATTER || c == C_SCATTER ? sbytes : rbytes);

        fill_inputs(b, c, count);
        to_device(b, count);
        if (o->persistent && c != C_SENDRECV) CHECK_OK(persist_init(b, c, count, &b->preq));
        CHECK_OK(plx_barrier(b->comm));
        plx_status_t st = run_once(b, c, count);
        if (st != PLX_SUCCESS) {
            fprintf(stderr, "plx_perf: rank %d: %s of %zu bytes failed: %s\n", b->rank, coll_names[c], shown, plx_strerror(st));
            return 1;
        }
        if (o->check) from_device(b, count);
        double wrong = o->check ? allreduce_d(b, (double)count_wrong(b, c, count), PLX_SUM) : 0;

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
        double tavg = allreduce_d(b, t, PLX_SUM) / b->size;
        double tmin = allreduce_d(b, t, PLX_MIN), tmax = allreduce_d(b, t, PLX_MAX);
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
    }
    return bad;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: plx_perf [-c COLL|all] [-b MIN] [-e MAX] [-f FACTOR] [-d TYPE] [-o OP] [-r ROOT]\n"
            "                [-w WARMUP] [-n ITERS] [-i] [-t] [-P] [--overlap] [-m host|device] [-C 0|1] [-F]\n"
            "                [--csv FILE] [--json FILE]\n");
}

int main(int argc, char **argv)
{
    opts_t o = { .coll = C_ALLREDUCE, .minb = 8, .maxb = 64u << 20, .factor = 2, .dt = PLX_FLOAT32,
                 .op = PLX_SUM, .root = 0, .warmup = 5, .iters = 0, .in_place = 0, .check = 1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "-c") && v) {
            o.coll = -2;
            if (!strcmp(v, "all")) o.coll = -1;
            for (int c = 0; c < C_N; c++) if (!strcmp(v, coll_names[c])) o.coll = c;
            if (o.coll == -2) { fprintf(stderr, "plx_perf: unknown collective '%s'\n", v); return 2; }
        } else if (!strcmp(a, "-b") && v) { if (parse_size(v, &o.minb)) { usage(); return 2; } }
        else if (!strcmp(a, "-e") && v) { if (parse_size(v, &o.maxb)) { usage(); return 2; } }
        else if (!strcmp(a, "-f") && v) { o.factor = atof(v); if (o.factor <= 1) { usage(); return 2; } }
        else if (!strcmp(a, "-d") && v) {
            int found = -1;
            for (int d = 0; d < PLX_DTYPE_COUNT; d++) if (!strcmp(v, plx_dtype_name((plx_dtype_t)d))) found = d;
            if (found < 0) { fprintf(stderr, "plx_perf: unknown datatype '%s'\n", v); return 2; }
            o.dt = (plx_dtype_t)found;
        } else if (!strcmp(a, "-o") && v) {
            int found = -1;
            for (int p = 0; p < PLX_OP_COUNT; p++) if (!strcmp(v, plx_op_name((plx_op_t)p))) found = p;
            if (found < 0) { fprintf(stderr, "plx_perf: unknown op '%s'\n", v); return 2; }
            o.op = (plx_op_t)found;
        } else if (!strcmp(a, "-r") && v) o.root = atoi(v);
        else if (!strcmp(a, "-w") && v) o.warmup = atoi(v);
        else if (!strcmp(a, "-n") && v) o.iters = atoi(v);
        else if (!strcmp(a, "-C") && v) o.check = atoi(v);
        else if (!strcmp(a, "--csv") && v) o.csv = v;
        else if (!strcmp(a, "--json") && v) o.json = v;
        else if (!strcmp(a, "-m") && v) {
            if (!strcmp(v, "device")) o.device = 1;
            else if (!strcmp(v, "host")) o.device = 0;
            else { fprintf(stderr, "plx_perf: -m takes host or device\n"); return 2; }
        }
        else if (!strcmp(a, "-i")) { o.in_place = 1; takes = 0; }
        else if (!strcmp(a, "-F")) { o.minmax = 1; takes = 0; }
        else if (!strcmp(a, "-t")) { o.nonblocking = 1; takes = 0; }
        else if (!strcmp(a, "-P") || !strcmp(a, "--persistent")) { o.persistent = 1; takes = 0; }
        else if (!strcmp(a, "--overlap")) { o.overlap = o.nonblocking = 1; takes = 0; }
        else { usage(); return 2; }
        i += takes;
    }
    if (o.minb > o.maxb) { usage(); return 2; }
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
    b.es = plx_dtype_size(o.dt);
    /* the largest buffer any collective needs at -e: count*size elements */
    b.cap = (o.maxb / b.es + 1) * b.es * 2 + 64;
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
            if (b.rank == 0) fprintf(stderr, "plx_perf: -m device: no usable CUDA device\n");
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
        if (b.rank == 0) fprintf(stderr, "plx_perf: -m device: this Plexus was built without CUDA\n");
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
    for (int c = 0; c < C_N; c++) {
        if (o.coll >= 0 && c != o.coll) continue;
        if (o.device && c == C_SENDRECV) {
            if (b.rank == 0) printf("# sendrecv: point-to-point calls take host buffers only, skipped with -m device\n");
            continue;
        }
        int reduction = c == C_ALLREDUCE || c == C_REDUCE || c == C_REDUCE_SCATTER;
        if (reduction && !((o.op <= PLX_AVG) || (o.dt != PLX_FLOAT16 && o.dt != PLX_BFLOAT16 &&
                                                 o.dt != PLX_FLOAT32 && o.dt != PLX_FLOAT64))) {
            if (b.rank == 0) printf("# %s: op %s not defined on %s, skipped\n", coll_names[c], plx_op_name(o.op), plx_dtype_name(o.dt));
            continue;
        }
        bad |= bench_coll(&b, c, &out);
    }
    if (out.csv) fclose(out.csv);
    if (out.json) {
        fprintf(out.json, "\n]\n");
        fclose(out.json);
    }
    if (b.rank == 0) printf("# %s\n", bad ? "FAILED: some results were wrong" : "all results correct");
    free(b.sbuf);
    free(b.rbuf);
#if PLX_HAVE_CUDA
    if (b.dsbuf) cudaFree(b.dsbuf);
    if (b.drbuf) cudaFree(b.drbuf);
#endif
    CHECK_OK(plx_finalize(&ctx));
    return bad;
}
