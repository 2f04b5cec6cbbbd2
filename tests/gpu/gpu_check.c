/*
 * tests/gpu/gpu_check.c — every collective on GPU (CUDA device) buffers,
 * results checked, launched by plexusrun (tests/gpu/run.sh runs it).
 *
 *   plexusrun -n N gpu_check [--quick] [--expect nccl|staged] [--modes LIST]
 *   PLX_TIMEOUT=2 gpu_check --fault [--expect ...]   (1 rank: see fault())
 *   gpu_check --probe        (no plexusrun: is a CUDA device usable here?)
 *
 * Without CUDA (not built, no driver, no GPU) it prints
 * "SKIP: no CUDA device (...)" and exits 77, which make check counts as
 * skipped.
 *
 * What it checks, for bcast, reduce, allreduce, allgather, reduce_scatter,
 * alltoall, gather, scatter x datatypes x counts x in place or not x roots
 * {0, size-1} x reduction ops (sum, max, min, prod, avg, and band, which
 * NCCL lacks and Plexus stages), each result element against a serial
 * reference, in four ways of calling (--modes, default all):
 *   block   the plain blocking call on device pointers;
 *   nb      the i-form completed by a plx_test loop (the engine polls a
 *           CUDA event; the loop counts its polls);
 *   stream  plx_<coll>_on_stream: the input is copied to the device on a
 *           stream from pinned memory (asynchronously), the collective is
 *           put on the same stream, the result copied back on it, and only
 *           then is the stream synchronised: the order is the stream's;
 *   graph   a task graph with one collective node on device buffers.
 * And: the route (plx_query_algorithm_device: "nccl" or "staged/...")
 * equals --expect; device and host collectives interleaved nonblocking on
 * one communicator (sequence numbers stay matched); a dup'd communicator
 * (its own NCCL setup); a rank mixing host and device buffers gets
 * PLX_ERR_INVALID_ARG; plx_comm_set_mem_type(PLX_MEM_HOST) keeps host
 * collectives working; the v-forms, scans and a non-commutative user op on
 * device buffers (vforms()).
 *
 * Output: FAIL lines, then `gpu_check: rank R of N: X checks, F failures
 * (route ..., GPU ...)`; exit 1 on any failure.
 */
#include <plexus.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/half.h"

#if PLX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static int rank_, size_;
static long checks, failures;

#define FAILF(...)                                               \
    do {                                                         \
        failures++;                                              \
        if (failures <= 50) {                                    \
            printf("FAIL rank=%d: ", rank_);                     \
            printf(__VA_ARGS__);                                 \
            printf("\n");                                        \
            fflush(stdout);                                      \
        }                                                        \
    } while (0)

#if PLX_HAVE_CUDA

#define CU(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            printf("gpu_check: rank %d: %s failed: %s\n", rank_, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

enum { C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL, C_GATHER, C_SCATTER, C_N };
static const char *const cname[C_N] = { "bcast", "reduce", "allreduce", "allgather", "reduce_scatter",
                                        "alltoall", "gather", "scatter" };
enum { M_BLOCK, M_NB, M_STREAM, M_GRAPH, M_N };
static const char *const mname[M_N] = { "block", "nb", "stream", "graph" };

/* ---- values (exact in every type: small integers) --------------------------- */
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

static double as_type(double v, plx_dtype_t dt)
{
    char tmp[8];
    put(tmp, 0, dt, v);
    return get(tmp, 0, dt);
}

/* Rank r's input at element i (a seed varies it between tests). */
static unsigned seed_;
static double val(int r, size_t i, plx_op_t op)
{
    size_t k = i + seed_;
    if (op == PLX_PROD) return ((r + k) % 5 == 0) ? 2 : 1;
    if (op == PLX_BAND) return (double)(((size_t)r * 5 + k * 3) % 8 | 8);
    return (double)((r * 7 + k * 13) % 4);
}

static double ref_reduce(size_t i, plx_op_t op, plx_dtype_t dt)
{
    double acc = val(0, i, op);
    for (int r = 1; r < size_; r++) {
        double v = val(r, i, op);
        switch (op) {
        case PLX_SUM: case PLX_AVG: acc += v; break;
        case PLX_PROD: acc *= v; break;
        case PLX_MIN: acc = v < acc ? v : acc; break;
        case PLX_MAX: acc = v > acc ? v : acc; break;
        case PLX_BAND: acc = (double)((int64_t)acc & (int64_t)v); break;
        default: break;
        }
    }
    if (op == PLX_AVG)
        acc = (dt == PLX_FLOAT32 || dt == PLX_FLOAT64) ? acc / size_ : (double)((int64_t)acc / size_);
    return as_type(acc, dt);
}

/* ---- one test ------------------------------------------------------------------ */
typedef struct test {
    int c, mode, in_place, root;
    plx_dtype_t dt;
    plx_op_t op;
    size_t n;
} test_t;

static plx_comm_t comm_;
static plx_context_t ctx_;
static cudaStream_t stream_;
static void *ds_, *dr_;            /* device buffers, cap_ bytes each */
static void *hs_, *hr_, *pin_;     /* host: inputs, results; pinned bounce for the stream mode */
static size_t cap_;

static int is_reduction(int c) { return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER; }

