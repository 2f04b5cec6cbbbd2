/*
 * transports/nccl/nccl.c — collectives on GPU buffers through NCCL: the
 * backend table plx_devcoll_nccl_ops (interface in lib/device/device.h).
 *
 * The core (lib/device/device.c) owns everything around a device collective: the
 * memory-type check, when the NCCL communicator is made, the CUDA stream,
 * the event it polls, timeouts and peer deaths.  This file only speaks
 * NCCL: unique id, nonblocking communicator start (config.blocking = 0, so
 * a slow peer never blocks the progress engine), the mapping of every
 * Plexus collective onto NCCL calls (Plexus' in-place conventions differ
 * from NCCL's for reduce_scatter, allgather, gather, scatter, alltoall),
 * error strings, abort and destroy.
 *
 * Collectives: bcast, reduce, allreduce, allgather, reduce_scatter natively;
 * alltoall, gather and scatter natively from NCCL 2.28 on, otherwise (and
 * with PLX_NCCL=p2p, for testing) composed from ncclSend/ncclRecv in one
 * group.  Bitwise ops (band/bor/bxor) NCCL lacks: supports() says no and
 * the core stages them through host memory.  AVG is ncclAvg (on floats
 * NCCL pre-multiplies by 1/n, so results may differ from sum/n in the last
 * bit; on integers it divides the sum, as Plexus does).
 */
#include "plx_internal.h"
#include "device/device.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* NCCL 2.28 added ncclAlltoAll, ncclGather and ncclScatter. */
#if NCCL_VERSION_CODE >= 22800
#define NCCL_HAS_A2A_GATHER_SCATTER 1
#else
#define NCCL_HAS_A2A_GATHER_SCATTER 0
#endif

/* PLX_NCCL=p2p: compose alltoall/gather/scatter from send/recv even where
 * NCCL has them (read at the first communicator; same value every time). */
static int compose_p2p = -1;

static int use_p2p(void)
{
    if (compose_p2p < 0) {
        const char *s = getenv("PLX_NCCL");
        compose_p2p = (s && strcmp(s, "p2p") == 0) || !NCCL_HAS_A2A_GATHER_SCATTER;
    }
    return compose_p2p;
}

/* ---- errors ------------------------------------------------------------------ */
static plx_status_t nccl_status(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: case ncclInProgress: return PLX_SUCCESS;
    case ncclRemoteError: return PLX_ERR_PEER_FAILED;   /* a peer died or its network failed */
    default: return PLX_ERR_TRANSPORT;
    }
}

/* Log the failure of `what` with NCCL's own last message, map it. */
static plx_status_t nccl_fail(ncclComm_t comm, const char *what, ncclResult_t r)
{
    const char *last = ncclGetLastError(comm);
    plx_error("nccl: %s failed: %s%s%s", what, ncclGetErrorString(r), last && *last ? ": " : "",
              last ? last : "");
    return nccl_status(r);
}

static plx_status_t cuda_fail(const char *what, cudaError_t e)
{
    cudaGetLastError();   /* clear a non-sticky error so later calls do not see it */
    plx_error("nccl: %s failed: %s (CUDA error %d)", what, cudaGetErrorString(e), (int)e);
    return PLX_ERR_TRANSPORT;
}

/* ---- types -------------------------------------------------------------------- */
static ncclDataType_t nccl_type(plx_dtype_t dt)
{
    switch (dt) {
    case PLX_INT8: return ncclInt8;
    case PLX_UINT8: return ncclUint8;
    case PLX_INT32: return ncclInt32;
    case PLX_UINT32: return ncclUint32;
    case PLX_INT64: return ncclInt64;
    case PLX_UINT64: return ncclUint64;
    case PLX_FLOAT16: return ncclFloat16;
    case PLX_BFLOAT16: return ncclBfloat16;
    case PLX_FLOAT32: return ncclFloat32;
    case PLX_FLOAT64: return ncclFloat64;
    default: return ncclNumTypes;
    }
}

static ncclRedOp_t nccl_op(plx_op_t op)
{
    switch (op) {
    case PLX_SUM: return ncclSum;
    case PLX_PROD: return ncclProd;
    case PLX_MIN: return ncclMin;
    case PLX_MAX: return ncclMax;
    case PLX_AVG: return ncclAvg;
    default: return ncclNumOps;
    }
}

