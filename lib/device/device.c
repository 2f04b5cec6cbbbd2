/*
 * lib/device/device.c — collectives on GPU buffers: memory-type detection,
 * routing to NCCL or to staging through pinned host memory, the lazy
 * per-communicator NCCL setup, stream-ordered calls, and error handling.
 * The overview is in device.h; the public calls are in plexus.h ("GPU
 * buffers").
 *
 * Linking: libplexus links the CUDA runtime (libcudart.so) and libnccl.so,
 * never libcuda (the driver): the runtime loads the driver itself at run
 * time, so the library loads and runs on a machine without a GPU or
 * driver, where cudaGetDeviceCount fails and ctx->dev_on stays 0.
 *
 * Setup (first device collective on a communicator, on every rank at the
 * same point of its collective order).  The lock is held and public plx_*
 * calls cannot be made, so the setup runs through the engine: two internal
 * host collectives driven from the device operations' advance hooks:
 *   1. allgather of {NCCL wanted here, GPU uuid}: NCCL is used when every
 *      rank wants it and no two ranks share a GPU (NCCL cannot put two
 *      ranks of one communicator on one GPU); otherwise the communicator's
 *      device collectives are staged;
 *   2. bcast from rank 0 of {ok, ncclUniqueId}, then a nonblocking
 *      ncclCommInitRankConfig, polled with ncclCommGetAsyncError.
 * Both collectives take their sequence numbers when the first device call
 * is made (the second one is reserved then and built later), and every
 * device operation reserves one too (used if it is staged), so host and
 * device collectives on one communicator stay matched across ranks however
 * the timing of the setup differs between them.
 *
 * Ordering: NCCL matches operations by enqueue order, so NCCL operations
 * of one communicator are enqueued in call order (a ticket per call).
 *
 * Staging: each device buffer the call uses gets a pinned host block (a
 * pool per context); inputs are copied device -> host on the stream, an
 * event is polled, the host schedule runs (never shm_slots, which numbers
 * collectives when they start, while a staged one starts after its copy),
 * the outputs are copied back and another event is polled.
 */
#include "device/device.h"
#include "engine/request.h"
#include "api/vcoll.h"
#include "core/user_op.h"
#include "engine/sched.h"
#include "coll/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if PLX_HAVE_CUDA
#include <cuda_runtime.h>

/* ---- context-wide state ------------------------------------------------------- */
typedef struct pin_blk {
    void *p;
    size_t cap;
    int busy;
    cudaEvent_t fence;         /* a copy may still use p until this event fires */
    int fence_dev;             /* the device the fence event belongs to */
    struct pin_blk *next;
} pin_blk_t;

typedef struct ev_ent {
    cudaEvent_t ev;
    int device;
} ev_ent_t;

#define PIN_KEEP_FREE 8        /* free pinned blocks kept for reuse ... */
#define PIN_KEEP_BYTES (1ull << 30)   /* ... up to this many bytes in all */

struct plx_dev_ctx {
    int nccl_wanted;           /* NCCL built and PLX_NCCL not 0 */
    const plx_devcoll_ops_t *ops;  /* NULL without NCCL */
    plx_select_t *stage_sel;   /* the default rules without shm_slots (staged collectives) */
    pin_blk_t *pins;
    ev_ent_t *evs;             /* free events */
    int nevs, cap_evs;
};

/* ---- per-communicator state --------------------------------------------------- */
enum { DC_SETUP = 0, DC_NCCL_INIT, DC_NCCL, DC_STAGE, DC_FAILED };
enum { SETUP_INFO = 0, SETUP_ID };

typedef struct dev_info {      /* what each rank says about itself at setup */
    uint8_t want;              /* NCCL built, PLX_NCCL allows it, device properties readable */
    uint8_t pad[15];
    uint8_t uuid[16];          /* of the GPU this rank uses */
} dev_info_t;

typedef struct id_msg {        /* rank 0's answer */
    int32_t ok;
    uint8_t id[128];
} id_msg_t;

struct plx_dev_comm {
    int state;
    plx_status_t err;          /* DC_FAILED: what every later NCCL operation returns */
    int device;                /* CUDA device of this communicator's buffers */
    int setup_phase;
    plx_sched_t *setup;        /* the setup collective in flight */
    uint32_t id_seq;           /* sequence number reserved for the id bcast */
    dev_info_t mine, *all;
    id_msg_t idm;
    void *nccl;                /* ncclComm_t */
    cudaStream_t stream;       /* internal stream (blocking: ordered after the legacy stream) */
    uint64_t issued, launched; /* NCCL tickets: enqueue in call order */
    int inflight;              /* NCCL operations enqueued on the internal stream, not seen done */
    double next_health;        /* next look at NCCL's async error and dead peers */
};

/* ---- one device collective -------------------------------------------------------- */
typedef struct buf_use {
    void *p;                   /* device buffer this rank uses (NULL: none) */
    size_t extent;             /* bytes of it the call may touch */
    size_t in_off, in_len;     /* bytes read (staged: copied to the host first) */
    size_t out_off, out_len;   /* bytes written (staged: copied back after) */
} buf_use_t;

enum { OP_WAIT = 0, OP_ENQ, OP_RUN, OP_STAGE_IN, OP_HOST, OP_STAGE_OUT };

typedef struct dev_op {
    plx_comm_t comm;
    struct plx_dev_comm *dc;
    coll_args_t a;
    buf_use_t u[2];            /* [0] send side, [1] receive side */
    int state;
    int nccl_ok;               /* NCCL can run it (else staged even on an NCCL communicator) */
    uint64_t ticket;
    uint32_t seq;              /* host sequence number reserved at the call */
    int on_stream;             /* stream-ordered form: runs on user_stream, ends once enqueued */
    cudaStream_t user_stream;
    cudaEvent_t ev;
    int counted;               /* counted in dc->inflight */
    void *scratch;             /* backend scratch between launch and post */
    pin_blk_t *blk[2];
    plx_sched_t *sched;        /* staged: the host schedule */
} dev_op_t;

/* ---- small helpers -------------------------------------------------------------------- */
/* Log a failed CUDA call and clear the (non-sticky) error so that the
 * application's cudaGetLastError does not report ours. */
static plx_status_t cuda_err(const char *what, cudaError_t e)
{
    cudaGetLastError();
    plx_error("cuda: %s failed: %s (error %d)", what, cudaGetErrorString(e), (int)e);
    return PLX_ERR_TRANSPORT;
}

/* Make `dev` current for the CUDA calls that follow (events and streams
 * belong to a device; the engine may run on any thread), and give the
 * previous one back after. */
static int dev_enter(int dev)
{
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        cudaGetLastError();
        cur = -1;
    }
    if (cur != dev && cudaSetDevice(dev) != cudaSuccess) cudaGetLastError();
    return cur;
}

static void dev_leave(int prev, int dev)
{
    if (prev >= 0 && prev != dev) cudaSetDevice(prev);
}

