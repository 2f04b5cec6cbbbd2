/*
 * transports/shm/shm_internal.h — private state of the shared-memory
 * transport (never included outside transports/shm/).
 *
 * One shared segment per node holds, for every ordered pair (s -> r) of
 * local ranks:
 *   - an SPSC eager ring (fixed 64-byte header cells + a byte ring for
 *     payloads that do not fit inline), see shm_ring.h;
 *   - a staging area (two large chunks, double buffered) used for large
 *     messages only when process_vm_readv (CMA) is refused, see shm_large.c;
 * and for every local rank SHM_COLL_CHANNELS collective windows: raw
 * zeroed memory handed to the core's node-local collectives
 * (lib/coll/node_slots.c) through the coll_window op.
 * Everything else (queues, unexpected messages, large-transfer state) lives
 * in the process-private shm_tl_t returned by init: no global mutable state.
 */
#ifndef PLX_SHM_INTERNAL_H
#define PLX_SHM_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tl_common.h"

#define SHM_CACHELINE     64
#define SHM_CTL_ALIGN     128   /* two lines: keeps the adjacent-line prefetcher from false sharing */
#define SHM_PAGE          4096

#define SHM_SEG_MAGIC     0x504c58534d454731ull   /* "PLXSMEG1" */
#define SHM_SEG_VERSION   3u
#define SHM_NAME_MAX      64
#define SHM_COLL_CHANNELS 32    /* collective windows per local rank: 0..15 shm_slots (communicator
                                   id), 16..31 the single-copy collectives (16 + communicator id) */
#define SHM_COLL_DATA_CHANNELS 16   /* channels 0..15 carry data: coll_win bytes each; 16..31 hold
                                       flags and addresses only: SHM_COLL_CTL_WIN bytes each */
#define SHM_COLL_CTL_WIN  4096

/* Message types carried in ring cells. */
enum {
    SHM_T_EAGER = 1,   /* payload inline or in the data ring */
    SHM_T_RTS   = 2,   /* large message announced: shm_rts_t inline */
    SHM_T_CTS   = 3,   /* receiver -> sender: stream message id into staging (shm_ctl_t) */
    SHM_T_FIN   = 4,   /* receiver -> sender: done with message id (shm_ctl_t) */
};

/* Inline payload bytes in a cell: header is seq(8) tag(8) len(4) type(4). */
#define SHM_INLINE 40

typedef struct shm_cell {
    _Atomic uint64_t seq;   /* message number + 1 once the cell is valid (release store, written last) */
    uint64_t tag;
    uint32_t len;           /* payload bytes (eager) or sizeof the control struct */
    uint32_t type;
    unsigned char inl[SHM_INLINE];
} shm_cell_t;
_Static_assert(sizeof(shm_cell_t) == SHM_CACHELINE, "cell must be one cache line");

/* Consumer-owned line of a ring: what it has freed.  The producer reads it
 * only when its cached copy says the ring is full. */
typedef struct shm_ring_ctl {
    _Atomic uint64_t cell_tail;   /* cells consumed */
    _Atomic uint64_t data_tail;   /* byte position consumed in the data ring */
    char pad[SHM_CTL_ALIGN - 16];
} shm_ring_ctl_t;

typedef struct shm_rts {
    uint64_t addr;   /* sender's virtual address of the payload */
    uint64_t len;    /* full message length */
    uint64_t id;     /* sender-chosen message id, echoed in CTS/FIN */
} shm_rts_t;

typedef struct shm_ctl {
    uint64_t id;
    uint64_t val;    /* CTS: bytes wanted; FIN: plx_status_t for the sender */
} shm_ctl_t;

/* Staging area of one ordered pair: two chunk slots; the sender writes slot
 * (n % 2) for its n-th chunk, the receiver acks it. */