/* Issue the collective of t on the device buffers in mode m. */
static plx_status_t issue(const test_t *t, void *sb, void *rb)
{
    int root_ip = t->in_place && rank_ == t->root;
    const void *s = t->in_place ? PLX_IN_PLACE : sb;
    plx_comm_t cm = comm_;
    size_t n = t->n;
    if (t->mode == M_STREAM) {
        cudaStream_t st = stream_;
        switch (t->c) {
        case C_BCAST: return plx_bcast_on_stream(rb, n, t->dt, t->root, cm, st);
        case C_REDUCE: return plx_reduce_on_stream(root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->op, t->root, cm, st);
        case C_ALLREDUCE: return plx_allreduce_on_stream(s, rb, n, t->dt, t->op, cm, st);
        case C_ALLGATHER: return plx_allgather_on_stream(s, rb, n, t->dt, cm, st);
        case C_REDUCE_SCATTER: return plx_reduce_scatter_on_stream(s, rb, n, t->dt, t->op, cm, st);
        case C_ALLTOALL: return plx_alltoall_on_stream(s, rb, n, t->dt, cm, st);
        case C_GATHER: return plx_gather_on_stream(root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->root, cm, st);
        default: return plx_scatter_on_stream(sb, root_ip ? PLX_IN_PLACE : rb, n, t->dt, t->root, cm, st);
        }
    }
    if (t->mode == M_GRAPH) {
        plx_graph_t g;
        plx_graph_node_t node;
        plx_status_t st = plx_graph_create(ctx_, &g);
        if (st != PLX_SUCCESS) return st;
        switch (t->c) {
        case C_BCAST: st = plx_graph_add_bcast(g, rb, n, t->dt, t->root, cm, &node); break;
        case C_REDUCE: st = plx_graph_add_reduce(g, root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->op, t->root, cm, &node); break;
        case C_ALLREDUCE: st = plx_graph_add_allreduce(g, s, rb, n, t->dt, t->op, cm, &node); break;
        case C_ALLGATHER: st = plx_graph_add_allgather(g, s, rb, n, t->dt, cm, &node); break;
        case C_REDUCE_SCATTER: st = plx_graph_add_reduce_scatter(g, s, rb, n, t->dt, t->op, cm, &node); break;
        case C_ALLTOALL: st = plx_graph_add_alltoall(g, s, rb, n, t->dt, cm, &node); break;
        case C_GATHER: st = plx_graph_add_gather(g, root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->root, cm, &node); break;
        default: st = plx_graph_add_scatter(g, sb, root_ip ? PLX_IN_PLACE : rb, n, t->dt, t->root, cm, &node); break;
        }
        if (st == PLX_SUCCESS) st = plx_graph_compile(g);
        if (st == PLX_SUCCESS) st = plx_graph_run(g);
        plx_graph_free(&g);
        return st;
    }
    plx_request_t rq;
    plx_status_t st;
    switch (t->c) {
    case C_BCAST: st = plx_ibcast(rb, n, t->dt, t->root, cm, &rq); break;
    case C_REDUCE: st = plx_ireduce(root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->op, t->root, cm, &rq); break;
    case C_ALLREDUCE: st = plx_iallreduce(s, rb, n, t->dt, t->op, cm, &rq); break;
    case C_ALLGATHER: st = plx_iallgather(s, rb, n, t->dt, cm, &rq); break;
    case C_REDUCE_SCATTER: st = plx_ireduce_scatter(s, rb, n, t->dt, t->op, cm, &rq); break;
    case C_ALLTOALL: st = plx_ialltoall(s, rb, n, t->dt, cm, &rq); break;
    case C_GATHER: st = plx_igather(root_ip ? PLX_IN_PLACE : sb, rb, n, t->dt, t->root, cm, &rq); break;
    default: st = plx_iscatter(sb, root_ip ? PLX_IN_PLACE : rb, n, t->dt, t->root, cm, &rq); break;
    }
    if (st != PLX_SUCCESS) return st;
    if (t->mode == M_BLOCK) return plx_wait(&rq);
    /* nb: the engine completes it by polling an event; the loop never blocks */
    int done = 0;
    long polls = 0;
    while (!done) {
        st = plx_test(&rq, &done);
        polls++;
        if (st != PLX_SUCCESS) return st;
    }
    checks++;
    if (polls < 1) FAILF("%s nb: completed without a plx_test", cname[t->c]);
    return PLX_SUCCESS;
}

/* Inputs of this rank into hs_ (send side) and hr_ (receive side). */
static void fill(const test_t *t)
{
    size_t n = t->n, P = (size_t)size_, es = plx_dtype_size(t->dt);
    plx_op_t vop = is_reduction(t->c) ? t->op : PLX_SUM;
    memset(hs_, 0xEE, cap_);   /* outputs not written must show */
    memset(hr_, 0xEE, cap_);
    size_t len = (t->c == C_REDUCE_SCATTER || t->c == C_ALLTOALL || (t->c == C_SCATTER)) ? P * n : n;
    int ip_recv = t->in_place && (t->c == C_ALLREDUCE || t->c == C_REDUCE_SCATTER || t->c == C_ALLTOALL ||
                                  (t->c == C_REDUCE && rank_ == t->root));
    if (t->c == C_BCAST) {
        if (rank_ == t->root)
            for (size_t i = 0; i < n; i++) put(hr_, i, t->dt, val(t->root, i, vop));
        return;
    }
    if (t->c == C_SCATTER && rank_ != t->root) return;
    void *in = ip_recv ? hr_ : hs_;
    for (size_t i = 0; i < len; i++) put(in, i, t->dt, val(rank_, i, vop));
    if (t->in_place && (t->c == C_ALLGATHER || (t->c == C_GATHER && rank_ == t->root)))
        for (size_t i = 0; i < n; i++) put(hr_, (size_t)rank_ * n + i, t->dt, val(rank_, i, vop));
    (void)es;
}