static plx_sched_t *sched_new_at(plx_comm_t comm, const char *name, uint32_t seq)
{
    /* sched_new numbers the schedule with comm->coll_seq: give it the
     * number reserved earlier, then put the counter back */
    uint32_t keep = comm->coll_seq;
    comm->coll_seq = seq;
    plx_sched_t *s = sched_new(comm, name);
    comm->coll_seq = keep;
    return s;
}

/* ---- pools: events and pinned host memory ------------------------------------------------ */
static plx_status_t ev_get(struct plx_dev_ctx *d, int device, cudaEvent_t *ev)
{
    for (int i = d->nevs - 1; i >= 0; i--)
        if (d->evs[i].device == device) {
            *ev = d->evs[i].ev;
            d->evs[i] = d->evs[--d->nevs];
            return PLX_SUCCESS;
        }
    cudaError_t e = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    return e == cudaSuccess ? PLX_SUCCESS : cuda_err("cudaEventCreateWithFlags", e);
}

static void ev_put(struct plx_dev_ctx *d, cudaEvent_t ev, int device)
{
    if (!ev) return;
    if (d->nevs == d->cap_evs) {
        int cap = d->cap_evs ? 2 * d->cap_evs : 16;
        ev_ent_t *n = realloc(d->evs, (size_t)cap * sizeof *n);
        if (!n) {
            cudaEventDestroy(ev);
            return;
        }
        d->evs = n;
        d->cap_evs = cap;
    }
    d->evs[d->nevs++] = (ev_ent_t){ ev, device };
}

/* A pinned block of at least `bytes` (the smallest free one that fits and
 * whose last copy is over, else a new one). */
static pin_blk_t *pin_get(struct plx_dev_ctx *d, size_t bytes)
{
    pin_blk_t *best = NULL;
    for (pin_blk_t *b = d->pins; b; b = b->next) {
        if (b->busy || b->cap < bytes || (best && b->cap >= best->cap)) continue;
        if (b->fence) {
            if (cudaEventQuery(b->fence) != cudaSuccess) continue;
            ev_put(d, b->fence, b->fence_dev);
            b->fence = NULL;
        }
        best = b;
    }
    if (!best) {
        size_t cap = (bytes + 65535) & ~(size_t)65535;
        void *p = NULL;
        /* portable: usable from every device's context */
        cudaError_t e = cudaHostAlloc(&p, cap ? cap : 65536, cudaHostAllocPortable);
        if (e != cudaSuccess) {
            cuda_err("cudaHostAlloc (staging buffer)", e);
            return NULL;
        }
        if (!(best = calloc(1, sizeof *best))) {
            cudaFreeHost(p);
            return NULL;
        }
        best->p = p;
        best->cap = cap ? cap : 65536;
        best->next = d->pins;
        d->pins = best;
    }
    best->busy = 1;
    return best;
}

/* Give a block back; fence (may be NULL) fires when the last copy using it
 * is over.  Beyond PIN_KEEP_FREE free blocks or PIN_KEEP_BYTES, an idle one
 * is released (cudaHostAlloc is slow: blocks are reused across calls). */
static void pin_put(struct plx_dev_ctx *d, pin_blk_t *b, cudaEvent_t fence, int fence_dev)
{
    b->busy = 0;
    b->fence = fence;
    b->fence_dev = fence_dev;
    int nfree = 0;
    size_t free_bytes = 0;
    for (pin_blk_t *x = d->pins; x; x = x->next)
        if (!x->busy) nfree++, free_bytes += x->cap;
    if ((nfree <= PIN_KEEP_FREE && free_bytes <= PIN_KEEP_BYTES) || fence) return;
    for (pin_blk_t **pp = &d->pins; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            cudaFreeHost(b->p);
            free(b);
            return;
        }
}

/* ---- memory types ------------------------------------------------------------------------ */
/* 1 if p is device (or managed) memory, with its device in *dev. */
static int is_device_ptr(const void *p, int *dev)
{
    struct cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, p);
    if (e != cudaSuccess) {
        cudaGetLastError();   /* older runtimes: invalid value for plain host memory */
        return 0;
    }
    if (at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged) {
        *dev = at.device;
        return 1;
    }
    return 0;   /* pageable or pinned host memory */
}

int plx_dev_is_device_buffer(const void *p)
{
    int dev;
    return p && p != PLX_IN_PLACE && is_device_ptr(p, &dev);
}

/* Bytes from a v-form buffer's start to the end of its last block. */
static size_t v_extent(const size_t *counts, const size_t *displs, int size, size_t es)
{
    size_t end = 0;
    for (int i = 0; counts && displs && i < size; i++)
        if (counts[i] && displs[i] + counts[i] > end) end = displs[i] + counts[i];
    return end * es;
}

/* The v-forms: a receive buffer is staged whole both ways (its gaps and
 * the blocks of others must come back as they were), a send buffer in. */
static void vbuf_uses(plx_comm_t comm, const coll_args_t *a, buf_use_t u[2])
{
    size_t es = plx_dtype_size(a->dt), n = a->count * es;
    int p = comm->size, me = comm->rank, is_root = me == a->root, sip = a->sbuf == PLX_IN_PLACE;
    buf_use_t *S = &u[0], *R = &u[1];
    size_t re = v_extent(a->rcounts, a->rdispls, p, es), se = v_extent(a->scounts, a->sdispls, p, es);
#define USE(B, ptr, ext, il, ol) \
    ((B)->p = (void *)(ptr), (B)->extent = (ext), (B)->in_off = 0, (B)->in_len = (il), \
     (B)->out_off = 0, (B)->out_len = (ol))
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:
        if (!sip) USE(S, a->sbuf, n, n, 0);
        USE(R, a->rbuf, re, re, re);
        break;
    case PLX_COLL_GATHERV:
        if (!sip) USE(S, a->sbuf, n, n, 0);
        if (is_root) USE(R, a->rbuf, re, re, re);
        break;
    case PLX_COLL_SCATTERV:
        if (is_root) USE(S, a->sbuf, se, se, 0);
        if (!(is_root && a->rbuf == PLX_IN_PLACE)) USE(R, a->rbuf, n, 0, n);
        break;
    case PLX_COLL_ALLTOALLV:
        if (!sip) USE(S, a->sbuf, se, se, 0);
        USE(R, a->rbuf, re, re, re);
        break;
    case PLX_COLL_REDUCE_SCATTERV: {
        size_t all = coll_sum_counts(a->rcounts, p) * es, mine = a->rcounts ? a->rcounts[me] * es : 0;
        if (!sip) USE(S, a->sbuf, all, all, 0);
        USE(R, a->rbuf, sip ? all : mine, sip ? all : 0, mine);
        break;
    }
    default:
        break;
    }
#undef USE
}