#define SHM_STAGE_ABORT 1u   /* sender cancelled: message ends here, no data */
typedef struct shm_stage_slot {
    _Atomic uint64_t seq;    /* chunk number + 1 when full (sender, release) */
    uint64_t len;
    uint32_t flags;
    char pad[SHM_CTL_ALIGN - 20];
} shm_stage_slot_t;
typedef struct shm_stage_ack {
    _Atomic uint64_t ack;    /* chunk number + 1 once consumed (receiver, release) */
    char pad[SHM_CTL_ALIGN - 8];
} shm_stage_ack_t;
typedef struct shm_stage_ctl {
    shm_stage_slot_t slot[2];
    shm_stage_ack_t  ack[2];
} shm_stage_ctl_t;
#define SHM_STAGE_HDR SHM_PAGE   /* chunks start one page after the control lines */

/* Segment header, written by the node leader before anyone else maps it;
 * followers take the layout from here so a differing env cannot break it. */
typedef struct shm_seg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nlocal;
    uint32_t ncells;        /* cells per ring, power of two */
    uint32_t eager_max;     /* largest eager payload */
    uint64_t ring_bytes;    /* data ring bytes per pair, power of two */
    uint64_t stage_bytes;   /* one staging chunk */
    uint64_t ring_off, ring_stride;
    uint64_t stage_off, stage_stride;
    uint64_t coll_off, coll_win;   /* collective windows: SHM_COLL_CHANNELS per local rank */
    uint64_t dstage_off, dstage_bytes;   /* direct staging areas: one per local rank */
    uint64_t total;
} shm_seg_hdr_t;

/* Layout parameters decided by the leader. */
typedef struct shm_layout {
    uint32_t nlocal, ncells, eager_max;
    int coll_big;                  /* coll_win from the oversubscribed node's default (shm_seg.c) */
    uint64_t ring_bytes, stage_bytes;
    uint64_t ring_off, ring_stride, stage_off, stage_stride, total;
    uint64_t coll_off, coll_win;
    uint64_t dstage_off, dstage_bytes;
} shm_layout_t;

/* ---- process-private state ------------------------------------------- */

/* Producer view of one outgoing ring. */
typedef struct shm_out {
    shm_cell_t *cells;
    unsigned char *data;
    shm_ring_ctl_t *ctl;
    uint64_t head, dhead;            /* next cell / data position to write */
    uint64_t ctail, dtail;           /* cached consumer tails */
} shm_out_t;

/* Consumer view of one incoming ring. */
typedef struct shm_in {
    shm_cell_t *cells;
    unsigned char *data;
    shm_ring_ctl_t *ctl;
    uint64_t tail, dtail;
} shm_in_t;

/* Intrusive FIFO of requests (transport.h). */
typedef plx_tl_rq_t shm_rq_t;

/* A large transfer, on either side.  Pooled (free list) so the steady state
 * does not malloc. */
struct shm_xlist;
typedef struct shm_xfer {
    struct shm_xfer *next, *prev;
    struct shm_xlist *list;   /* list it sits in, NULL if none */
    plx_tl_req_t *req;        /* NULL once cancelled (orphan: drain / abort) */
    int peer;                 /* local index of the other side */
    int cts_sent;             /* receiver, staging: CTS queued */
    uint64_t id;
    uint64_t tag;
    uint64_t raddr;           /* sender's address (receiver side) */
    uint64_t len;             /* full message length */
    uint64_t want;            /* bytes the receiver takes: min(len, buffer) */
    uint64_t off;             /* bytes moved so far */
    unsigned char *buf;       /* user buffer (send: source, recv: destination) */
    uint64_t buflen;          /* receiver's buffer length */
    double fail_since;        /* receiver, CMA: when the read first failed (0: it did not) */
} shm_xfer_t;

typedef struct shm_xlist {
    shm_xfer_t *head, *tail;
    size_t n;
    size_t *total;            /* optional tl-wide counter kept in step (staging lists) */
} shm_xlist_t;

