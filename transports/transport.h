/*
 * transports/transport.h — the interface between the Plexus core and a
 * transport (shm, ucx, nccl).
 *
 * One ops table per transport, in the style of UCX's uct_iface_ops: the
 * core never includes a transport's private header, and a transport never
 * calls into the selector or the collective code.  A transport moves tagged
 * byte messages between world ranks; the core builds everything else
 * (collectives, communicators) on top.
 *
 * Matching rule every transport keeps: a receive posted for (peer, tag)
 * matches the oldest unmatched message from peer with exactly that tag;
 * messages with equal (source, tag) are matched in send order.  Messages
 * that arrive before their receive is posted are kept (unexpected queue),
 * and a send never waits for its receive to be posted in order to be
 * accepted: isend only queues.  Nothing blocks: every op returns at once and
 * completion is seen by polling req->done after progress().
 */
#ifndef PLX_TRANSPORT_H
#define PLX_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "plexus.h"

/* A request: owned by the caller (usually embedded in a schedule step),
 * filled by the transport.  It must stay at the same address until done is
 * set or cancel() returned. */
typedef struct plx_tl_req {
    volatile int done;        /* set to 1 by the transport on completion (success or error) */
    plx_status_t status;      /* valid once done */
    size_t bytes;             /* receives: bytes that arrived (<= posted length unless TRUNCATE) */
    /* private to the transport that accepted the request */
    struct plx_tl_req *tl_next, *tl_prev;
    uint64_t tl_u64[4];
    void *tl_ptr[4];
} plx_tl_req_t;

/* Intrusive doubly linked FIFO: list has head and tail, elements the named
 * next / prev fields.  Macros because the element types differ per list. */
#define PLX_TL_LIST_PUSH(list, e, next, prev) do {                              \
        (e)->next = NULL;                                                       \
        (e)->prev = (list)->tail;                                               \
        if ((list)->tail) (list)->tail->next = (e); else (list)->head = (e);    \
        (list)->tail = (e);                                                     \
    } while (0)

#define PLX_TL_LIST_REMOVE(list, e, next, prev) do {                            \
        if ((e)->prev) (e)->prev->next = (e)->next; else (list)->head = (e)->next; \
        if ((e)->next) (e)->next->prev = (e)->prev; else (list)->tail = (e)->prev; \
        (e)->next = (e)->prev = NULL;                                           \
    } while (0)

/* An intrusive FIFO of requests through tl_next / tl_prev (a transport's
 * posted receives, sends waiting for room, ...). */
typedef struct plx_tl_rq {
    plx_tl_req_t *head, *tail;
} plx_tl_rq_t;

static inline void plx_tl_rq_push(plx_tl_rq_t *q, plx_tl_req_t *r)
{
    PLX_TL_LIST_PUSH(q, r, tl_next, tl_prev);
}

static inline void plx_tl_rq_remove(plx_tl_rq_t *q, plx_tl_req_t *r)
{
    PLX_TL_LIST_REMOVE(q, r, tl_next, tl_prev);
}

/* What the core gives a transport at init: who we are, where the peers
 * live, and the bootstrap's collectives for exchanging addresses.  All
 * pointers stay valid until finalize. */
typedef struct plx_tl_env {
    int rank, size;                /* world rank and size */
    const int *node_of;            /* node index of each world rank (0..nnodes-1) */
    int nnodes;
    const char *job_id;            /* short printable id, unique per job: use in segment names */
    double timeout_s;              /* PLX_TIMEOUT: bound for any wait inside init */
    int log_level;                 /* PLX_LOG as a number (see plx_internal.h) */
    void *boot;                    /* opaque bootstrap handle for the two calls below */
    /* Every rank contributes len bytes; all receives size*len bytes, rank order. */
    plx_status_t (*allgather)(void *boot, const void *mine, void *all, size_t len);
    plx_status_t (*barrier)(void *boot);
} plx_tl_env_t;