/* The buffers this rank's call reads and writes (API rules in plexus.h). */
static void buf_uses(plx_comm_t comm, const coll_args_t *a, buf_use_t u[2])
{
    size_t es = plx_dtype_size(a->dt), n = a->count * es, all = (size_t)comm->size * n;
    int me = comm->rank, root = a->root, sip = a->sbuf == PLX_IN_PLACE, is_root = me == a->root;
    buf_use_t *S = &u[0], *R = &u[1];
    memset(u, 0, 2 * sizeof *u);
#define USE(B, ptr, ext, io, il, oo, ol) \
    ((B)->p = (void *)(ptr), (B)->extent = (ext), (B)->in_off = (io), (B)->in_len = (il), \
     (B)->out_off = (oo), (B)->out_len = (ol))
    switch (a->coll) {
    case PLX_COLL_BCAST:
        USE(R, a->rbuf, n, 0, is_root ? n : 0, 0, is_root ? 0 : n);
        break;
    case PLX_COLL_REDUCE:
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        if (is_root) USE(R, a->rbuf, n, 0, sip ? n : 0, 0, n);
        break;
    case PLX_COLL_ALLREDUCE:
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        USE(R, a->rbuf, n, 0, sip ? n : 0, 0, n);
        break;
    case PLX_COLL_ALLGATHER:
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        USE(R, a->rbuf, all, sip ? (size_t)me * n : 0, sip ? n : 0, 0, all);
        break;
    case PLX_COLL_REDUCE_SCATTER:
        if (!sip) USE(S, a->sbuf, all, 0, all, 0, 0);
        USE(R, a->rbuf, sip ? all : n, 0, sip ? all : 0, 0, n);
        break;
    case PLX_COLL_ALLTOALL:
        if (!sip) USE(S, a->sbuf, all, 0, all, 0, 0);
        USE(R, a->rbuf, all, 0, sip ? all : 0, 0, all);
        break;
    case PLX_COLL_GATHER:
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        if (is_root) USE(R, a->rbuf, all, sip ? (size_t)root * n : 0, sip ? n : 0, 0, all);
        break;
    case PLX_COLL_SCATTER:
        if (is_root) USE(S, a->sbuf, all, 0, all, 0, 0);
        if (!(is_root && a->rbuf == PLX_IN_PLACE)) USE(R, a->rbuf, n, 0, 0, 0, n);
        break;
    case PLX_COLL_SCAN:
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        USE(R, a->rbuf, n, 0, sip ? n : 0, 0, n);
        break;
    case PLX_COLL_EXSCAN:   /* rank 0's recvbuf is only read (in place), never written */
        if (!sip) USE(S, a->sbuf, n, 0, n, 0, 0);
        if (me != 0 || sip) USE(R, a->rbuf, n, 0, sip ? n : 0, 0, me != 0 ? n : 0);
        break;
    default:
        if (coll_is_v(a->coll)) vbuf_uses(comm, a, u);
        break;
    }
#undef USE
}

/* 0: a host call; 1: a device call (u[] filled, *device its GPU); -1: a
 * bad mix (*st set, logged). */
static int classify(const char *fn, plx_comm_t comm, const coll_args_t *a, buf_use_t u[2],
                    int *device, plx_status_t *st)
{
    if (a->coll == PLX_COLL_BARRIER || comm->mem_type == PLX_MEM_HOST) return 0;
    buf_uses(comm, a, u);
    /* PLX_MEM_DEVICE: no lookup -- except for byte allgathers, which is
     * what plx_comm_split/dup run on the communicator with host buffers
     * (plx_coll_allgather_bytes) */
    if (comm->mem_type == PLX_MEM_DEVICE && !(a->coll == PLX_COLL_ALLGATHER && a->dt == PLX_UINT8)) {
        if (comm->dev) {
            *device = comm->dev->device;
        } else if (cudaGetDevice(device) != cudaSuccess) {
            *st = cuda_err("cudaGetDevice", cudaGetLastError());
            return -1;
        }
        return 1;
    }
    int ndev = 0, nhost = 0, dev[2] = { -1, -1 };
    for (int i = 0; i < 2; i++) {
        if (!u[i].p) continue;
        if (is_device_ptr(u[i].p, &dev[i])) ndev++;
        else nhost++;
    }
    if (!ndev) return 0;
    if (nhost) {
        *st = plx_bad_arg(fn, "sendbuf and recvbuf mix device and host memory (stage one of them yourself)");
        return -1;
    }
    if (dev[0] >= 0 && dev[1] >= 0 && dev[0] != dev[1]) {
        *st = plx_bad_arg(fn, "sendbuf is on GPU %d and recvbuf on GPU %d", dev[0], dev[1]);
        return -1;
    }
    *device = dev[0] >= 0 ? dev[0] : dev[1];
    if (comm->dev && comm->dev->device != *device) {
        *st = plx_bad_arg(fn, "buffer on GPU %d, but this communicator's device collectives use GPU %d",
                          *device, comm->dev->device);
        return -1;
    }
    return 1;
}

/* ---- the communicator's setup ------------------------------------------------------------- */
static void dc_fail(plx_comm_t comm, struct plx_dev_comm *dc, plx_status_t st, const char *why)
{
    if (dc->state == DC_FAILED) return;
    plx_error("device collectives on comm %u (rank %d of %d): %s: %s%s", comm->id, comm->rank,
              comm->size, why, plx_strerror(st),
              dc->nccl ? "; aborting its NCCL communicator (later device collectives on it fail)" : "");
    if (dc->nccl) {
        int prev = dev_enter(dc->device);
        comm->ctx->dev->ops->abort(dc->nccl);
        dev_leave(prev, dc->device);
        dc->nccl = NULL;
    }
    if (dc->setup) {
        sched_free(dc->setup);
        dc->setup = NULL;
    }
    dc->state = DC_FAILED;
    dc->err = st;
}

/* First device collective on comm: phase 1 of the setup starts now (its
 * sequence number and the id bcast's are taken in call order). */
static plx_status_t dc_create(plx_comm_t comm, int device)
{
    struct plx_dev_ctx *d = comm->ctx->dev;
    /* both setup collectives' numbers first: a rank failing below still
     * consumes them, so the communicator's numbering stays in step */
    uint32_t info_seq = comm->coll_seq++, id_seq = comm->coll_seq++;
    struct plx_dev_comm *dc = calloc(1, sizeof *dc);
    if (!dc) return PLX_ERR_NO_MEMORY;
    dc->device = device;
    dc->all = calloc((size_t)comm->size, sizeof *dc->all);
    if (!dc->all) {
        free(dc);
        return PLX_ERR_NO_MEMORY;
    }
    int prev = dev_enter(device);
    cudaError_t e = cudaStreamCreateWithFlags(&dc->stream, cudaStreamDefault);
    if (e == cudaSuccess && d->nccl_wanted) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
            memcpy(dc->mine.uuid, &prop.uuid, sizeof dc->mine.uuid);
            dc->mine.want = 1;
        } else {
            cudaGetLastError();
        }
    }
    dev_leave(prev, device);
    if (e != cudaSuccess) {
        free(dc->all);
        free(dc);
        return cuda_err("cudaStreamCreateWithFlags", e);
    }
    plx_sched_t *s = sched_new_at(comm, "device setup (allgather)", info_seq);
    coll_args_t ga = { .coll = PLX_COLL_ALLGATHER, .sbuf = &dc->mine, .rbuf = dc->all,
                       .count = sizeof(dev_info_t), .dt = PLX_UINT8 };
    dc->id_seq = id_seq;
    plx_status_t st = s ? coll_allgather_ring(s, comm, &ga) : PLX_ERR_NO_MEMORY;
    if (st == PLX_SUCCESS) st = sched_start(s);
    if (st != PLX_SUCCESS) {
        if (s) sched_free(s);
        cudaStreamDestroy(dc->stream);
        free(dc->all);
        free(dc);
        return st;
    }
    dc->setup = s;
    dc->state = DC_SETUP;
    dc->setup_phase = SETUP_INFO;
    comm->dev = dc;
    return PLX_SUCCESS;
}