static int nccl_supports(plx_coll_t coll, plx_dtype_t dt, plx_op_t op)
{
    if (coll == PLX_COLL_BARRIER || nccl_type(dt) == ncclNumTypes) return 0;
    /* NCCL has no prefix reductions nor a reduce-scatter with per-rank
     * counts: staged (user ops too: nccl_op knows none of them) */
    if (coll == PLX_COLL_SCAN || coll == PLX_COLL_EXSCAN || coll == PLX_COLL_REDUCE_SCATTERV) return 0;
    if (coll == PLX_COLL_REDUCE || coll == PLX_COLL_ALLREDUCE || coll == PLX_COLL_REDUCE_SCATTER)
        return nccl_op(op) != ncclNumOps;
    return 1;   /* the v-forms: grouped send/recv (vcomposed) */
}

/* ---- communicator --------------------------------------------------------------- */
static plx_status_t nccl_get_id(void *id)
{
    ncclUniqueId uid;
    ncclResult_t r = ncclGetUniqueId(&uid);
    if (r != ncclSuccess) return nccl_fail(NULL, "ncclGetUniqueId", r);
    memcpy(id, &uid, sizeof uid);
    return PLX_SUCCESS;
}

static plx_status_t nccl_init_start(void **out, int nranks, const void *id, int rank)
{
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;   /* returns at once; the engine polls ncclCommGetAsyncError */
    ncclUniqueId uid;
    memcpy(&uid, id, sizeof uid);
    ncclComm_t c = NULL;
    (void)use_p2p();
    ncclResult_t r = ncclCommInitRankConfig(&c, nranks, uid, rank, &cfg);
    *out = c;
    if (r == ncclSuccess || r == ncclInProgress) return PLX_SUCCESS;
    return nccl_fail(c, "ncclCommInitRankConfig", r);
}

static int nccl_poll(void *comm, plx_status_t *st)
{
    ncclResult_t as = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(comm, &as);
    if (r != ncclSuccess) {
        *st = nccl_fail(comm, "ncclCommGetAsyncError", r);
        return 1;
    }
    if (as == ncclInProgress) return 0;
    *st = as == ncclSuccess ? PLX_SUCCESS : nccl_fail(comm, "an asynchronous NCCL operation", as);
    return 1;
}

static plx_status_t nccl_async_error(void *comm)
{
    ncclResult_t as = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(comm, &as);
    if (r != ncclSuccess) return nccl_fail(comm, "ncclCommGetAsyncError", r);
    if (as == ncclSuccess || as == ncclInProgress) return PLX_SUCCESS;
    return nccl_fail(comm, "the communicator (asynchronous error)", as);
}

static void nccl_abort(void *comm)
{
    if (comm) ncclCommAbort(comm);
}

static void nccl_destroy(void *comm, double timeout_s)
{
    if (!comm) return;
    /* finalize flushes what is in flight (collective with the peers, which
     * are in plx_finalize too); if it does not settle in time, abort */
    ncclResult_t r = ncclCommFinalize(comm);
    int settled = r == ncclSuccess;
    if (r == ncclInProgress) {
        struct timespec t0, now, nap = { 0, 100000 };
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            ncclResult_t as = ncclInProgress;
            if (ncclCommGetAsyncError(comm, &as) != ncclSuccess) break;
            if (as != ncclInProgress) {
                settled = as == ncclSuccess;
                break;
            }
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > timeout_s) break;
            nanosleep(&nap, NULL);
        }
    }
    if (settled && ncclCommDestroy(comm) == ncclSuccess) return;
    plx_warn("nccl: communicator did not finalize cleanly; aborting it");
    ncclCommAbort(comm);
}

static const char *nccl_version(void)
{
    static char buf[32];
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
    /* 2.9 and later: major*10000 + minor*100 + patch */
    if (v >= 20900) snprintf(buf, sizeof buf, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else snprintf(buf, sizeof buf, "NCCL %d.%d.%d", v / 1000, v / 100 % 10, v % 100);
    return buf;
}

/* ---- collectives -------------------------------------------------------------------- */
#define AT(p, elems, es) ((char *)(p) + (size_t)(elems) * (es))

/* D2D copy on the stream (self blocks of composed collectives, in-place
 * copies); NCCL-free, so it never returns "in progress". */
static plx_status_t d2d(void *dst, const void *src, size_t bytes, cudaStream_t st)
{
    if (!bytes || dst == src) return PLX_SUCCESS;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st);
    return e == cudaSuccess ? PLX_SUCCESS : cuda_fail("cudaMemcpyAsync (device to device)", e);
}

/* Result of the last NCCL call of a launch: enqueued, in progress, failed. */
static plx_status_t settle(ncclComm_t comm, const char *what, ncclResult_t r, int *pending)
{
    if (r == ncclInProgress) {
        *pending = 1;
        return PLX_SUCCESS;
    }
    return r == ncclSuccess ? PLX_SUCCESS : nccl_fail(comm, what, r);
}

