/*
 * lib/plx_internal.h — the core's private types: the context, the
 * communicator, message tags, point-to-point dispatch to transports, and
 * the bounded spin-then-yield-then-sleep wait used by every wait loop.
 *
 * Nothing here is installed; applications see only include/plexus.h.
 */
#ifndef PLX_INTERNAL_H
#define PLX_INTERNAL_H

/* plx_config.h (PLX_HAVE_UCX/CUDA/NCCL) is force-included by the build. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plexus.h"
#include "core/log.h"
#include "transport.h"

/* plx_dtype_size without a call (an 8-byte collective needs it several
 * times): log2 of each size, a nibble per datatype; 0 for an unknown one.
 * lib/api/dtype.c's plx_dtype_size is this. */
#define PLX_DTYPE_LOG2_SIZES 0x3211332200ull
static inline size_t plx_dtype_size_fast(plx_dtype_t dt)
{
    return (unsigned)dt < PLX_DTYPE_COUNT ? (size_t)1 << ((PLX_DTYPE_LOG2_SIZES >> (4 * (unsigned)dt)) & 15)
                                          : 0;
}

/* NCCLCHECK-style propagation of a status. */
#define PLX_CHECK(call)                                   \
    do {                                                  \
        plx_status_t plx_check_s_ = (call);               \
        if (plx_check_s_ != PLX_SUCCESS) return plx_check_s_; \
    } while (0)

#define PLX_CTX_MAGIC   0x504c5843u   /* "PLXC" */
#define PLX_COMM_MAGIC  0x504c584du   /* "PLXM" */
#define PLX_DEAD_MAGIC  0xdeadc0deu

#define PLX_MAX_TRANSPORTS 4

/* Communicator ids are 0..PLX_COMM_ID_LIMIT-1 (a rank belongs to at most
 * that many comms at once, world included). */
#define PLX_COMM_ID_LIMIT 4096

/* Settings read from PLX_* at plx_init (see lib/core/config.c for the table). */
typedef struct plx_config {
    double timeout_s;          /* PLX_TIMEOUT */
    int log_level;             /* PLX_LOG */
    char tune[1024];           /* PLX_TUNE (parsed by select.c) */
    int progress_thread;       /* PLX_PROGRESS=thread */
    char transports[64];       /* PLX_TRANSPORTS ("" = all built) */
    size_t direct_piece;       /* PLX_DIRECT_PIECE (0 = the built-in default) */
    int direct_thp;            /* PLX_DIRECT_THP */
} plx_config_t;

struct plx_select;             /* lib/coll/select.h */
struct plx_oob_ops;            /* lib/bootstrap/oob.h */

struct plx_context {
    uint32_t magic;
    /* Serialises everything below between application threads and the
     * progress thread: the engine's lists, the transports, the caches and
     * the communicators' sequence numbers.  Held only while work is done,
     * never while a wait backs off (lib/engine/request.c). */
    pthread_mutex_t lock;
    int rank, size;            /* world */
    const struct plx_oob_ops *oob;   /* how the ranks found each other (lib/bootstrap/oob.h); NULL: alone */
    void *oob_state;
    char job_id[32];
    int nnodes;
    int *node_of;              /* node index of each world rank */
    plx_config_t cfg;
    struct plx_select *select;
    int direct_stage_busy;     /* this rank's direct staging area holds a collective's input
                                * (lib/coll/node_direct.c, "Staged input") */

    int ntl;
    struct {
        const plx_tl_ops_t *ops;
        void *state;
        uint64_t sends, bytes;   /* messages and bytes sent through it (logged at finalize) */
    } tl[PLX_MAX_TRANSPORTS];
    uint8_t *peer_tl;          /* index into tl[] for each world rank */

