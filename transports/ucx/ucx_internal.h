/*
 * transports/ucx/ucx_internal.h — private state of the UCX transport (never
 * included outside transports/ucx/).
 *
 * Why active messages and not UCP tag matching
 * ---------------------------------------------
 * The Plexus 64-bit tag already uses every bit but the low 8 (comm id 24
 * bits, collective flag, 31-bit sequence or user tag, see lib/plx_internal.h),
 * so the source rank cannot be folded into a UCP tag, and a UCP receive
 * posted with a wildcard on the source would break the per-(source, tag)
 * FIFO rule.  UCP tag matching also cannot withdraw a send whose receive was
 * never posted: ucp_request_cancel() only works on receives, so a cancelled
 * rendezvous send would keep its user buffer exposed to the peer forever.
 * So this transport uses UCP active messages (ucp_am_send_nbx, one handler
 * registered with ucp_worker_set_am_recv_handler, ucp_am_recv_data_nbx for
 * UCX-rendezvous payloads) — all present in UCX 1.13 (Debian 12) — and does
 * the matching itself, exactly like transports/shm:
 *
 *   - every EAGER or RTS message carries (source world rank, per-pair
 *     sequence number, tag) in its AM header.  The receiver handles them in
 *     sequence order (an early arrival waits in a small per-peer list until
 *     the gap fills), so FIFO per (source, tag) holds whatever order UCX
 *     delivers in (several lanes, pending queues, retransmits);
 *   - a receive takes the oldest unexpected message with its tag, else waits
 *     in the per-source posted FIFO; an arriving message takes the oldest
 *     posted receive with its tag, else becomes unexpected.
 *
 * Protocols (len = message bytes):
 *   - eager (len <= UCX_EAGER_MAX): one AM {hdr, payload}.  isend tries
 *     ucp_am_send_nbx with UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL on the user buffer
 *     (the AM short path: done at once); if UCX cannot complete at once, the
 *     payload is copied into a transport-owned bounce buffer and sent from
 *     there, and the request completes when UCX reports the send complete.
 *     Either way the user buffer is never referenced after isend returns,
 *     so cancel of an eager send only detaches the request.
 *   - large: RTS {len, id} (header only, eager).  When a receive matches it,
 *     the receiver answers CTS {id}; only then does the sender post the DATA
 *     AM (its user buffer, no copy; UCX picks its own eager or rendezvous
 *     protocol for it: zero-copy rendezvous for several MiB).  DATA that
 *     arrives as a UCX rendezvous descriptor is received with
 *     ucp_am_recv_data_nbx straight into the user buffer (into a temporary
 *     buffer when the receive is shorter: truncation keeps the prefix).
 *     A send cancelled before its CTS is forgotten (a later CTS is answered
 *     with ABORT, the receiver completes with PLX_ERR_TRANSPORT); large
 *     messages never occupy memory at the receiver before their receive is
 *     posted.
 *   - self: a message to oneself never touches UCX: it is matched (or kept
 *     as an unexpected copy) inside isend.
 *
 * Endpoints are created lazily (first send to a peer, or the first
 * peer_status() asked about it) with UCP_ERR_HANDLING_MODE_PEER, so a peer
 * failure completes UCX requests with an error and calls our error handler:
 * the peer is then marked dead, its endpoint force-closed and every pending
 * request with it completed with PLX_ERR_PEER_FAILED.  Peers on the same
 * kernel and pid namespace are also watched through a pidfd (immediate,
 * independent of UCX keepalive).
 *
 * Threads: one UCP context and one worker per Plexus context.  The core
 * serialises every call into a transport under its context lock, but the
 * calls may come from different threads (application threads, the
 * PLX_PROGRESS=thread progress thread), so the worker is created with
 * UCS_THREAD_MODE_SERIALIZED ("several threads, one at a time"), not SINGLE
 * ("only the thread that created it").  Nothing here starts a thread and
 * nothing takes a lock.
 */