typedef struct plx_tl_ops {
    const char *name;

    /* Bring the transport up; collective over all world ranks (it may use
     * env->allgather/barrier).  *tl receives the transport's state. */
    plx_status_t (*init)(const plx_tl_env_t *env, void **tl);

    /* Can this transport reach world rank peer (self included)? */
    int (*reachable)(void *tl, int peer);

    /* Post a send/receive of len bytes to/from world rank peer.  Returns
     * PLX_SUCCESS when accepted (completion later through req->done), or an
     * error and then the request was not accepted. */
    plx_status_t (*isend)(void *tl, int peer, uint64_t tag, const void *buf, size_t len,
                          plx_tl_req_t *req);
    plx_status_t (*irecv)(void *tl, int peer, uint64_t tag, void *buf, size_t len,
                          plx_tl_req_t *req);

    /* Advance all outstanding requests; returns how many events happened
     * (0 = nothing moved, the core may back off). */
    int (*progress)(void *tl);

    /* Withdraw a request that has not completed (after a timeout or an
     * error elsewhere).  After it returns the transport never touches req
     * or its buffer again.  A send already partly read by the peer may be
     * lost to the peer. */
    void (*cancel)(void *tl, plx_tl_req_t *req);

    /* PLX_SUCCESS if peer looks alive, PLX_ERR_PEER_FAILED if it is known
     * dead (process gone).  Cheap enough to call a few times a second. */
    plx_status_t (*peer_status)(void *tl, int peer);

    /* Optional (NULL when the transport has none): memory every rank of
     * this node can read and write, for the core's node-local collectives
     * (lib/coll/node_slots.c).  Window `channel` of world rank `peer`;
     * *bytes gets its size.  Zeroed at start, owned by the core's protocol
     * from then on.  NULL if peer is not on this node or channel is out of
     * range. */
    void *(*coll_window)(void *tl, int channel, int peer, size_t *bytes);
    /* Optional: world rank peer's direct staging area (same node), *bytes
     * its size: memory every local rank maps, written only by its owner
     * (lib/coll/node_direct.c, "Staged input").  NULL where there is none
     * (size 0, another node, or for peer = this rank: not reserved, so
     * this rank must not stage). */
    void *(*coll_stage)(void *tl, int peer, size_t *bytes);

    /* Optional (NULL when the transport has none): copy len bytes at
     * address addr of world rank peer's memory into dst with one copy
     * (process_vm_readv), for the core's single-copy node-local
     * collectives (lib/coll/node_direct.c).  len 0 only asks whether peer
     * can be read at all.  PLX_SUCCESS; PLX_ERR_NOT_SUPPORTED where reading
     * peer is refused (PLX_SHM_CMA=0, other uid, ptrace scope, another
     * node); PLX_ERR_PEER_FAILED if its process is gone; PLX_ERR_TRANSPORT
     * for anything else (a bad address). */
    plx_status_t (*peer_read)(void *tl, int peer, void *dst, uint64_t addr, size_t len);
    /* Optional, the other direction (process_vm_writev): len bytes at src
     * to address addr of peer's memory; same answers as peer_read. */
    plx_status_t (*peer_write)(void *tl, int peer, uint64_t addr, const void *src, size_t len);
    /* Optional (NULL: the core answers PLX_ERR_NOT_SUPPORTED to probes of
     * the peers this transport serves): the oldest message from world rank
     * peer that arrived and is not yet received (unexpected) and whose tag
     * equals `tag` in the bits set in `mask`, without taking it.  Returns
     * 1 with its full tag in *tag_out and its length in *bytes, else 0.
     * (plx_iprobe / plx_probe; the caller polls progress first.) */
    int (*probe)(void *tl, int peer, uint64_t tag, uint64_t mask, uint64_t *tag_out,
                 size_t *bytes);

    /* Release everything; collective-free (must not wait for peers). */
    void (*finalize)(void *tl);
} plx_tl_ops_t;

/* The transports built into this library (NULL-free list in the core). */
extern const plx_tl_ops_t plx_tl_shm_ops;
#if PLX_HAVE_UCX
extern const plx_tl_ops_t plx_tl_ucx_ops;
#endif

#endif /* PLX_TRANSPORT_H */