    struct plx_comm *world;
    struct plx_comm *comms;    /* live comms made by split/dup (lib/api/comm.c) */
    /* Communicator ids in use by this rank's comms (bit i: id i); a freed
     * comm's id is cleared, and a new comm takes the lowest id clear at
     * every member, so ids are reused yet always agreed (lib/api/comm.c). */
    uint64_t comm_ids_used[PLX_COMM_ID_LIMIT / 64];
    /* Highest node-local slot sequence a freed comm of this rank wrote:
     * a comm that reuses a slot channel numbers its collectives above it. */
    uint64_t slots_seq_hwm;
    /* Freed comm objects, oldest first, kept (with a dead magic) so a stale
     * handle is detected; reused only when PLX_COMM_QUARANTINE wait. */
    struct plx_comm *dead_head, *dead_tail;
    unsigned ndead;

    /* Large schedule scratch kept for reuse (lib/engine/sched.c): malloc hands
     * big blocks out as fresh mmaps, and faulting them in on every call
     * cost reduce 4x its bandwidth.  Released at finalize. */
    struct { void *blk; size_t cap; } scratch[4];
    /* One finished schedule object kept for the next collective: its
     * ~4 KiB malloc/free was the largest fixed cost of a small call. */
    void *spare_sched;

    /* The progress engine (lib/engine/request.c): requests in flight, in start
     * order, and finished request objects kept for reuse. */
    struct plx_request *active_head, *active_tail;
    struct plx_request *free_reqs;
    /* Persistent requests (lib/engine/persist.c), active or not, so that
     * finalize frees the ones the application did not. */
    struct plx_persist *persist_head;
    double next_deadline_check;   /* when waits and tests next look at deadlines and dead peers */

    /* PLX_PROGRESS=thread (lib/engine/progress_thread.c): the background thread
     * and how it is told that work arrived or that it must stop. */
    struct {
        int running, stop, sleeping;
        int want;                 /* application threads waiting for ctx->lock (atomic) */
        int driving;              /* application threads inside a wait, driving it themselves
                                   * (under the lock; the thread keeps away meanwhile) */
        unsigned posts;           /* requests activated so far (written under the lock, read without) */
        int one_core;             /* the thread and the application thread that started it
                                   * may run on one CPU only (plexusrun binds ranks): no spins */
        pthread_t tid;
        pthread_cond_t wake;
    } pt;

    /* Worker threads of the task-graph executor (lib/graph/pool.c), made
     * by the first compiled graph with compute nodes. */
    struct gpool *graph_pool;
    /* The pool's count of compute chains running on its workers now
     * (atomic; NULL without a pool; set with graph_pool): while any runs, a
     * direct collective keeps each system call to a short piece, so a
     * compute thread whose sleep ends gets its core back soon
     * (lib/coll/node_direct.c, "Short steps beside compute"). */
    const int *compute_beside;

    /* GPU buffers (lib/device/device.c): dev_on is set once at init when a CUDA
     * device is usable; while it is 0 the host path makes no CUDA call. */
    int dev_on;
    struct plx_dev_ctx *dev;

    /* Some request ended with a timeout, a dead peer or a mismatch
     * (lib/engine/request.c): plx_finalize then waits for nobody. */
    int failed;
    /* Mismatch notices still being sent to the peers of failed schedules
     * (lib/engine/sched.c); they outlive their schedule. */
    struct sched_notice *notices;
};

/* With a progress thread, a contended lock is taken by polling (see
 * plx_ctx_lock_polling in lib/engine/progress_thread.c): the thread holds it for
 * one progress pass at a time, and sleeping on the mutex would cost a
 * futex wake-up (40-100 us on this VM) each time it changes hands. */
void plx_ctx_lock_polling(struct plx_context *ctx);
static inline void plx_ctx_lock(struct plx_context *ctx)
{
    if (pthread_mutex_trylock(&ctx->lock) == 0) return;
    if (ctx->pt.running) plx_ctx_lock_polling(ctx);
    else pthread_mutex_lock(&ctx->lock);
}
static inline void plx_ctx_unlock(struct plx_context *ctx) { pthread_mutex_unlock(&ctx->lock); }
static inline int plx_ctx_trylock(struct plx_context *ctx) { return pthread_mutex_trylock(&ctx->lock) == 0; }