/* Compare the result (hr_, or hs_ for scatter in place at the root). */
static void verify(const test_t *t)
{
    size_t n = t->n, P = (size_t)size_;
    plx_dtype_t dt = t->dt;
    long bad = 0;
    size_t first = 0;
    double got = 0, want = 0;
    /* NCCL's float AVG pre-multiplies by 1/n: allow rounding there */
    double tol = t->op == PLX_AVG && (dt == PLX_FLOAT32 || dt == PLX_FLOAT64) && is_reduction(t->c) ? 1e-5 : 0;
#define EXPECT(buf, idx, value)                                                         \
    do {                                                                                \
        double g_ = get((buf), (idx), dt), w_ = (value), d_ = g_ - w_;                  \
        if (!(d_ == 0 || (d_ < 0 ? -d_ : d_) <= tol * (w_ < 0 ? -w_ : w_ + 1)) && !bad++) { \
            first = (idx); got = g_; want = w_;                                         \
        }                                                                               \
    } while (0)
    switch (t->c) {
    case C_BCAST:
        for (size_t i = 0; i < n; i++) EXPECT(hr_, i, as_type(val(t->root, i, PLX_SUM), dt));
        break;
    case C_REDUCE:
        if (rank_ == t->root)
            for (size_t i = 0; i < n; i++) EXPECT(hr_, i, ref_reduce(i, t->op, dt));
        break;
    case C_ALLREDUCE:
        for (size_t i = 0; i < n; i++) EXPECT(hr_, i, ref_reduce(i, t->op, dt));
        break;
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++) EXPECT(hr_, i, ref_reduce((size_t)rank_ * n + i, t->op, dt));
        break;
    case C_ALLGATHER:
        for (size_t q = 0; q < P; q++)
            for (size_t i = 0; i < n; i++) EXPECT(hr_, q * n + i, as_type(val((int)q, i, PLX_SUM), dt));
        break;
    case C_GATHER:
        if (rank_ == t->root)
            for (size_t q = 0; q < P; q++)
                for (size_t i = 0; i < n; i++) EXPECT(hr_, q * n + i, as_type(val((int)q, i, PLX_SUM), dt));
        break;
    case C_ALLTOALL:
        for (size_t q = 0; q < P; q++)
            for (size_t i = 0; i < n; i++)
                EXPECT(hr_, q * n + i, as_type(val((int)q, (size_t)rank_ * n + i, PLX_SUM), dt));
        break;
    case C_SCATTER: {
        int ip = t->in_place && rank_ == t->root;
        const void *res = ip ? (const char *)hs_ + (size_t)t->root * n * plx_dtype_size(dt) : hr_;
        for (size_t i = 0; i < n; i++)
            EXPECT(res, i, as_type(val(t->root, (size_t)rank_ * n + i, PLX_SUM), dt));
        break;
    }
    default:
        break;
    }
#undef EXPECT
    checks++;
    if (bad)
        FAILF("coll=%s mode=%s dtype=%s op=%s count=%zu root=%d inplace=%d: %ld wrong, first at %zu: got %g want %g",
              cname[t->c], mname[t->mode], plx_dtype_name(dt), plx_op_name(t->op), n, t->root, t->in_place, bad,
              first, got, want);
}