#ifndef PLX_UCX_INTERNAL_H
#define PLX_UCX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ucp/api/ucp.h>

#include "tl_common.h"

#define UCX_AM_ID        0x5058u   /* our one AM handler id ("PX") */
#define UCX_EAGER_MAX    8192u     /* largest message sent as one eager AM */
#define UCX_BOUNCE_POOL  64        /* bounce buffers of UCX_EAGER_MAX kept for reuse */
#define UCX_CANCEL_WAIT_S 5.0      /* cancel of a transfer UCX is moving: wait at most this long */
#define UCX_CLOSE_WAIT_S  2.0      /* finalize: flush-close endpoints at most this long */

/* AM types (hdr.type) */
enum {
    UCX_T_EAGER = 1,   /* payload = message; sequenced */
    UCX_T_RTS   = 2,   /* large message announced: ucx_rts_t; sequenced */
    UCX_T_CTS   = 3,   /* receiver -> sender: send DATA of transfer id (hdr.tag = id) */
    UCX_T_DATA  = 4,   /* sender -> receiver: payload of transfer id (hdr.tag = id) */
    UCX_T_ABORT = 5,   /* sender -> receiver: transfer id was cancelled (hdr.tag = id) */
};

/* AM header (memcpy'd in and out: UCX gives no alignment guarantee). */
typedef struct ucx_hdr {
    uint32_t type;
    int32_t src;       /* sender's world rank */
    uint32_t seq;      /* EAGER/RTS: message number on the ordered pair src -> dst */
    uint32_t pad;
    uint64_t tag;      /* EAGER/RTS: the Plexus tag; CTS/DATA/ABORT: transfer id */
} ucx_hdr_t;

typedef struct ucx_rts {
    ucx_hdr_t h;
    uint64_t len;      /* full message length */
    uint64_t id;       /* sender's transfer id, echoed in CTS/DATA/ABORT */
} ucx_rts_t;

/* Intrusive FIFO of Plexus requests (transport.h). */
typedef plx_tl_rq_t ucx_rq_t;

/* A message that arrived before its receive (or before its turn in the
 * sequence): eager payload copied, or an RTS descriptor. */
typedef struct ucx_msg {
    struct ucx_msg *next, *prev;
    uint32_t type;     /* UCX_T_EAGER or UCX_T_RTS */
    uint32_t seq;
    uint64_t tag;
    uint64_t len;      /* message length */
    uint64_t id;       /* RTS */
    unsigned char data[];   /* eager payload */
} ucx_msg_t;

typedef struct ucx_mq {
    ucx_msg_t *head, *tail;
} ucx_mq_t;

/* An operation UCX or a peer still holds: a bounced eager send, a large
 * send (waiting for CTS, or DATA in flight), a large receive (waiting for
 * DATA, or DATA landing).  req is NULL once cancelled (orphan). */
enum { UCX_OP_BOUNCE = 1, UCX_OP_LSEND, UCX_OP_LRECV, UCX_OP_CTRL };
/* Work a UCX callback found but must not do inside ucp_worker_progress()
 * (create endpoints, send, receive): run right after it returns. */
enum { UCX_ACT_NONE = 0, UCX_ACT_CTS, UCX_ACT_DATA, UCX_ACT_RECV, UCX_ACT_ABORT };
enum {
    UCX_OS_WAIT = 1,   /* LSEND: waiting for CTS; LRECV: waiting for DATA */
    UCX_OS_UCX,        /* a UCX request is moving the bytes (ucx_req) */
};