/* alltoall / gather / scatter from send/recv in one group (before NCCL
 * 2.28, or PLX_NCCL=p2p).  Self blocks are copied on the stream first. */
static plx_status_t composed(ncclComm_t comm, plx_coll_t coll, const void *sb, void *rb, size_t n,
                             size_t es, ncclDataType_t t, int root, int rank, int size,
                             cudaStream_t st, int *pending)
{
    size_t blk = n * es;
    plx_status_t ps = PLX_SUCCESS;
    if (coll == PLX_COLL_ALLTOALL)
        ps = d2d(AT(rb, (size_t)rank * n, es), AT(sb, (size_t)rank * n, es), blk, st);
    else if (coll == PLX_COLL_GATHER && rank == root)
        ps = d2d(AT(rb, (size_t)root * n, es), sb, blk, st);
    else if (coll == PLX_COLL_SCATTER && rank == root)
        ps = d2d(rb, AT(sb, (size_t)root * n, es), blk, st);
    if (ps != PLX_SUCCESS) return ps;
    if (size == 1) return PLX_SUCCESS;
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return nccl_fail(comm, "ncclGroupStart", r);
    for (int p = 0; p < size && r == ncclSuccess; p++) {
        if (p == rank) continue;
        if (coll == PLX_COLL_ALLTOALL) {
            r = ncclSend(AT(sb, (size_t)p * n, es), n, t, p, comm, st);
            if (r == ncclSuccess) r = ncclRecv(AT(rb, (size_t)p * n, es), n, t, p, comm, st);
        } else if (coll == PLX_COLL_GATHER) {
            if (rank == root) r = ncclRecv(AT(rb, (size_t)p * n, es), n, t, p, comm, st);
            else if (p == root) r = ncclSend(sb, n, t, root, comm, st);
        } else {   /* scatter */
            if (rank == root) r = ncclSend(AT(sb, (size_t)p * n, es), n, t, p, comm, st);
            else if (p == root) r = ncclRecv(rb, n, t, root, comm, st);
        }
    }
    ncclResult_t re = ncclGroupEnd();   /* always close the group */
    if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(comm, "ncclSend/ncclRecv", r);
    return settle(comm, "ncclGroupEnd", re, pending);
}

/* allgatherv / alltoallv / gatherv / scatterv as one group of send/recv,
 * empty blocks skipped on both sides (the counts agree pairwise); the self
 * block is copied on the stream first.  sb is the send buffer after the
 * in-place substitutions of nccl_launch; the layouts are a's arrays
 * (alltoallv in place: recvcounts/rdispls describe sb too). */
static plx_status_t vcomposed(ncclComm_t comm, const coll_args_t *a, const void *sb, void *rb,
                              size_t es, ncclDataType_t t, int rank, int size, cudaStream_t st,
                              int *pending)
{
    const size_t *sc = a->scounts, *sd = a->sdispls, *rc = a->rcounts, *rd = a->rdispls;
    int sip = a->sbuf == PLX_IN_PLACE, root = a->root;
    plx_status_t ps = PLX_SUCCESS;
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:
        if (!sip) ps = d2d(AT(rb, rd[rank], es), sb, rc[rank] * es, st);
        sb = AT(rb, rd[rank], es);
        break;
    case PLX_COLL_GATHERV:
        if (rank == root && !sip) ps = d2d(AT(rb, rd[rank], es), sb, rc[rank] * es, st);
        break;
    case PLX_COLL_SCATTERV:
        if (rank == root && rb != PLX_IN_PLACE) ps = d2d(rb, AT(sb, sd[rank], es), sc[rank] * es, st);
        break;
    default:   /* alltoallv */
        if (sip) {
            sc = rc;
            sd = rd;
        }
        ps = d2d(AT(rb, rd[rank], es), AT(sb, sd[rank], es), rc[rank] * es, st);
        break;
    }
    if (ps != PLX_SUCCESS || size == 1) return ps;
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return nccl_fail(comm, "ncclGroupStart", r);
    int posted = 0;