/* Free every request object of ctx (finalize; in-flight ones are cancelled). */
void plx_requests_release(struct plx_context *ctx);

/* Free the scratch blocks cached in ctx (lib/engine/sched.c). */
void sched_scratch_release(struct plx_context *ctx);
/* Withdraw and free the mismatch notices still in flight (lib/engine/sched.c);
 * before the transports are finalized. */
void sched_notices_release(struct plx_context *ctx);

struct plx_comm {
    uint32_t magic;
    struct plx_context *ctx;
    uint32_t id;               /* agreed by all members: unique among each member's comms */
    int rank, size;
    int *world_rank;           /* comm rank -> world rank */
    uint32_t coll_seq;         /* next collective sequence number */
    /* node-local collectives through shared slots (lib/coll/node_slots.c):
     * 0 = not looked at yet, 1 = usable (slots set), -1 = not for this comm */
    int slots_state;
    struct node_slots *slots;
    /* node-local single-copy collectives (lib/coll/node_direct.c): the same
     * three states as slots_state */
    int direct_state;
    struct node_direct *direct;
    /* the same among this rank's node-mates only: the node-local phases of
     * the hierarchical collectives (lib/coll/hier.c) on a multi-node comm */
    int direct_node_state;
    struct node_direct *direct_node;
    /* cross-path call records (lib/coll/call_record.c): the same three
     * states as slots_state */
    int callrec_state;
    struct call_record *callrec;
    struct hier_map *hier;     /* nodes of its ranks, for lib/coll/hier.c (built at first use) */
    char transports[32];       /* "shm", "ucx", "shm+ucx": who carries its traffic (first use) */
    unsigned tmask;            /* the same as bits: 1 << index in ctx->tl[] */
    struct plx_comm *next, *prev;   /* ctx->comms list (dead ones: next in ctx->dead_head) */
    uint32_t gen;              /* incremented each time the object is reused for a new comm */
    uint64_t slots_seq_base;   /* node-local slot sequences start above this (agreed at creation) */
    /* GPU buffers (lib/device/device.c): plx_mem_type_t set by plx_comm_set_mem_type
     * (0 = detect), and the device state made at the first device collective */
    int mem_type;
    struct plx_dev_comm *dev;
    /* what the last collective call derived from its arguments alone
     * (lib/api/coll.c; algo NULL: none): a loop of the same call skips
     * the selection and the signature */
    struct plx_call_plan {
        const struct coll_algo *algo;
        int coll, dt, op, root;        /* the key, with count */
        size_t count;
        int path;                      /* CALLREC_* (lib/coll/call_record.h) */
        uint64_t sig[2];               /* coll_sig_t (lib/coll/signature.h) */
        uint64_t sig_word;             /* its node-local slot form */
        uint64_t rec;                  /* its call-record hash */
    } plan;
};

/* Release every comm of ctx, live or freed, and all they hold (finalize). */
void plx_comms_release_all(struct plx_context *ctx);
/* Ids agreed among a group's members only (lib/api/comm.c, for
 * plx_comm_create_group): this rank's used ids and slot high-water mark;
 * claim an id (1: it was free here and is now taken), give a claim back;
 * make the comm once every member claimed id (ranks in world numbering). */
void plx_comm_ids_snapshot(struct plx_context *ctx, uint64_t ids[PLX_COMM_ID_LIMIT / 64], uint64_t *hwm);
int plx_comm_id_claim(struct plx_context *ctx, uint32_t id);
void plx_comm_id_unclaim(struct plx_context *ctx, uint32_t id);
plx_status_t plx_comm_install(struct plx_context *ctx, uint32_t id, int n, const int *world_ranks, int rank,
                              uint64_t slots_base, struct plx_comm **newcomm);