struct ucx_oplist;
typedef struct ucx_op {
    struct ucx_op *next, *prev;
    struct ucx_oplist *list;
    struct ucx_tl *tl;      /* for UCX callbacks */
    int kind, state;
    int peer;
    plx_tl_req_t *req;
    uint64_t id;
    uint64_t len;           /* message length */
    unsigned char *buf;     /* user buffer (LSEND: source, LRECV: destination) */
    uint64_t buflen;        /* LRECV: receive buffer length */
    unsigned char *tmp;     /* LRECV truncation: whole-message buffer */
    void *ucx_req;          /* UCX request in flight, if any */
    void *desc;             /* LRECV: UCX rendezvous descriptor waiting to be received */
    int *waiter;            /* set to 1 when the UCX request ends (cancel waits on it) */
    int act;                /* UCX_ACT_*: work left for after ucp_worker_progress() */
    int in_act;             /* linked in the tl's action list (anext) */
    int zombie;             /* released while in the action list: freed when popped */
    struct ucx_op *anext;
    size_t cap;             /* capacity of data[] */
    unsigned char data[];   /* BOUNCE: the header and the payload */
} ucx_op_t;

typedef struct ucx_oplist {
    ucx_op_t *head, *tail;
    size_t n;
} ucx_oplist_t;

struct ucx_tl;

typedef struct ucx_peer {
    struct ucx_tl *tl;
    int world;
    ucp_ep_h ep;              /* NULL until first needed */
    int dead;                 /* known failed: pending requests have been failed */
    int failing;              /* error callback fired, handled after progress */
    int unreachable;          /* ucp_ep_create failed (logged once) */
    int no_err_mode;          /* connected without UCP_ERR_HANDLING_MODE_PEER (see get_ep) */
    ucs_status_t fail_status;
    int pidfd;                /* same kernel and pid namespace: process watch; else -1 */
    pid_t pid;
    uint32_t send_seq;        /* next sequence number we send it */
    uint32_t recv_seq;        /* next sequence number we expect from it */
    ucx_mq_t early;           /* arrived ahead of recv_seq */
    ucx_mq_t unexp;           /* unexpected, in sequence order */
    ucx_rq_t posted;          /* posted receives, FIFO */
    ucx_oplist_t lsend;       /* large sends (WAIT for CTS, or DATA in flight) */
    ucx_oplist_t lrecv;       /* large receives (WAIT for DATA, or DATA landing) */
} ucx_peer_t;

typedef struct ucx_tl {
    int rank, size;
    double timeout_s;
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucx_peer_t *peers;        /* [size] */
    unsigned char *addrs;     /* [size][addr_max]: every worker address */
    uint32_t *addr_len;       /* [size] */
    size_t addr_max;
    uint64_t next_id;         /* transfer ids of large sends */
    int events;               /* callbacks that did something, during one progress */
    int nfailing;             /* peers whose error callback fired */
    ucx_oplist_t bounce;      /* bounced eager / control sends in flight */
    ucx_op_t *act_head, *act_tail;   /* UCX_ACT_* work for after progress */
    ucx_op_t *bounce_free;    /* pool of UCX_EAGER_MAX bounce ops */
    int nbounce_free;
    void **closing;           /* force-close requests still running */
    int nclosing, capclosing;
    int in_progress;          /* inside ucp_worker_progress (callbacks running) */
    int finalizing;           /* peers going away now is expected: no warnings */
    int warned_err_mode;      /* the no-failure-detection fallback was logged */
    uint64_t n_early;         /* messages UCX delivered ahead of their sequence number */
} ucx_tl_t;

/* request fields: RQ_TAG, RQ_LEN, RQ_STATE, RQ_PEER and RQ_BUF are
 * tl_common.h's; this one is ucx's own */
#define RQ_OP(r)     ((r)->tl_ptr[1])

enum {
    UCX_RS_NONE = 0,
    UCX_RS_POSTED,     /* in peer->posted */
    UCX_RS_OP,         /* RQ_OP holds the operation (bounce, lsend or lrecv) */
    UCX_RS_DONE,
};

/* tests only (ucx.c) */
void plx_ucx_test_deliver(void *tl, const void *hdr, size_t hlen, void *data, size_t len);

#endif /* PLX_UCX_INTERNAL_H */