/* Phase 1 done: may NCCL run this communicator?  Every rank decides the
 * same from the same table. */
static int nccl_viable(plx_comm_t comm, struct plx_dev_comm *dc)
{
    for (int r = 0; r < comm->size; r++)
        if (!dc->all[r].want) {
            plx_info("comm %u: device collectives staged through host memory: rank %d %s", comm->id, r,
                     r == comm->rank ? "does not use NCCL (not built, PLX_NCCL=0 or device unreadable)"
                                     : "does not use NCCL");
            return 0;
        }
    for (int r = 0; r < comm->size; r++)
        for (int q = r + 1; q < comm->size; q++)
            if (memcmp(dc->all[r].uuid, dc->all[q].uuid, sizeof dc->all[r].uuid) == 0) {
                plx_info("comm %u: device collectives staged through host memory: ranks %d and %d share "
                         "one GPU (NCCL needs one GPU per rank)", comm->id, r, q);
                return 0;
            }
    return 1;
}

/* Move the setup as far as it goes without waiting. */
static void dc_advance(plx_comm_t comm, struct plx_dev_comm *dc)
{
    const plx_devcoll_ops_t *ops = comm->ctx->dev->ops;
    while (dc->state == DC_SETUP) {
        if (!sched_advance(dc->setup)) return;
        plx_status_t st = sched_status(dc->setup);
        sched_free(dc->setup);
        dc->setup = NULL;
        if (st != PLX_SUCCESS) {
            dc_fail(comm, dc, st, "the setup collective failed");
            return;
        }
        if (dc->setup_phase == SETUP_INFO) {
            if (!ops || !nccl_viable(comm, dc)) {
                dc->state = DC_STAGE;
                return;
            }
            if (comm->rank == 0) dc->idm.ok = ops->get_id(dc->idm.id) == PLX_SUCCESS;
            plx_sched_t *s = sched_new_at(comm, "device setup (bcast)", dc->id_seq);
            coll_args_t ba = { .coll = PLX_COLL_BCAST, .sbuf = &dc->idm, .rbuf = &dc->idm,
                               .count = sizeof dc->idm, .dt = PLX_UINT8, .root = 0 };
            st = s ? coll_bcast_binomial(s, comm, &ba) : PLX_ERR_NO_MEMORY;
            if (st == PLX_SUCCESS) st = sched_start(s);
            if (st != PLX_SUCCESS) {
                if (s) sched_free(s);
                dc_fail(comm, dc, st, "the setup bcast could not start");
                return;
            }
            dc->setup = s;
            dc->setup_phase = SETUP_ID;
            continue;
        }
        /* phase 2 done: everyone has rank 0's answer */
        if (!dc->idm.ok) {
            plx_warn("comm %u: rank 0 could not make an NCCL unique id; device collectives staged "
                     "through host memory", comm->id);
            dc->state = DC_STAGE;
            return;
        }
        int prev = dev_enter(dc->device);
        st = ops->init_start(&dc->nccl, comm->size, dc->idm.id, comm->rank);
        dev_leave(prev, dc->device);
        if (st != PLX_SUCCESS) {
            dc_fail(comm, dc, st, "ncclCommInitRankConfig failed");
            return;
        }
        dc->state = DC_NCCL_INIT;
    }
    if (dc->state == DC_NCCL_INIT) {
        plx_status_t st;
        if (!ops->poll(dc->nccl, &st)) return;
        if (st != PLX_SUCCESS) {
            dc_fail(comm, dc, st, "the NCCL communicator could not be made");
            return;
        }
        dc->state = DC_NCCL;
        plx_debug("comm %u: NCCL communicator ready (%d ranks, GPU %d)", comm->id, comm->size, dc->device);
    }
}

/* At most every 100 ms while operations wait: NCCL's asynchronous error
 * and dead peers (a dead peer never completes an NCCL kernel: abort). */
static void dc_health(plx_comm_t comm, struct plx_dev_comm *dc)
{
    if (dc->state != DC_NCCL && dc->state != DC_NCCL_INIT) return;
    double now = plx_now();
    if (now < dc->next_health) return;
    dc->next_health = now + 0.1;
    plx_status_t st = comm->ctx->dev->ops->async_error(dc->nccl);
    if (st != PLX_SUCCESS) {
        dc_fail(comm, dc, st, "NCCL reported an asynchronous error");
        return;
    }
    if (!comm->world_rank) return;   /* freed communicator */
    for (int r = 0; r < comm->size; r++) {
        if (r == comm->rank) continue;
        int w = comm->world_rank[r];
        if (plx_peer_status(comm->ctx, w) != PLX_SUCCESS) {
            char why[96];
            snprintf(why, sizeof why, "rank %d (world %d) died", r, w);
            dc_fail(comm, dc, PLX_ERR_PEER_FAILED, why);
            return;
        }
    }
}

static void dc_free(plx_context_t ctx, plx_comm_t comm)
{
    struct plx_dev_comm *dc = comm->dev;
    if (!dc) return;
    if (dc->setup) sched_free(dc->setup);
    int prev = dev_enter(dc->device);
    if (dc->nccl) {
        /* operations still in flight (never waited for) or a communicator
         * not fully made: abort; otherwise a clean, bounded destroy */
        if (dc->inflight > 0 || dc->state != DC_NCCL) ctx->dev->ops->abort(dc->nccl);
        else ctx->dev->ops->destroy(dc->nccl, ctx->cfg.timeout_s < 30 ? ctx->cfg.timeout_s : 30);
    }
    if (dc->stream) cudaStreamDestroy(dc->stream);
    dev_leave(prev, dc->device);
    free(dc->all);
    free(dc);
    comm->dev = NULL;
}

/* ---- operations ------------------------------------------------------------------------------ */
static const char *op_state_name(int s)
{
    static const char *const names[] = { "waiting for the communicator's setup or its turn",
                                         "being enqueued by NCCL", "running in NCCL",
                                         "copying to host memory", "running the host algorithm",
                                         "copying back to device memory" };
    return s >= 0 && s <= OP_STAGE_OUT ? names[s] : "?";
}