/* A communicator handle is usable. */
static inline int plx_comm_ok(const struct plx_comm *c)
{
    return c && c != (const void *)PLX_IN_PLACE && c->magic == PLX_COMM_MAGIC;
}

/* ---- tags --------------------------------------------------------------
 * 64-bit match key: [63..40] communicator id (24 bits), [39] collective
 * flag, [38..8] collective sequence number or user tag (31 bits), [7..0]
 * 0, or an internal kind: 1 a schedule's mismatch notice (lib/engine/sched.c),
 * 2 the id agreement of plx_comm_create_group (lib/api/comm_create.c).
 * A schedule's data messages on a communicator with call records also
 * carry 18 bits of the call's record hash in bits 63..52 and 7..2
 * (data_tag in lib/engine/sched.c). */
static inline uint64_t plx_tag_coll(const struct plx_comm *c, uint32_t seq)
{
    return ((uint64_t)(c->id & 0xffffffu) << 40) | (1ull << 39) |
           ((uint64_t)(seq & 0x7fffffffu) << 8);
}
static inline uint64_t plx_tag_p2p(const struct plx_comm *c, int tag)
{
    return ((uint64_t)(c->id & 0xffffffu) << 40) | ((uint64_t)((uint32_t)tag & 0x7fffffffu) << 8);
}

/* ---- point to point over the transport chosen for each peer -----------
 * peer is a rank of comm; the request belongs to the caller. */
plx_status_t plx_p2p_isend(plx_comm_t comm, int peer, uint64_t tag, const void *buf, size_t len,
                           plx_tl_req_t *req);
plx_status_t plx_p2p_irecv(plx_comm_t comm, int peer, uint64_t tag, void *buf, size_t len,
                           plx_tl_req_t *req);
void plx_p2p_cancel(plx_comm_t comm, int peer, plx_tl_req_t *req);
/* Poll every transport once; returns the number of events. */
int plx_progress(plx_context_t ctx);
/* The transports serving comm's other ranks, e.g. "shm+ucx". */
const char *plx_comm_transports(plx_comm_t comm);
/* PLX_ERR_PEER_FAILED if the world rank's process is known dead. */
plx_status_t plx_peer_status(plx_context_t ctx, int world_rank);

/* ---- time and waiting --------------------------------------------------- */
static inline double plx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Spin briefly, then sched_yield, then sleep: with more ranks than cores a
 * pure spin is ~1000x slower (MACHINE-NOTES), and an idle wait must not burn
 * a core.  Call plx_backoff_idle() after a poll that found nothing, and
 * plx_backoff_reset() after one that did. */
typedef struct plx_backoff {
    unsigned idle_polls;
    int sleeping;
    double idle_since;
    double lone_since;   /* plx_req_idle_step: its yields found the core empty since then (0: not) */
} plx_backoff_t;

void plx_backoff_reset(plx_backoff_t *b);
void plx_backoff_idle(plx_backoff_t *b);

/* One sched_yield, timed.  A yield that comes back within 5 us ran nobody
 * else: this thread spins alone on its core while the ranks it waits for
 * queue on the other core(s), and the kernel does not move one of them
 * here while this core stays busy.  Returns 1 (and clears *lone_since)
 * once such yields have lasted more than lone_s: the caller should then
 * sleep, leaving the core idle, so that the scheduler's idle balancing
 * pulls a waiting rank over.  *lone_since: 0, or when the lone yields began.
 * (plx_graph_run naps after 100 us, the direct waits sleep on a futex
 * after 50 us: perf/RESULTS.md, sessions s12c and s13b.) */
int plx_yield_alone(double *lone_since, double lone_s);

/* ---- internal collectives used by the core itself (comm split/dup) ------ */
plx_status_t plx_coll_allgather_bytes(plx_comm_t comm, const void *mine, void *all, size_t len);

/* Argument-check failure: log one line at warn and return INVALID_ARG. */
plx_status_t plx_bad_arg(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* PLX_INTERNAL_H */