/* An unexpected message: eager payload copied out of the ring, or just the
 * RTS descriptor of a large message. */
typedef struct shm_unexp {
    struct shm_unexp *next, *prev;
    uint64_t tag;
    uint64_t len;
    uint32_t type;            /* SHM_T_EAGER or SHM_T_RTS */
    shm_rts_t rts;
    unsigned char data[];     /* eager payload */
} shm_unexp_t;

typedef struct shm_uq {
    shm_unexp_t *head, *tail;
} shm_uq_t;

/* A control message waiting for ring space. */
typedef struct shm_ctrl {
    struct shm_ctrl *next;
    uint32_t type;
    shm_ctl_t c;
} shm_ctrl_t;

/* Everything this rank knows about one local peer (self included). */
typedef struct shm_peer {
    int world;
    pid_t pid;
    int pidfd;                /* -1 if pidfd_open is unavailable */
    int cma_ok;               /* receiver side: may pull from this peer directly */
    shm_out_t out;            /* me -> peer */
    shm_in_t in;              /* peer -> me */
    shm_stage_ctl_t *stage_out_ctl; unsigned char *stage_out_buf;   /* me -> peer */
    shm_stage_ctl_t *stage_in_ctl;  unsigned char *stage_in_buf;    /* peer -> me */
    uint64_t stage_wcount;    /* chunks written into me -> peer */
    uint64_t stage_rcount;    /* chunks read from peer -> me */

    shm_rq_t posted;          /* receives posted for this source, FIFO */
    shm_uq_t unexp;           /* unexpected messages from this source, FIFO */
    shm_rq_t sendq;           /* sends waiting for ring space, FIFO */
    shm_ctrl_t *ctrl_head, *ctrl_tail;   /* control messages waiting for ring space */

    shm_xlist_t large_out;    /* sender: RTS sent, waiting for CTS or FIN */
    shm_xlist_t stage_out;    /* sender: streaming into staging, CTS order */
    shm_xlist_t stage_in;     /* receiver: staged receives, head is active */
} shm_peer_t;

enum { SHM_CMA_AUTO = -1, SHM_CMA_OFF = 0, SHM_CMA_ON = 1 };

typedef struct shm_tl {
    int rank, size;
    const int *node_of;
    int nlocal, me;           /* number of local ranks, my local index */
    int *local_of;            /* world rank -> local index or -1 */
    shm_peer_t *peers;        /* [nlocal] */

    void *seg;                /* mapping */
    size_t seg_len;
    shm_layout_t lay;

    int cma_mode;             /* PLX_SHM_CMA */
    int dstage_ok;            /* my direct staging area is reserved (coll_stage) */
    pid_t pid;
    uint64_t next_id;         /* large message ids */

    /* work counters, so progress() skips whole phases when idle */
    size_t n_sendq, n_ctrlq, n_stage;
    shm_xlist_t pulls;        /* receiver: CMA pulls in progress */

    shm_xfer_t *xfer_free;    /* pools */
    shm_ctrl_t *ctrl_free;

    volatile uint64_t probe_word;   /* read by peers' CMA probe at init */
    double timeout_s;         /* PLX_TIMEOUT (0: none): bounds the wait for a dying peer's exit */
} shm_tl_t;

/* request fields: RQ_TAG, RQ_LEN, RQ_STATE, RQ_PEER (here the local index) and
 * RQ_BUF are tl_common.h's; this one is shm's own */
#define RQ_XFER(r)   ((r)->tl_ptr[1])

enum {
    SHM_RS_NONE = 0,
    SHM_RS_SENDQ,        /* in peer->sendq (not yet in the ring) */
    SHM_RS_SEND_LARGE,   /* RTS sent, RQ_XFER in large_out / stage_out */
    SHM_RS_POSTED,       /* in peer->posted */
    SHM_RS_RECV_LARGE,   /* matched a large message, RQ_XFER in pulls / stage_in */
    SHM_RS_DONE,
};