/* End op with status s: release what it holds, free it. */
static int op_end(dev_op_t *op, plx_status_t s, plx_status_t *st)
{
    struct plx_dev_ctx *d = op->comm->ctx->dev;
    struct plx_dev_comm *dc = op->dc;
    if (op->sched) sched_free(op->sched);
    if (op->ev && (op->blk[0] || op->blk[1]) && cudaEventQuery(op->ev) == cudaErrorNotReady) {
        /* error path with a staging copy still queued: the event fences the
         * first block, a second one stays busy until finalize (never wait
         * here: a hung GPU must not hang the engine) */
        pin_blk_t *first = op->blk[0] ? op->blk[0] : op->blk[1];
        pin_put(d, first, op->ev, dc->device);
        op->ev = NULL;
        op->blk[0] = op->blk[1] = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (op->blk[i]) pin_put(d, op->blk[i], NULL, 0);
    ev_put(d, op->ev, dc->device);
    if (op->counted) dc->inflight--;
    if (op->scratch && dc->state != DC_FAILED) {
        int prev = dev_enter(dc->device);
        d->ops->post(&op->a, op->comm->rank, op->comm->size, dc->stream, op->scratch);
        dev_leave(prev, dc->device);
    }
    free(op->a.owned);
    free(op);
    *st = s;
    return 1;
}

static cudaStream_t op_stream(const dev_op_t *op)
{
    return op->on_stream ? op->user_stream : op->dc->stream;
}

/* Enqueue done (NCCL accepted it on the stream): the follow-up steps, then
 * the event the engine polls (or the end, for the stream-ordered form).
 * Returns 1 if the op ended. */
static int op_enqueued(dev_op_t *op, plx_status_t *st)
{
    struct plx_dev_ctx *d = op->comm->ctx->dev;
    struct plx_dev_comm *dc = op->dc;
    cudaStream_t s = op_stream(op);
    plx_status_t ps = d->ops->post(&op->a, op->comm->rank, op->comm->size, s, op->scratch);
    op->scratch = NULL;
    dc->launched++;
    if (ps != PLX_SUCCESS) {
        dc_fail(op->comm, dc, ps, "a step after the NCCL call failed");
        return op_end(op, ps, st);
    }
    if (op->on_stream) return op_end(op, PLX_SUCCESS, st);
    if ((ps = ev_get(d, dc->device, &op->ev)) != PLX_SUCCESS) return op_end(op, ps, st);
    cudaError_t e = cudaEventRecord(op->ev, s);
    if (e != cudaSuccess) return op_end(op, cuda_err("cudaEventRecord", e), st);
    dc->inflight++;
    op->counted = 1;
    op->state = OP_RUN;
    return 0;
}

/* Copy the inputs to pinned host blocks and record the event to poll. */
static plx_status_t op_stage_in(dev_op_t *op)
{
    struct plx_dev_ctx *d = op->comm->ctx->dev;
    cudaStream_t s = op_stream(op);
    int copies = 0;
    for (int i = 0; i < 2; i++) {
        buf_use_t *u = &op->u[i];
        if (!u->p) continue;
        if (!(op->blk[i] = pin_get(d, u->extent))) return PLX_ERR_NO_MEMORY;
        if (!u->in_len) continue;
        cudaError_t e = cudaMemcpyAsync((char *)op->blk[i]->p + u->in_off, (char *)u->p + u->in_off,
                                        u->in_len, cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) return cuda_err("cudaMemcpyAsync (device to host)", e);
        copies++;
    }
    op->state = OP_STAGE_IN;
    if (!copies) return PLX_SUCCESS;   /* nothing to wait for (e.g. a bcast's receivers) */
    PLX_CHECK(ev_get(d, op->dc->device, &op->ev));
    cudaError_t e = cudaEventRecord(op->ev, s);
    return e == cudaSuccess ? PLX_SUCCESS : cuda_err("cudaEventRecord", e);
}

/* The host algorithm for a staged collective: the selector's choice
 * unless that is shm_slots (see the top of the file), then the default
 * rules without shm_slots. */
static const coll_algo_t *stage_algo(plx_comm_t comm, plx_coll_t coll, size_t bytes, int need_order)
{
    const coll_algo_t *al = plx_select_algo_for(comm->ctx->select, coll, bytes, comm, need_order);
    if (al && al->build && !al->node_slots) return al;
    al = plx_select_algo_for(comm->ctx->dev->stage_sel, coll, bytes, comm, need_order);
    return al && al->build && !al->node_slots ? al : NULL;
}

/* Inputs are in host memory: build the host schedule under the sequence
 * number reserved at the call, and start it. */
static plx_status_t op_start_host(dev_op_t *op)
{
    plx_comm_t comm = op->comm;
    coll_args_t h = op->a;
    if (op->blk[0]) h.sbuf = op->blk[0]->p;
    if (op->blk[1]) h.rbuf = op->blk[1]->p;
    if (h.coll == PLX_COLL_BCAST) h.sbuf = h.rbuf;
    int need_order = coll_is_reduction(h.coll) && !plx_op_commutative(h.op);
    const coll_algo_t *al = stage_algo(comm, h.coll, coll_select_count(comm, &h) * plx_dtype_size(h.dt),
                                       need_order);
    if (!al) return PLX_ERR_INTERNAL;
    plx_sched_t *s = sched_new_at(comm, plx_coll_name(h.coll), op->seq);
    if (!s) return PLX_ERR_NO_MEMORY;
    plx_status_t st = al->build(s, comm, &h);
    if (st == PLX_SUCCESS) st = sched_start(s);
    if (st != PLX_SUCCESS) {
        sched_free(s);
        return st;
    }
    op->sched = s;
    op->state = OP_HOST;
    return PLX_SUCCESS;
}

/* Host part done: copy the outputs back; returns 1 if the op ended. */
static int op_stage_out(dev_op_t *op, plx_status_t *st)
{
    struct plx_dev_ctx *d = op->comm->ctx->dev;
    int dev = op->dc->device;
    cudaStream_t s = op_stream(op);
    for (int i = 0; i < 2; i++) {
        buf_use_t *u = &op->u[i];
        if (!u->p || !u->out_len) continue;
        cudaError_t e = cudaMemcpyAsync((char *)u->p + u->out_off, (char *)op->blk[i]->p + u->out_off,
                                        u->out_len, cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess) return op_end(op, cuda_err("cudaMemcpyAsync (host to device)", e), st);
    }
    if (op->ev) {
        ev_put(d, op->ev, dev);
        op->ev = NULL;
    }
    plx_status_t ps;
    if (op->on_stream) {
        /* the copies run later on the user's stream: each block is fenced
         * by an event after them and reused only once it fired */
        for (int i = 0; i < 2; i++) {
            if (!op->blk[i]) continue;
            cudaEvent_t f = NULL;
            if (ev_get(d, dev, &f) != PLX_SUCCESS || cudaEventRecord(f, s) != cudaSuccess) {
                cudaGetLastError();
                cudaStreamSynchronize(s);   /* cannot fence: wait (error path) */
                if (f) ev_put(d, f, dev);
                f = NULL;
            }
            pin_put(d, op->blk[i], f, dev);
            op->blk[i] = NULL;
        }
        return op_end(op, PLX_SUCCESS, st);
    }
    if ((ps = ev_get(d, dev, &op->ev)) != PLX_SUCCESS) return op_end(op, ps, st);
    cudaError_t e = cudaEventRecord(op->ev, s);
    if (e != cudaSuccess) return op_end(op, cuda_err("cudaEventRecord", e), st);
    op->state = OP_STAGE_OUT;
    return 0;
}

/* Poll op's event: 1 fired, 0 not yet, -1 error (*ps). */
static int op_event(dev_op_t *op, plx_status_t *ps)
{
    if (!op->ev) return 1;
    cudaError_t e = cudaEventQuery(op->ev);
    if (e == cudaSuccess) return 1;
    if (e == cudaErrorNotReady) return 0;
    *ps = cuda_err("cudaEventQuery", e);
    return -1;
}

/* The engine's advance hook (lock held): move op as far as it goes. */
static int op_advance(void *arg, plx_status_t *st)
{
    dev_op_t *op = arg;
    plx_comm_t comm = op->comm;
    struct plx_dev_comm *dc = op->dc;
    const plx_devcoll_ops_t *ops = comm->ctx->dev->ops;
    plx_status_t ps = PLX_SUCCESS;
    dc_advance(comm, dc);
    for (;;) {
        int nccl_route = dc->state == DC_NCCL && op->nccl_ok;
        if (dc->state == DC_FAILED && op->state <= OP_RUN) return op_end(op, dc->err, st);
        int prev, r, ended = 0;
        switch (op->state) {
        case OP_WAIT:
            if (dc->state == DC_SETUP || dc->state == DC_NCCL_INIT) return 0;
            if (nccl_route) {
                int pending = 0;
                if (dc->launched != op->ticket) return 0;   /* an earlier call goes first */
                prev = dev_enter(dc->device);
                ps = ops->launch(dc->nccl, &op->a, comm->rank, comm->size, op_stream(op), &op->scratch,
                                 &pending);
                if (ps != PLX_SUCCESS) {
                    dc_fail(comm, dc, ps, "an NCCL call failed");
                    ended = op_end(op, ps, st);
                } else if (pending) {
                    op->state = OP_ENQ;
                } else {
                    ended = op_enqueued(op, st);
                }
                dev_leave(prev, dc->device);
                if (ended) return 1;
                continue;
            }
            prev = dev_enter(dc->device);
            ps = op_stage_in(op);
            dev_leave(prev, dc->device);
            if (ps != PLX_SUCCESS) return op_end(op, ps, st);
            continue;
        case OP_ENQ:
            if (!ops->poll(dc->nccl, &ps)) return 0;
            if (ps != PLX_SUCCESS) {
                dc_fail(comm, dc, ps, "NCCL could not enqueue a collective");
                return op_end(op, ps, st);
            }
            prev = dev_enter(dc->device);
            ended = op_enqueued(op, st);
            dev_leave(prev, dc->device);
            if (ended) return 1;
            continue;
        case OP_RUN:
            if ((r = op_event(op, &ps)) == 0) return 0;
            if (r < 0) dc_fail(comm, dc, ps, "waiting for an NCCL collective failed");
            return op_end(op, ps, st);
        case OP_STAGE_IN:
            if ((r = op_event(op, &ps)) == 0) return 0;
            if (r < 0 || (ps = op_start_host(op)) != PLX_SUCCESS) return op_end(op, ps, st);
            continue;
        case OP_HOST:
            if (!sched_advance(op->sched)) return 0;
            ps = sched_status(op->sched);
            sched_free(op->sched);
            op->sched = NULL;
            if (ps != PLX_SUCCESS) return op_end(op, ps, st);
            prev = dev_enter(dc->device);
            ended = op_stage_out(op, st);
            dev_leave(prev, dc->device);
            if (ended) return 1;
            continue;
        case OP_STAGE_OUT:
            if ((r = op_event(op, &ps)) == 0) return 0;
            return op_end(op, ps, st);
        default:
            return op_end(op, PLX_ERR_INTERNAL, st);
        }
    }
}

/* The engine's check hook (every ~100 ms): NCCL's health, dead peers,
 * PLX_TIMEOUT. */
static int op_check(void *arg, double elapsed, double limit, plx_status_t *st)
{
    dev_op_t *op = arg;
    plx_comm_t comm = op->comm;
    struct plx_dev_comm *dc = op->dc;
    dc_health(comm, dc);
    if (dc->state == DC_FAILED && op->state <= OP_RUN) return op_end(op, dc->err, st);
    if (op->state == OP_HOST) {
        /* the host schedule names its missing ranks itself */
        if (sched_check(op->sched, elapsed, limit)) return op_end(op, sched_status(op->sched), st);
        return 0;
    }
    if (dc->state == DC_SETUP && dc->setup && sched_check(dc->setup, elapsed, limit)) {
        dc_fail(comm, dc, sched_status(dc->setup), "the setup collective did not complete");
        return op_end(op, dc->err, st);
    }
    if (elapsed < limit) return 0;
    plx_error("device %s on comm %u (rank %d of %d) timed out after %g s while %s%s", plx_coll_name(op->a.coll),
              comm->id, comm->rank, comm->size, limit, op_state_name(op->state),
              dc->state == DC_NCCL_INIT ? " (the NCCL communicator was still being made)" : "");
    /* an NCCL operation that never ran or never finished leaves the NCCL
     * communicator out of step (its kernels may be stuck, later tickets
     * would wait for this one): abort it */
    if (dc->state == DC_NCCL_INIT || (dc->state == DC_NCCL && op->nccl_ok && op->state <= OP_RUN))
        dc_fail(comm, dc, PLX_ERR_TIMEOUT, "an NCCL operation did not complete");
    return op_end(op, PLX_ERR_TIMEOUT, st);
}

/* Finalize with op in flight: give back what it holds (dc lives on until
 * plx_dev_finalize, which runs after this). */
static void op_cancel(void *arg)
{
    dev_op_t *op = arg;
    plx_status_t ignored;
    op->counted = 0;   /* stays counted in dc->inflight: dc_free then aborts NCCL */
    op_end(op, PLX_SUCCESS, &ignored);
}

/* Start a device collective (lock held). */
static plx_status_t op_start(plx_comm_t comm, const coll_args_t *a, const buf_use_t u[2], int device,
                             int on_stream, cudaStream_t stream, plx_request_t *req)
{
    struct plx_dev_ctx *d = comm->ctx->dev;
    if (!comm->dev) {
        plx_status_t cs = dc_create(comm, device);
        if (cs != PLX_SUCCESS) {
            comm->coll_seq++;   /* this call's number, as on the other ranks */
            return cs;
        }
    }
    /* every device call takes a host sequence number (used if it is
     * staged), also one that fails here: the same count on every rank */
    uint32_t seq = comm->coll_seq++;
    struct plx_dev_comm *dc = comm->dev;
    if (dc->state == DC_FAILED) return dc->err;
    dev_op_t *op = calloc(1, sizeof *op);
    if (!op) return PLX_ERR_NO_MEMORY;
    op->comm = comm;
    op->dc = dc;
    op->a = *a;
    /* the v-forms' arrays: the user may free them when the call returns,
     * and the op is launched or staged later */
    if (plx_coll_args_own_arrays(&op->a, comm->size) != PLX_SUCCESS) {
        free(op);
        return PLX_ERR_NO_MEMORY;
    }
    memcpy(op->u, u, sizeof op->u);
    op->seq = seq;
    op->nccl_ok = d->ops && d->ops->supports(a->coll, a->dt, a->op);
    if (op->nccl_ok) op->ticket = dc->issued++;
    op->on_stream = on_stream;
    op->user_stream = stream;
    plx_req_hook_t h = { op_advance, op_check, op_cancel, op };
    plx_status_t st = plx_req_start_hook(comm->ctx, &h, req);
    if (st != PLX_SUCCESS) {
        free(op->a.owned);
        free(op);
    }
    return st;
}

int plx_dev_start_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req, plx_status_t *st)
{
    buf_use_t u[2];
    int device = -1;
    int k = classify(plx_coll_name(a->coll), comm, a, u, &device, st);
    if (k <= 0) return k < 0;
    *st = op_start(comm, a, u, device, 0, NULL, req);
    return 1;
}