#define VSEND(buf, cnt, peer) (posted++, ncclSend((buf), (cnt), t, (peer), comm, st))
#define VRECV(buf, cnt, peer) (posted++, ncclRecv((buf), (cnt), t, (peer), comm, st))
    for (int p = 0; p < size && r == ncclSuccess; p++) {
        if (p == rank) continue;
        switch (a->coll) {
        case PLX_COLL_ALLGATHERV:
            if (rc[rank]) r = VSEND(sb, rc[rank], p);
            if (r == ncclSuccess && rc[p]) r = VRECV(AT(rb, rd[p], es), rc[p], p);
            break;
        case PLX_COLL_GATHERV:
            if (rank == root && rc[p]) r = VRECV(AT(rb, rd[p], es), rc[p], p);
            else if (p == root && a->count) r = VSEND(sb, a->count, root);
            break;
        case PLX_COLL_SCATTERV:
            if (rank == root && sc[p]) r = VSEND(AT(sb, sd[p], es), sc[p], p);
            else if (p == root && a->count) r = VRECV(rb, a->count, root);
            break;
        default:
            if (sc[p]) r = VSEND(AT(sb, sd[p], es), sc[p], p);
            if (r == ncclSuccess && rc[p]) r = VRECV(AT(rb, rd[p], es), rc[p], p);
            break;
        }
    }
    /* A rank with nothing to move (all its blocks empty) still enqueues one
     * operation, an empty send/recv with itself, so that every rank puts the
     * same number of operations on the NCCL communicator per collective. */
    if (!posted && r == ncclSuccess) {
        r = ncclSend(rb, 0, t, rank, comm, st);
        if (r == ncclSuccess) r = ncclRecv(rb, 0, t, rank, comm, st);
    }
#undef VSEND
#undef VRECV
    ncclResult_t re = ncclGroupEnd();   /* always close the group */
    if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(comm, "ncclSend/ncclRecv", r);
    return settle(comm, "ncclGroupEnd", re, pending);
}