/* Functions shared between the shm files: hidden, so libplexus.so exports
 * only plx_tl_shm_ops from this transport. */
#pragma GCC visibility push(hidden)

/* ---- shared helpers (shm.c) ---- */
static inline void shm_req_complete(plx_tl_req_t *r, plx_status_t st)
{
    r->status = st;
    RQ_STATE(r) = SHM_RS_DONE;
    r->tl_next = r->tl_prev = NULL;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

void shm_xlist_push(shm_xlist_t *l, shm_xfer_t *x);
void shm_xlist_remove(shm_xfer_t *x);
shm_xfer_t *shm_xfer_get(shm_tl_t *t);
void shm_xfer_put(shm_tl_t *t, shm_xfer_t *x);
/* Queue or send a control message (CTS/FIN) to local peer p. */
int shm_ctrl_send(shm_tl_t *t, int p, uint32_t type, uint64_t id, uint64_t val);

/* ---- segment (shm_seg.c) ---- */
int  shm_env_bytes(const char *name, uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out);
/* lean: the collective windows' default without the oversubscribed node's
 * larger one (the retry when the segment does not fit /dev/shm) */
void shm_layout_compute(shm_layout_t *lay, int nlocal, int lean);
/* quiet_nospace: no error logged when /dev/shm lacks the room (the caller retries smaller) */
plx_status_t shm_seg_create(const char *job_id, const shm_layout_t *lay, char name[SHM_NAME_MAX],
                            int *fd, void **base, int quiet_nospace);
plx_status_t shm_seg_attach(const char *name, int *fd, void **base, size_t *len, shm_layout_t *lay);
void shm_seg_wire(shm_tl_t *t);
/* Collective window `channel` of local rank `local`. */
void *shm_seg_coll_window(shm_tl_t *t, int local, int channel);
/* The direct staging area of local rank `local` (lay.dstage_bytes). */
void *shm_seg_dstage(shm_tl_t *t, int local);
/* Reserve my own direct staging area in /dev/shm; 0 if it cannot be. */
int shm_seg_reserve_dstage(shm_tl_t *t, int fd);
/* Reserve tmpfs pages of my incoming staging row (so a full /dev/shm fails now, not SIGBUS later). */
plx_status_t shm_seg_reserve_stage_in(shm_tl_t *t, int fd);

/* ---- large messages (shm_large.c) ---- */
/* 0 if process_vm_readv from local peer p works, else an errno */
int  shm_cma_probe(shm_tl_t *t, int p, uint64_t addr, uint64_t val);
/* sender got a CTS / FIN from local peer p */
void shm_large_on_cts(shm_tl_t *t, int p, const shm_ctl_t *c);
void shm_large_on_fin(shm_tl_t *t, int p, const shm_ctl_t *c);
/* receiver matched an RTS from p with request r (r may be NULL: never) */
void shm_large_recv_start(shm_tl_t *t, int p, plx_tl_req_t *r, uint64_t tag, const shm_rts_t *rts);
int  shm_large_progress(shm_tl_t *t);
/* the peer_read / peer_write ops: single-copy access to local peer memory for the core */
plx_status_t shm_peer_read(void *tl, int peer, void *dst, uint64_t addr, size_t len);
plx_status_t shm_peer_write(void *tl, int peer, uint64_t addr, const void *src, size_t len);
void shm_large_cancel(shm_tl_t *t, plx_tl_req_t *r);
void shm_large_free_all(shm_tl_t *t);

#pragma GCC visibility pop

/* PLX_ERR_PEER_FAILED once the local peer's process has exited (a pidfd
 * where the kernel has them, else kill(pid, 0)); PLX_SUCCESS otherwise. */
plx_status_t shm_peer_status(void *tlp, int peer);

#endif /* PLX_SHM_INTERNAL_H */
