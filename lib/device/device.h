/*
 * lib/device/device.h — collectives on GPU (CUDA device) buffers: memory types,
 * routing, staging, and the interface of the NCCL backend.
 *
 * How a collective on device buffers travels (lib/device/device.c):
 *   start_coll_locked (lib/api/coll.c) asks plx_dev_start_locked whether
 *   the call is a device one (one branch on ctx->dev_on, 0 when no GPU is
 *   usable: the host path makes no CUDA call then).  If every buffer this
 *   rank uses is device memory (cudaPointerGetAttributes, or the
 *   communicator's memory type set by plx_comm_set_mem_type) the call
 *   becomes a device operation, a REQ_HOOK request of the progress engine:
 *     - route "nccl": the communicator's NCCL communicator (made at its
 *       first device collective, see "Setup" in device.c) runs it on a CUDA
 *       stream; the request completes when a CUDA event recorded after it
 *       has fired (cudaEventQuery, polled by the engine: no thread blocks);
 *     - route "staged": without NCCL (not built, PLX_NCCL=0, ranks sharing
 *       a GPU, ranks without a GPU, or a bitwise op NCCL lacks) the buffers
 *       are copied to pinned host memory, the host algorithm runs over
 *       shm/UCX, and the result is copied back (events polled likewise).
 *   A call mixing host and device buffers on one rank is rejected
 *   (PLX_ERR_INVALID_ARG); every rank of a collective must pass the same
 *   kind of memory (device on one rank and host on another never match:
 *   PLX_ERR_TIMEOUT).
 *
 * Built without CUDA, everything here is a stub: the inline functions
 * below, and the public GPU calls answer PLX_ERR_NOT_SUPPORTED.
 */
#ifndef PLX_DEVICE_H
#define PLX_DEVICE_H

#include "plx_internal.h"
#include "coll/coll.h"

struct plx_dev_ctx;    /* per context: pools of events and pinned memory */
struct plx_dev_comm;   /* per communicator: route, NCCL communicator, stream */

#if PLX_HAVE_CUDA
/* At plx_init (after the transports): read PLX_CUDA / PLX_NCCL, and set
 * ctx->dev_on when a CUDA device is usable.  Fails only for a bad variable,
 * PLX_CUDA=1 without a usable device, or out of memory. */
plx_status_t plx_dev_init(plx_context_t ctx);
/* At finalize, after the engine's requests were released (their cancel
 * hooks ran) and before the transports go: NCCL communicators, streams,
 * events and pinned memory.  Safe on a partly initialised context. */
void plx_dev_finalize(plx_context_t ctx);
/* At plx_comm_free: the comm's NCCL communicator and stream. */
void plx_dev_comm_release(plx_comm_t comm);
/* Called with the lock held for every collective when ctx->dev_on: 0 if
 * the call is a host one (the caller goes on as before); 1 if it was taken
 * here, *st then being the start's status (*req set on success). */
int plx_dev_start_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req,
                         plx_status_t *st);
/* 1 if p is device (or managed) memory; only call when ctx->dev_on. */
int plx_dev_is_device_buffer(const void *p);
#else
static inline int plx_dev_is_device_buffer(const void *p) { (void)p; return 0; }
static inline plx_status_t plx_dev_init(plx_context_t ctx) { (void)ctx; return PLX_SUCCESS; }
static inline void plx_dev_finalize(plx_context_t ctx) { (void)ctx; }
static inline void plx_dev_comm_release(plx_comm_t comm) { (void)comm; }
static inline int plx_dev_start_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req,
                                       plx_status_t *st)
{
    (void)comm, (void)a, (void)req, (void)st;
    return 0;
}
#endif

/* For plexus_info: whether CUDA/NCCL were built, and whether a device is
 * usable now (1) or not (0), with one line of detail in buf. */
int plx_dev_probe(char *buf, size_t len);

/* ---- the device-collective backend (transports/nccl/) -------------------
 * Like transport.h for the point-to-point transports: the core talks to
 * NCCL only through this table, and the backend never calls the selector.
 * Handles are opaque (ncclComm_t, cudaStream_t) so that the core needs no
 * NCCL header.  Every call is made with the communicator's CUDA device
 * current.  A call that returns with *pending = 1 was accepted by a
 * nonblocking NCCL communicator and is still being enqueued: the caller
 * polls poll() until it answers 1 before touching the stream or the
 * communicator again. */
typedef struct plx_devcoll_ops {
    const char *name;                          /* "nccl" */
    size_t id_bytes;                           /* bytes of the unique id (<= 128) */
    /* Can this backend run coll with dt and op natively (or composed)? */
    int (*supports)(plx_coll_t coll, plx_dtype_t dt, plx_op_t op);
    /* The unique id that rank 0 of a communicator hands to the others. */
    plx_status_t (*get_id)(void *id);
    /* Start making the communicator of `nranks` (nonblocking); *comm is
     * set even when the start fails (then abort() it). */
    plx_status_t (*init_start)(void **comm, int nranks, const void *id, int rank);
    /* 1 when the last nonblocking call on comm settled (*st its result,
     * the backend's message logged on error); 0 while in progress. */
    int (*poll)(void *comm, plx_status_t *st);
    /* Enqueue collective a of rank `rank` of `size` on stream.  *scratch
     * (in: NULL) may receive device memory that post() releases. */
    plx_status_t (*launch)(void *comm, const coll_args_t *a, int rank, int size, void *stream,
                           void **scratch, int *pending);
    /* After launch settled: the steps that must follow the collective on
     * the stream (in-place fix-ups, releasing scratch). */
    plx_status_t (*post)(const coll_args_t *a, int rank, int size, void *stream, void *scratch);
    /* PLX_SUCCESS, or the asynchronous error of comm (logged) */
    plx_status_t (*async_error)(void *comm);
    /* Abort (kills kernels in flight; local) or finalize+destroy within
     * timeout_s (falls back to abort). */
    void (*abort)(void *comm);
    void (*destroy)(void *comm, double timeout_s);
    /* "NCCL 2.28.9" */
    const char *(*version)(void);
} plx_devcoll_ops_t;

#if PLX_HAVE_NCCL
extern const plx_devcoll_ops_t plx_devcoll_nccl_ops;
#endif

#endif /* PLX_DEVICE_H */