static plx_status_t nccl_launch(void *comm_, const coll_args_t *a, int rank, int size, void *stream,
                                void **scratch, int *pending)
{
    ncclComm_t comm = comm_;
    cudaStream_t st = stream;
    size_t n = a->count, es = plx_dtype_size(a->dt);
    ncclDataType_t t = nccl_type(a->dt);
    ncclRedOp_t op = nccl_op(a->op);
    int sip = a->sbuf == PLX_IN_PLACE;
    const void *sb = a->sbuf;
    void *rb = a->rbuf;
    *pending = 0;
    switch (a->coll) {
    case PLX_COLL_BCAST:
        return settle(comm, "ncclBroadcast", ncclBroadcast(rb, rb, n, t, a->root, comm, st), pending);
    case PLX_COLL_REDUCE:
        /* recvbuff may be NULL except at the root */
        return settle(comm, "ncclReduce",
                      ncclReduce(sip ? rb : sb, rank == a->root ? rb : NULL, n, t, op, a->root, comm, st),
                      pending);
    case PLX_COLL_ALLREDUCE:
        return settle(comm, "ncclAllReduce", ncclAllReduce(sip ? rb : sb, rb, n, t, op, comm, st), pending);
    case PLX_COLL_ALLGATHER:
        /* Plexus in place: my block already at rb + rank*n, NCCL's in-place form */
        return settle(comm, "ncclAllGather",
                      ncclAllGather(sip ? AT(rb, (size_t)rank * n, es) : sb, rb, n, t, comm, st), pending);
    case PLX_COLL_REDUCE_SCATTER:
        /* Plexus in place: result in the first n elements; NCCL's in place
         * leaves it at rb + rank*n, so post() moves it down */
        if (sip)
            return settle(comm, "ncclReduceScatter",
                          ncclReduceScatter(rb, AT(rb, (size_t)rank * n, es), n, t, op, comm, st), pending);
        return settle(comm, "ncclReduceScatter", ncclReduceScatter(sb, rb, n, t, op, comm, st), pending);
    case PLX_COLL_ALLTOALL:
        if (sip) {
            /* no in-place alltoall in NCCL: copy the input aside first
             * (stream-ordered allocation, released by post()) */
            size_t bytes = (size_t)size * n * es;
            void *tmp = NULL;
            cudaError_t e = cudaMallocAsync(&tmp, bytes, st);
            if (e != cudaSuccess) {
                cudaGetLastError();
                if ((e = cudaMalloc(&tmp, bytes)) != cudaSuccess) return cuda_fail("cudaMalloc (alltoall scratch)", e);
                /* plain cudaMalloc'd scratch: post() frees it after a sync of the stream */
                *scratch = (void *)((uintptr_t)tmp | 1);
            } else {
                *scratch = tmp;
            }
            PLX_CHECK(d2d(tmp, rb, bytes, st));
            sb = tmp;
        }
        if (use_p2p()) return composed(comm, a->coll, sb, rb, n, es, t, 0, rank, size, st, pending);
#if NCCL_HAS_A2A_GATHER_SCATTER
        return settle(comm, "ncclAlltoAll", ncclAlltoAll(sb, rb, n, t, comm, st), pending);
#else
        return PLX_ERR_INTERNAL;
#endif
    case PLX_COLL_GATHER:
        if (sip) sb = AT(rb, (size_t)a->root * n, es);   /* NCCL's in-place form */
        if (use_p2p()) return composed(comm, a->coll, sb, rb, n, es, t, a->root, rank, size, st, pending);
#if NCCL_HAS_A2A_GATHER_SCATTER
        return settle(comm, "ncclGather", ncclGather(sb, rank == a->root ? rb : NULL, n, t, a->root, comm, st),
                      pending);
#else
        return PLX_ERR_INTERNAL;
#endif
    case PLX_COLL_SCATTER:
        /* Plexus in place at root: recvbuf is PLX_IN_PLACE, the block stays
         * in sendbuf; NCCL's in-place form is recvbuff = sendbuff + root*n */
        if (rank == a->root && rb == PLX_IN_PLACE) rb = AT(sb, (size_t)a->root * n, es);
        if (use_p2p()) return composed(comm, a->coll, sb, rb, n, es, t, a->root, rank, size, st, pending);
#if NCCL_HAS_A2A_GATHER_SCATTER
        return settle(comm, "ncclScatter", ncclScatter(rank == a->root ? sb : NULL, rb, n, t, a->root, comm, st),
                      pending);
#else
        return PLX_ERR_INTERNAL;
#endif
    case PLX_COLL_ALLTOALLV:
        if (sip) {
            /* in place: the outgoing blocks (laid out like the incoming
             * ones) are copied aside first, as for alltoall */
            size_t extent = 0;
            for (int i = 0; i < size; i++)
                if (a->rcounts[i] && a->rdispls[i] + a->rcounts[i] > extent)
                    extent = a->rdispls[i] + a->rcounts[i];
            void *tmp = NULL;
            if (extent) {
                cudaError_t e = cudaMallocAsync(&tmp, extent * es, st);
                if (e != cudaSuccess) {
                    cudaGetLastError();
                    if ((e = cudaMalloc(&tmp, extent * es)) != cudaSuccess)
                        return cuda_fail("cudaMalloc (alltoallv scratch)", e);
                    *scratch = (void *)((uintptr_t)tmp | 1);
                } else {
                    *scratch = tmp;
                }
                PLX_CHECK(d2d(tmp, rb, extent * es, st));
            }
            sb = tmp;
        }
        return vcomposed(comm, a, sb, rb, es, t, rank, size, st, pending);
    case PLX_COLL_ALLGATHERV:
    case PLX_COLL_GATHERV:
    case PLX_COLL_SCATTERV:
        return vcomposed(comm, a, sb, rb, es, t, rank, size, st, pending);
    default:
        return PLX_ERR_NOT_SUPPORTED;
    }
}

static plx_status_t nccl_post(const coll_args_t *a, int rank, int size, void *stream, void *scratch)
{
    cudaStream_t st = stream;
    (void)size;
    size_t n = a->count, es = plx_dtype_size(a->dt);
    if (a->coll == PLX_COLL_REDUCE_SCATTER && a->sbuf == PLX_IN_PLACE && rank > 0)
        /* [rank*n, rank*n + n) and [0, n) do not overlap for rank >= 1 */
        PLX_CHECK(d2d(a->rbuf, AT(a->rbuf, (size_t)rank * n, es), n * es, st));
    if (scratch) {
        if ((uintptr_t)scratch & 1) {
            /* cudaMalloc'd fallback: free once the stream is past it */
            cudaStreamSynchronize(st);
            cudaFree((void *)((uintptr_t)scratch & ~(uintptr_t)1));
        } else {
            cudaError_t e = cudaFreeAsync(scratch, st);
            if (e != cudaSuccess) return cuda_fail("cudaFreeAsync", e);
        }
    }
    return PLX_SUCCESS;
}

const plx_devcoll_ops_t plx_devcoll_nccl_ops = {
    .name = "nccl",
    .id_bytes = sizeof(ncclUniqueId),
    .supports = nccl_supports,
    .get_id = nccl_get_id,
    .init_start = nccl_init_start,
    .poll = nccl_poll,
    .launch = nccl_launch,
    .post = nccl_post,
    .async_error = nccl_async_error,
    .abort = nccl_abort,
    .destroy = nccl_destroy,
    .version = nccl_version,
};