static void run_test(const test_t *t)
{
    size_t es = plx_dtype_size(t->dt), bytes = (size_t)size_ * t->n * es;
    fill(t);
    if (t->mode == M_STREAM) {
        /* stream order only: async copies from pinned memory, no sync until the end */
        CU(cudaMemsetAsync(ds_, 0, bytes, stream_));
        memcpy(pin_, hs_, bytes);
        CU(cudaMemcpyAsync(ds_, pin_, bytes, cudaMemcpyHostToDevice, stream_));
        memcpy((char *)pin_ + cap_, hr_, bytes);
        CU(cudaMemcpyAsync(dr_, (char *)pin_ + cap_, bytes, cudaMemcpyHostToDevice, stream_));
    } else {
        CU(cudaMemcpy(ds_, hs_, bytes, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dr_, hr_, bytes, cudaMemcpyHostToDevice));
    }
    plx_status_t st = issue(t, ds_, dr_);
    if (st != PLX_SUCCESS) {
        checks++;
        FAILF("coll=%s mode=%s dtype=%s op=%s count=%zu: %s", cname[t->c], mname[t->mode],
              plx_dtype_name(t->dt), plx_op_name(t->op), t->n, plx_strerror(st));
        return;
    }
    if (t->mode == M_STREAM) {
        CU(cudaMemcpyAsync(pin_, ds_, bytes, cudaMemcpyDeviceToHost, stream_));
        CU(cudaMemcpyAsync((char *)pin_ + cap_, dr_, bytes, cudaMemcpyDeviceToHost, stream_));
        CU(cudaStreamSynchronize(stream_));
        memcpy(hs_, pin_, bytes);
        memcpy(hr_, (char *)pin_ + cap_, bytes);
    } else {
        CU(cudaMemcpy(hs_, ds_, bytes, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(hr_, dr_, bytes, cudaMemcpyDeviceToHost));
    }
    verify(t);
}

/* ---- the special checks ------------------------------------------------------------- */
/* Host and device collectives interleaved, nonblocking, on one communicator:
 * the device ones reserve sequence numbers at the call, so the host ones
 * stay matched across ranks whatever the device setup's timing. */
static void interleaved(void)
{
    const size_t n = 4099;
    int32_t *h_in = malloc(n * 4), *h_out = malloc(n * 4), *hd = malloc(n * 4);
    void *d1, *d2;
    CU(cudaMalloc(&d1, n * 4));
    CU(cudaMalloc(&d2, n * 4));
    for (size_t i = 0; i < n; i++) h_in[i] = (int32_t)((size_t)rank_ + i);
    CU(cudaMemcpy(d1, h_in, n * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(d2, h_in, n * 4, cudaMemcpyHostToDevice));
    plx_request_t rq[3];
    plx_status_t st[3];
    plx_status_t s0 = plx_iallreduce(PLX_IN_PLACE, d1, n, PLX_INT32, PLX_SUM, comm_, &rq[0]);
    plx_status_t s1 = plx_iallreduce(h_in, h_out, n, PLX_INT32, PLX_SUM, comm_, &rq[1]);
    plx_status_t s2 = plx_iallreduce(PLX_IN_PLACE, d2, n, PLX_INT32, PLX_MAX, comm_, &rq[2]);
    checks++;
    if (s0 || s1 || s2) {
        FAILF("interleaved: start failed: %s %s %s", plx_strerror(s0), plx_strerror(s1), plx_strerror(s2));
        return;
    }
    plx_status_t w = plx_waitall(3, rq, st);
    checks++;
    if (w != PLX_SUCCESS) FAILF("interleaved: waitall: %s", plx_strerror(w));
    long sum_r = (long)size_ * (size_ - 1) / 2;
    long bad = 0;
    CU(cudaMemcpy(hd, d1, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) bad += hd[i] != (int32_t)(sum_r + (long)size_ * (long)i);
    for (size_t i = 0; i < n; i++) bad += h_out[i] != (int32_t)(sum_r + (long)size_ * (long)i);
    CU(cudaMemcpy(hd, d2, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) bad += hd[i] != (int32_t)(size_ - 1 + (long)i);
    checks++;
    if (bad) FAILF("interleaved: %ld wrong elements", bad);
    cudaFree(d1);
    cudaFree(d2);
    free(h_in);
    free(h_out);
    free(hd);
}

/* Mixing host and device buffers on one rank is refused (every rank
 * refuses: nothing starts anywhere). */
static void mixed(void)
{
    int32_t h[8] = { 0 };
    void *d;
    CU(cudaMalloc(&d, sizeof h));
    plx_status_t st = plx_allreduce(h, d, 8, PLX_INT32, PLX_SUM, comm_);
    checks++;
    if (st != PLX_ERR_INVALID_ARG) FAILF("mixed host/device buffers: got %s, want invalid argument", plx_strerror(st));
    cudaFree(d);
}

/* A dup'd communicator gets its own device state; PLX_MEM_HOST on another
 * keeps host collectives as they were. */
static void comms(void)
{
    plx_comm_t dup = NULL, hostc = NULL;
    if (plx_comm_dup(comm_, &dup) != PLX_SUCCESS || plx_comm_dup(comm_, &hostc) != PLX_SUCCESS) {
        checks++;
        FAILF("comm_dup failed");
        return;
    }
    checks++;
    if (plx_comm_set_mem_type(hostc, PLX_MEM_HOST) != PLX_SUCCESS) FAILF("set_mem_type(HOST) failed");
    double v = rank_ + 1, r = 0;
    plx_status_t st = plx_allreduce(&v, &r, 1, PLX_FLOAT64, PLX_SUM, hostc);
    checks++;
    if (st != PLX_SUCCESS || r != size_ * (size_ + 1) / 2.0) FAILF("host allreduce on a PLX_MEM_HOST comm: %s, %g", plx_strerror(st), r);
    plx_comm_t keep = comm_;
    comm_ = dup;
    for (int c = 0; c < C_N; c++) {
        test_t t = { .c = c, .mode = M_BLOCK, .root = size_ - 1, .dt = PLX_FLOAT32, .op = PLX_SUM, .n = 1001 };
        run_test(&t);
    }
    comm_ = keep;
    plx_comm_free(&dup);
    plx_comm_free(&hostc);
}

/* Issue 14's calls on device buffers (int32, counts with empty blocks,
 * shuffled displacements with gaps; blocking, and the i-form with the
 * count arrays overwritten right after the call): allgatherv, alltoallv
 * (also in place), gatherv, scatterv (through NCCL send/recv where NCCL
 * is used, else staged), reduce_scatterv, scan, exscan and an allreduce
 * with a non-commutative user op (always staged). */
static void mat_fn(const void *in, void *inout, size_t n, plx_dtype_t dt, void *user)
{
    (void)dt;
    (void)user;
    /* 2x2 matrices of 8-bit entries packed in each int32: inout = in x inout */
    for (size_t i = 0; i < n; i++) {
        uint32_t x = ((const uint32_t *)in)[i], y = ((uint32_t *)inout)[i];
        uint32_t a = x & 255, b = x >> 8 & 255, c = x >> 16 & 255, d = x >> 24;
        uint32_t e = y & 255, f = y >> 8 & 255, g = y >> 16 & 255, h = y >> 24;
        ((uint32_t *)inout)[i] = ((a * e + b * g) & 255) | ((a * f + b * h) & 255) << 8 |
                                 ((c * e + d * g) & 255) << 16 | ((c * f + d * h) & 255) << 24;
    }
}

static uint32_t mat_val(int r, size_t k) { return (uint32_t)((r + 3) * 2654435761u + k * 40503u); }

static void vforms(void)
{
    int p = size_, r = rank_;
    size_t *cnt = calloc((size_t)p * p, sizeof *cnt), *sc = calloc((size_t)p, sizeof *sc),
           *sd = calloc((size_t)p, sizeof *sd), *rc = calloc((size_t)p, sizeof *rc),
           *rd = calloc((size_t)p, sizeof *rd);
    /* cnt[i*p+j]: elements rank i sends rank j; symmetric so that alltoallv
     * in place (same layout both ways) can use it too */
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= i; j++)
            cnt[(size_t)i * p + j] = cnt[(size_t)j * p + i] = (size_t)((i * 7 + j * 5) % 4 ? 300 + i + j : 0);
    size_t at = 0;
    for (int j = p - 1; j >= 0; j--) {     /* reversed order, 3-element gaps */
        sc[j] = cnt[(size_t)r * p + j];
        rc[j] = cnt[(size_t)j * p + r];
        sd[j] = rd[j] = at;
        at += sc[j] + 3;
    }
    /* room for every layout below (allgatherv's blocks, 1001-element scans) */
    size_t ext = at + 3 + (size_t)p * (304 + 2 * (size_t)p) + 1024, bytes = ext * 4;
    int32_t *h = malloc(bytes), *hr = malloc(bytes);
    void *dS, *dR;
    CU(cudaMalloc(&dS, bytes));
    CU(cudaMalloc(&dR, bytes));
    for (int nb = 0; nb < 2; nb++) {
        for (int ip = 0; ip < 2; ip++) {
            /* alltoallv */
            for (size_t k = 0; k < ext; k++) h[k] = -1;
            for (int j = 0; j < p; j++)
                for (size_t k = 0; k < sc[j]; k++) h[sd[j] + k] = r * 100000 + j * 1000 + (int)k;
            CU(cudaMemcpy(ip ? dR : dS, h, bytes, cudaMemcpyHostToDevice));
            if (!ip) {
                for (size_t k = 0; k < ext; k++) hr[k] = -1;
                CU(cudaMemcpy(dR, hr, bytes, cudaMemcpyHostToDevice));
            }
            plx_status_t st;
            size_t *keep = malloc((size_t)p * sizeof *keep);
            memcpy(keep, rc, (size_t)p * sizeof *keep);
            if (nb) {
                plx_request_t q;
                st = plx_ialltoallv(ip ? PLX_IN_PLACE : dS, sc, sd, dR, rc, rd, PLX_INT32, comm_, &q);
                for (int j = 0; j < p; j++) rc[j] = 77777;   /* read during the call only */
                if (st == PLX_SUCCESS) st = plx_wait(&q);
                memcpy(rc, keep, (size_t)p * sizeof *keep);
            } else {
                st = plx_alltoallv(ip ? PLX_IN_PLACE : dS, sc, sd, dR, rc, rd, PLX_INT32, comm_);
            }
            free(keep);
            CU(cudaMemcpy(hr, dR, bytes, cudaMemcpyDeviceToHost));
            long bad = st != PLX_SUCCESS;
            for (int i = 0; i < p; i++)
                for (size_t k = 0; k < rc[i]; k++) bad += hr[rd[i] + k] != i * 100000 + r * 1000 + (int)k;
            for (int i = 0; i < p; i++)   /* the gap after each block */
                for (size_t k = 0; k < 3; k++) bad += hr[rd[i] + rc[i] + k] != -1;
            checks++;
            if (bad) FAILF("device alltoallv nb=%d inplace=%d: %s, %ld wrong", nb, ip, plx_strerror(st), bad);

            /* allgatherv: block i has ac[i] = cnt[i*p] elements at ad[i] */
            size_t *ac = calloc((size_t)p, sizeof *ac), *ad = calloc((size_t)p, sizeof *ad), aat = 1;
            for (int i = 0; i < p; i++) {
                ac[i] = cnt[(size_t)i * p];
                ad[i] = aat;
                aat += ac[i] + 2;
            }
            for (size_t k = 0; k < ext; k++) h[k] = hr[k] = -1;
            for (size_t k = 0; k < ac[r]; k++) h[k] = r * 1000 + (int)k;
            if (ip) for (size_t k = 0; k < ac[r]; k++) hr[ad[r] + k] = r * 1000 + (int)k;
            CU(cudaMemcpy(dS, h, bytes, cudaMemcpyHostToDevice));
            CU(cudaMemcpy(dR, hr, bytes, cudaMemcpyHostToDevice));
            if (nb) {
                plx_request_t q;
                st = plx_iallgatherv(ip ? PLX_IN_PLACE : dS, ac[r], dR, ac, ad, PLX_INT32, comm_, &q);
                if (st == PLX_SUCCESS) st = plx_wait(&q);
            } else {
                st = plx_allgatherv(ip ? PLX_IN_PLACE : dS, ac[r], dR, ac, ad, PLX_INT32, comm_);
            }
            CU(cudaMemcpy(hr, dR, bytes, cudaMemcpyDeviceToHost));
            bad = st != PLX_SUCCESS;
            for (int i = 0; i < p; i++)
                for (size_t k = 0; k < ac[i]; k++) bad += hr[ad[i] + k] != i * 1000 + (int)k;
            checks++;
            if (bad) FAILF("device allgatherv nb=%d inplace=%d: %s, %ld wrong", nb, ip, plx_strerror(st), bad);

            /* gatherv to p-1, then scatterv back from it */
            int root = p - 1;
            for (size_t k = 0; k < ext; k++) hr[k] = -1;
            CU(cudaMemcpy(dR, hr, bytes, cudaMemcpyHostToDevice));
            st = plx_gatherv(dS, ac[r], dR, ac, ad, PLX_INT32, root, comm_);
            CU(cudaMemcpy(hr, dR, bytes, cudaMemcpyDeviceToHost));
            bad = st != PLX_SUCCESS;
            for (int i = 0; i < p && r == root; i++)
                for (size_t k = 0; k < ac[i]; k++) bad += hr[ad[i] + k] != i * 1000 + (int)k;
            checks++;
            if (bad) FAILF("device gatherv: %s, %ld wrong", plx_strerror(st), bad);
            for (size_t k = 0; k < ext; k++) h[k] = -1;
            CU(cudaMemcpy(dS, h, bytes, cudaMemcpyHostToDevice));
            st = plx_scatterv(dR, ac, ad, dS, ac[r], PLX_INT32, root, comm_);
            CU(cudaMemcpy(h, dS, bytes, cudaMemcpyDeviceToHost));
            bad = st != PLX_SUCCESS;
            for (size_t k = 0; k < ac[r]; k++) bad += h[k] != r * 1000 + (int)k;
            checks++;
            if (bad) FAILF("device scatterv: %s, %ld wrong (first: %d %d %d)", plx_strerror(st), bad, h[0], h[1], h[2]);
            free(ac);
            free(ad);
        }
    }
    /* reduce_scatterv (sum), scan and exscan (sum), and a non-commutative
     * user op through allreduce and scan: all staged */
    for (int i = 0; i < p; i++) rc[i] = i % 3 == 1 ? 0 : 250 + (size_t)i;   /* the same on every rank */
    size_t tot = 0, off = 0;
    for (int i = 0; i < p; i++) {
        if (i < r) off += rc[i];
        tot += rc[i];
    }
    for (size_t k = 0; k < tot; k++) h[k] = r + (int)k;
    CU(cudaMemcpy(dS, h, tot * 4, cudaMemcpyHostToDevice));
    plx_status_t st = plx_reduce_scatterv(dS, dR, rc, PLX_INT32, PLX_SUM, comm_);
    CU(cudaMemcpy(hr, dR, rc[r] * 4 + 4, cudaMemcpyDeviceToHost));
    long bad = st != PLX_SUCCESS;
    for (size_t k = 0; k < rc[r]; k++) bad += hr[k] != p * (p - 1) / 2 + p * (int)(off + k);
    checks++;
    if (bad) FAILF("device reduce_scatterv: %s, %ld wrong", plx_strerror(st), bad);
    const size_t n = 1001;
    for (int ex = 0; ex < 2; ex++) {
        for (size_t k = 0; k < n; k++) h[k] = r + 1 + (int)k;
        CU(cudaMemcpy(dS, h, n * 4, cudaMemcpyHostToDevice));
        memset(hr, 0, n * 4);
        CU(cudaMemcpy(dR, hr, n * 4, cudaMemcpyHostToDevice));
        st = ex ? plx_exscan(dS, dR, n, PLX_INT32, PLX_SUM, comm_) : plx_scan(dS, dR, n, PLX_INT32, PLX_SUM, comm_);
        CU(cudaMemcpy(hr, dR, n * 4, cudaMemcpyDeviceToHost));
        int hi = ex ? r : r + 1;   /* ranks 0 .. hi-1 combined */
        bad = st != PLX_SUCCESS;
        for (size_t k = 0; k < n && hi > 0; k++) bad += hr[k] != hi * (hi + 1) / 2 + hi * (int)k;
        checks++;
        if (bad) FAILF("device %s: %s, %ld wrong", ex ? "exscan" : "scan", plx_strerror(st), bad);
    }
    plx_op_t mat;
    checks++;
    if (plx_op_create(mat_fn, 0, NULL, &mat) != PLX_SUCCESS) {
        FAILF("plx_op_create failed");
    } else {
        for (size_t k = 0; k < n; k++) h[k] = (int32_t)mat_val(r, k);
        CU(cudaMemcpy(dS, h, n * 4, cudaMemcpyHostToDevice));
        st = plx_allreduce(dS, dR, n, PLX_INT32, mat, comm_);
        CU(cudaMemcpy(hr, dR, n * 4, cudaMemcpyDeviceToHost));
        bad = st != PLX_SUCCESS;
        for (size_t k = 0; k < n; k++) {
            uint32_t acc = mat_val(0, k);
            for (int i = 1; i < p; i++) {
                uint32_t x = mat_val(i, k);
                mat_fn(&acc, &x, 1, PLX_INT32, NULL);   /* x = acc x x */
                acc = x;
            }
            bad += (uint32_t)hr[k] != acc;
        }
        checks++;
        if (bad) FAILF("device allreduce with a non-commutative user op: %s, %ld wrong", plx_strerror(st), bad);
        plx_op_free(&mat);
    }
    cudaFree(dS);
    cudaFree(dR);
    free(h);
    free(hr);
    free(cnt);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* --fault (run with PLX_TIMEOUT=2 on a 1-rank job): a host function that
 * sleeps 5 s stalls the legacy default stream, which Plexus' internal
 * stream waits for, so a device allreduce cannot finish: it must end with
 * PLX_ERR_TIMEOUT after ~PLX_TIMEOUT s, not hang.  Through NCCL the NCCL
 * communicator is then aborted and the next device collective on it fails
 * at once; staged, the next one (after the stall) works.  Host collectives
 * keep working. */
static void CUDART_CB stall_fn(void *arg)
{
    (void)arg;
    struct timespec ts = { 5, 0 };
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fault(const char *route)
{
    int nccl = !strcmp(route, "nccl");
    CU(cudaLaunchHostFunc(NULL, stall_fn, NULL));
    double t0 = now_s();
    plx_status_t st = plx_allreduce(PLX_IN_PLACE, dr_, 1024, PLX_FLOAT32, PLX_SUM, comm_);
    double t1 = now_s();
    checks++;
    double t_stall = t1 - t0;
    /* without the timeout it would succeed once the stall ends (5 s);
     * aborting NCCL may itself wait for the stream, hence the 7 s bound */
    if (st != PLX_ERR_TIMEOUT || t1 - t0 > 7.0)
        FAILF("fault: stalled allreduce gave %s after %.1f s (want a timeout, within 7 s)", plx_strerror(st),
              t1 - t0);
    /* staged: the stall holds the next copy too, so let it end first */
    if (!nccl) CU(cudaDeviceSynchronize());
    t1 = now_s();
    plx_status_t st2 = plx_allreduce(PLX_IN_PLACE, dr_, 1024, PLX_FLOAT32, PLX_SUM, comm_);
    double t2 = now_s();
    checks++;
    if (nccl ? (st2 == PLX_SUCCESS || t2 - t1 > 0.5) : st2 != PLX_SUCCESS)
        FAILF("fault: device allreduce after the timeout gave %s after %.1f s (want %s)", plx_strerror(st2),
              t2 - t1, nccl ? "an error at once: the NCCL communicator was aborted" : "success");
    double v = 1;
    st = plx_allreduce(PLX_IN_PLACE, &v, 1, PLX_FLOAT64, PLX_SUM, comm_);
    checks++;
    if (st != PLX_SUCCESS || v != size_) FAILF("fault: host allreduce afterwards: %s", plx_strerror(st));
    CU(cudaDeviceSynchronize());
    printf("gpu_check: fault: stalled allreduce -> timeout after %.1f s; next device allreduce -> %s after %.2f s\n",
           t_stall, plx_strerror(st2), t2 - t1);
}

static int has(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, probe = 0, do_fault = 0;
    const char *expect = NULL, *modes = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--probe")) probe = 1;
        else if (!strcmp(argv[i], "--fault")) do_fault = 1;
        else if (!strcmp(argv[i], "--expect") && i + 1 < argc) expect = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc) modes = argv[++i];
        else {
            fprintf(stderr, "usage: gpu_check [--probe] [--quick] [--fault] [--expect nccl|staged] [--modes block,nb,stream,graph]\n");
            return 2;
        }
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    if (probe) {
        struct cudaDeviceProp p;
        CU(cudaGetDeviceProperties(&p, 0));
        printf("gpu_check: %d CUDA device(s); device 0: %s (compute %d.%d, %.0f GiB)\n", ndev, p.name, p.major,
               p.minor, (double)p.totalGlobalMem / (1 << 30));
        return 0;
    }
    if (plx_init(&ctx_) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx_, &comm_);
    plx_comm_rank(comm_, &rank_);
    plx_comm_size(comm_, &size_);
    int usable = 0;
    plx_query_device(ctx_, &usable);
    if (!usable) {
        printf("SKIP: no CUDA device (Plexus does not use one: PLX_CUDA=0?)\n");
        plx_finalize(&ctx_);
        return 77;
    }
    int dev = rank_ % ndev;   /* one GPU per rank where there are enough */
    CU(cudaSetDevice(dev));
    CU(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    size_t max_n = quick ? 70001 : (1u << 20) + 3;
    cap_ = (size_t)size_ * max_n * 8 + 64;
    CU(cudaMalloc(&ds_, cap_));
    CU(cudaMalloc(&dr_, cap_));
    CU(cudaMallocHost(&pin_, 2 * cap_));
    hs_ = malloc(cap_);
    hr_ = malloc(cap_);
    if (!hs_ || !hr_) return 1;

    /* the first device collective decides the route */
    {
        test_t t = { .c = C_ALLREDUCE, .mode = M_BLOCK, .dt = PLX_FLOAT32, .op = PLX_SUM, .n = 1 };
        run_test(&t);
    }
    const char *alg = "?", *route = "?";
    plx_status_t qs = plx_query_algorithm_device(comm_, "allreduce", 4096, &alg, &route);
    checks++;
    if (qs != PLX_SUCCESS) FAILF("plx_query_algorithm_device: %s", plx_strerror(qs));
    if (expect) {
        checks++;
        if (strncmp(route, expect, strlen(expect)) != 0) FAILF("route is %s, expected %s", route, expect);
    }
    if (rank_ == 0) {
        printf("gpu_check: %d ranks, %d GPU(s) visible, device allreduce route: %s/%s\n", size_, ndev, alg, route);
        fflush(stdout);
    }

    const plx_dtype_t dts_full[] = { PLX_FLOAT32, PLX_INT32, PLX_FLOAT64, PLX_BFLOAT16, PLX_FLOAT16, PLX_INT8, PLX_UINT64 };
    const plx_dtype_t dts_quick[] = { PLX_FLOAT32, PLX_INT32, PLX_BFLOAT16 };
    const plx_dtype_t *dts = quick ? dts_quick : dts_full;
    int ndts = quick ? 3 : 7;
    const size_t counts_full[] = { 1, 7, 1000, 65539, (1u << 20) + 3 };
    const size_t counts_quick[] = { 1, 1000, 70001 };
    const size_t *counts = quick ? counts_quick : counts_full;
    int ncounts = quick ? 3 : 5;
    const plx_op_t ops[] = { PLX_SUM, PLX_MAX, PLX_MIN, PLX_PROD, PLX_AVG, PLX_BAND };

    for (int m = 0; m < M_N; m++) {
        if (do_fault || !has(modes, mname[m])) continue;
        for (int c = 0; c < C_N; c++)
            for (int d = 0; d < ndts; d++)
                for (int k = 0; k < ncounts; k++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int o = 0; o < 6; o++) {
                            plx_dtype_t dt = dts[d];
                            plx_op_t op = ops[o];
                            int fl = dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64;
                            if (!is_reduction(c) && o > 0) continue;
                            if (op == PLX_BAND && fl) continue;
                            if (op == PLX_AVG && !(dt == PLX_FLOAT32 || dt == PLX_FLOAT64 || dt == PLX_INT32)) continue;
                            if (op == PLX_PROD && size_ > 6) continue;
                            /* the big count: one type and op, to bound the run */
                            if (counts[k] > 70001 && (d > 0 || o > 0)) continue;
                            /* graphs: a smaller matrix (each test builds a graph) */
                            if (m == M_GRAPH && (d > 0 || o > 1 || k == 0)) continue;
                            for (int ri = 0; ri < 2; ri++) {
                                int root = ri ? size_ - 1 : 0;
                                int rooted = c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_SCATTER;
                                if (ri && (!rooted || size_ == 1)) continue;
                                if (ip && c == C_BCAST) continue;
                                seed_ = (unsigned)(c * 31 + d * 7 + k * 3 + o + ip);
                                test_t t = { .c = c, .mode = m, .in_place = ip, .root = root, .dt = dt,
                                             .op = op, .n = counts[k] };
                                run_test(&t);
                            }
                        }
        if (rank_ == 0) {
            printf("gpu_check: mode %s done (%ld checks, %ld failures so far on rank 0)\n", mname[m], checks, failures);
            fflush(stdout);
        }
    }
    if (do_fault) {
        fault(route);
    } else {
        interleaved();
        mixed();
        comms();
        vforms();
    }

    /* every rank agrees before the final line */
    double f = (double)failures;
    plx_allreduce(PLX_IN_PLACE, &f, 1, PLX_FLOAT64, PLX_SUM, comm_);
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, dev);
    printf("gpu_check: rank %d of %d: %ld checks, %ld failures (route %s/%s, GPU %d: %s)\n", rank_, size_, checks,
           failures, alg, route, dev, p.name);
    cudaFree(ds_);
    cudaFree(dr_);
    cudaFreeHost(pin_);
    cudaStreamDestroy(stream_);
    free(hs_);
    free(hr_);
    plx_status_t fs = plx_finalize(&ctx_);
    if (fs != PLX_SUCCESS) {
        printf("gpu_check: rank %d: plx_finalize: %s\n", rank_, plx_strerror(fs));
        return 1;
    }
    return failures || f > 0 ? 1 : 0;
}

#else /* !PLX_HAVE_CUDA */

int main(void)
{
    (void)rank_, (void)size_, (void)checks, (void)failures;
    printf("SKIP: no CUDA device (Plexus was built without CUDA)\n");
    return 77;
}

#endif