/* ---- init / finalize ------------------------------------------------------------------------------ */
/* PLX_TUNE-syntax defaults without the shm_slots ranges (see stage_algo). */
static plx_status_t make_stage_selector(plx_select_t **sel)
{
    const char *def = plx_select_defaults();
    size_t len = strlen(def);
    char *in = malloc(len + 1), *out = malloc(len + 2);
    if (!in || !out) {
        free(in);
        free(out);
        return PLX_ERR_NO_MEMORY;
    }
    memcpy(in, def, len + 1);
    out[0] = '\0';
    char *save_rule = NULL;
    for (char *rule = strtok_r(in, ";", &save_rule); rule; rule = strtok_r(NULL, ";", &save_rule)) {
        char *colon = strchr(rule, ':');
        if (!colon) continue;
        *colon = '\0';
        strcat(out, rule);
        strcat(out, ":");
        int first = 1;
        char *save_item = NULL;
        for (char *it = strtok_r(colon + 1, ",", &save_item); it; it = strtok_r(NULL, ",", &save_item)) {
            if (strstr(it, "@shm_slots") || strstr(it, "@direct")) continue;
            if (!first) strcat(out, ",");
            strcat(out, it);
            first = 0;
        }
        strcat(out, ";");
    }
    char err[256] = "";
    plx_status_t st = plx_select_create(out, sel, err, sizeof err);
    if (st != PLX_SUCCESS) plx_error("device: staging selector: %s", err);
    free(in);
    free(out);
    return st;
}

plx_status_t plx_dev_init(plx_context_t ctx)
{
    const char *cuda = getenv("PLX_CUDA"), *nccl = getenv("PLX_NCCL");
    int want = 1, require = 0;
    if (cuda) {
        if (!strcmp(cuda, "0")) want = 0;
        else if (!strcmp(cuda, "1")) require = 1;
        else if (strcmp(cuda, "auto")) {
            plx_error("plx_init: PLX_CUDA='%s' is not one of auto|0|1", cuda);
            return PLX_ERR_INVALID_ARG;
        }
    }
    if (nccl && strcmp(nccl, "auto") && strcmp(nccl, "0") && strcmp(nccl, "p2p")) {
        plx_error("plx_init: PLX_NCCL='%s' is not one of auto|0|p2p", nccl);
        return PLX_ERR_INVALID_ARG;
    }
    ctx->dev_on = 0;
    if (!want) return PLX_SUCCESS;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (e != cudaSuccess) cudaGetLastError();
        if (require) {
            plx_error("plx_init: PLX_CUDA=1 but no CUDA device is usable (%s)",
                      e != cudaSuccess ? cudaGetErrorString(e) : "no device");
            return PLX_ERR_NOT_SUPPORTED;
        }
        plx_debug("no CUDA device usable (%s): device buffers off", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return PLX_SUCCESS;
    }
    struct plx_dev_ctx *d = calloc(1, sizeof *d);
    if (!d) return PLX_ERR_NO_MEMORY;
#if PLX_HAVE_NCCL
    d->ops = &plx_devcoll_nccl_ops;
#endif
    d->nccl_wanted = d->ops && !(nccl && !strcmp(nccl, "0"));
    plx_status_t st = make_stage_selector(&d->stage_sel);
    if (st != PLX_SUCCESS) {
        free(d);
        return st;
    }
    ctx->dev = d;
    ctx->dev_on = 1;
    plx_debug("%d CUDA device(s) usable; device buffers through %s", n,
              d->nccl_wanted ? "NCCL where each rank has a GPU of its own, else staging" : "staging");
    return PLX_SUCCESS;
}

void plx_dev_comm_release(plx_comm_t comm)
{
    if (comm->ctx->dev) dc_free(comm->ctx, comm);
}

void plx_dev_finalize(plx_context_t ctx)
{
    struct plx_dev_ctx *d = ctx->dev;
    if (!d) return;
    if (ctx->world) dc_free(ctx, ctx->world);
    for (plx_comm_t c = ctx->comms; c; c = c->next) dc_free(ctx, c);
    while (d->pins) {
        pin_blk_t *b = d->pins;
        d->pins = b->next;
        if (b->fence) cudaEventDestroy(b->fence);
        cudaFreeHost(b->p);   /* waits for copies still using it */
        free(b);
    }
    for (int i = 0; i < d->nevs; i++) cudaEventDestroy(d->evs[i].ev);
    free(d->evs);
    plx_select_free(d->stage_sel);
    free(d);
    ctx->dev = NULL;
    ctx->dev_on = 0;
}

/* ---- stream-ordered calls ------------------------------------------------------------------------------ */
static plx_status_t on_stream(const char *fn, plx_comm_t comm, const coll_args_t *a, plx_cuda_stream_t stream)
{
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_context_t ctx = comm->ctx;
    if (!ctx->dev_on) {
        plx_warn("%s: no usable CUDA device in this process (PLX_CUDA, driver, GPU)", fn);
        return PLX_ERR_NOT_SUPPORTED;
    }
    if (coll_skips(comm, a)) return PLX_SUCCESS;
    buf_use_t u[2];
    int device = -1;
    plx_status_t st = PLX_SUCCESS;
    plx_request_t req = NULL;
    plx_ctx_lock(ctx);
    int k = classify(fn, comm, a, u, &device, &st);
    if (k == 0) st = plx_bad_arg(fn, "stream-ordered collectives need device buffers");
    else if (k > 0) st = op_start(comm, a, u, device, 1, (cudaStream_t)stream, &req);
    plx_ctx_unlock(ctx);
    if (st != PLX_SUCCESS) return st;
    /* until enqueued on the stream (staged: until the host part ran) */
    return plx_wait(&req);
}

#else /* !PLX_HAVE_CUDA */

static plx_status_t on_stream(const char *fn, plx_comm_t comm, const coll_args_t *a, plx_cuda_stream_t stream)
{
    (void)stream;
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_warn("%s: this Plexus was built without CUDA", fn);
    return PLX_ERR_NOT_SUPPORTED;
}

#endif /* PLX_HAVE_CUDA */

/* ---- public calls (plexus.h, "GPU buffers") ------------------------------------------------------- */
plx_status_t plx_comm_set_mem_type(plx_comm_t comm, plx_mem_type_t type)
{
    const char *fn = "plx_comm_set_mem_type";
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if ((int)type < PLX_MEM_AUTO || type > PLX_MEM_DEVICE) return plx_bad_arg(fn, "unknown memory type %d", (int)type);
    if (type == PLX_MEM_DEVICE && !comm->ctx->dev_on) {
        plx_warn("%s: PLX_MEM_DEVICE, but no CUDA device is usable in this process", fn);
        return PLX_ERR_NOT_SUPPORTED;
    }
    plx_ctx_lock(comm->ctx);
    comm->mem_type = (int)type;
    plx_ctx_unlock(comm->ctx);
    return PLX_SUCCESS;
}

plx_status_t plx_query_device(plx_context_t ctx, int *usable)
{
    if (usable) *usable = 0;
    if (!ctx || ctx->magic != PLX_CTX_MAGIC || !usable)
        return plx_bad_arg("plx_query_device", "bad context or usable is NULL");
    *usable = ctx->dev_on;
    return PLX_SUCCESS;
}

plx_status_t plx_query_algorithm_device(plx_comm_t comm, const char *collective, size_t bytes,
                                        const char **algorithm, const char **transport)
{
    const char *fn = "plx_query_algorithm_device";
    if (algorithm) *algorithm = NULL;
    if (transport) *transport = NULL;
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if (!collective || !algorithm) return plx_bad_arg(fn, "collective or algorithm is NULL");
    int c = plx_coll_from_name(collective);
    if (c < 0) return plx_bad_arg(fn, "unknown collective '%s'", collective);
    if (!comm->ctx->dev_on) return PLX_ERR_NOT_SUPPORTED;
    if (c == PLX_COLL_BARRIER) return plx_query_algorithm(comm, collective, bytes, algorithm, transport);
#if PLX_HAVE_CUDA
    plx_context_t ctx = comm->ctx;
    plx_ctx_lock(ctx);
    struct plx_dev_comm *dc = comm->dev;
    int state = dc ? dc->state : DC_SETUP;
    /* collectives NCCL has no form of are staged on an NCCL communicator too */
    if (state == DC_NCCL && !ctx->dev->ops->supports((plx_coll_t)c, PLX_FLOAT32, PLX_SUM)) state = DC_STAGE;
    const coll_algo_t *al = state == DC_STAGE ? stage_algo(comm, (plx_coll_t)c, bytes, 0) : NULL;
    plx_ctx_unlock(ctx);
    const char *tl = "nccl";
    switch (state) {
    case DC_NCCL: *algorithm = "nccl"; break;
    case DC_FAILED: *algorithm = "failed"; break;
    case DC_STAGE: {
        const char *host_alg, *host_tl = "shm";
        plx_query_algorithm(comm, collective, bytes, &host_alg, &host_tl);
        *algorithm = al ? al->name : host_alg;
        tl = !strcmp(host_tl, "ucx") ? "staged/ucx" : !strcmp(host_tl, "shm+ucx") ? "staged/shm+ucx" : "staged/shm";
        break;
    }
    default: *algorithm = "pending"; tl = "nccl|staged"; break;
    }
    if (transport) *transport = tl;
    return PLX_SUCCESS;
#else
    (void)bytes, (void)transport;
    return PLX_ERR_NOT_SUPPORTED;
#endif
}

int plx_dev_probe(char *buf, size_t len)
{
#if PLX_HAVE_CUDA
    int rt = 0, drv = 0, n = 0;
    cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) cudaGetLastError();
    cudaError_t e = cudaGetDeviceCount(&n);
    char vers[96];
    if (drv)
        snprintf(vers, sizeof vers, "CUDA runtime %d.%d, driver %d.%d", rt / 1000, rt % 1000 / 10,
                 drv / 1000, drv % 1000 / 10);
    else
        snprintf(vers, sizeof vers, "CUDA runtime %d.%d, no driver", rt / 1000, rt % 1000 / 10);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(buf, len, "no (cudaGetDeviceCount: %s, error %d; %s)", cudaGetErrorString(e), (int)e, vers);
        return 0;
    }
    if (n == 0) {
        snprintf(buf, len, "no (no CUDA device; %s)", vers);
        return 0;
    }
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        cudaGetLastError();
        snprintf(buf, len, "yes (%d device(s); %s)", n, vers);
        return 1;
    }
    snprintf(buf, len, "yes (%d device(s), device 0: %s, compute %d.%d, %.0f GiB; %s)", n, p.name, p.major,
             p.minor, (double)p.totalGlobalMem / (1024.0 * 1024 * 1024), vers);
    return 1;
#else
    snprintf(buf, len, "no (built without CUDA)");
    return 0;
#endif
}

/* ---- the stream-ordered collectives ---------------------------------------------------------------- */
plx_status_t plx_bcast_on_stream(void *buf, size_t count, plx_dtype_t dt, int root, plx_comm_t comm,
                                 plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_BCAST, .sbuf = buf, .rbuf = buf, .count = count, .dt = dt, .root = root };
    return on_stream("plx_bcast_on_stream", comm, &a, stream);
}

plx_status_t plx_reduce_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                  plx_op_t op, int root, plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt,
                      .op = op, .root = root };
    return on_stream("plx_reduce_on_stream", comm, &a, stream);
}

plx_status_t plx_allreduce_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                     plx_op_t op, plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return on_stream("plx_allreduce_on_stream", comm, &a, stream);
}

plx_status_t plx_allgather_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                     plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt };
    return on_stream("plx_allgather_on_stream", comm, &a, stream);
}

plx_status_t plx_reduce_scatter_on_stream(const void *sendbuf, void *recvbuf, size_t recvcount,
                                          plx_dtype_t dt, plx_op_t op, plx_comm_t comm,
                                          plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = recvcount,
                      .dt = dt, .op = op };
    return on_stream("plx_reduce_scatter_on_stream", comm, &a, stream);
}

plx_status_t plx_alltoall_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                    plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_ALLTOALL, .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt };
    return on_stream("plx_alltoall_on_stream", comm, &a, stream);
}

plx_status_t plx_gather_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                  int root, plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_GATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt,
                      .root = root };
    return on_stream("plx_gather_on_stream", comm, &a, stream);
}

plx_status_t plx_scatter_on_stream(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                   int root, plx_comm_t comm, plx_cuda_stream_t stream)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt,
                      .root = root };
    return on_stream("plx_scatter_on_stream", comm, &a, stream);
}
