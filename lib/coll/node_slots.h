/*
 * lib/coll/node_slots.h — node-local collectives through shared slots
 * ("shm_slots" in the selector): allreduce, reduce, bcast, allgather and
 * barrier among ranks that all share one node's memory.
 *
 * Instead of point-to-point messages, every rank of the communicator owns
 * a window in the shm transport's segment (transport op coll_window) and
 * writes its contribution there with a sequence number on the same cache
 * line; the others read it in place.  An 8-byte allreduce between two
 * ranks is then one cache-line write and one cache-line read each way.
 * A signature of the call sits on that line too, so ranks that disagree
 * on the call get PLX_ERR_MISMATCH instead of each other's bytes (a bcast
 * root or a reduce non-root, which wait for nobody's line, check one or
 * two calls later).  See node_slots.c for the protocol.
 */
#ifndef PLX_NODE_SLOTS_H
#define PLX_NODE_SLOTS_H

#include "coll.h"

struct node_slots;   /* per communicator, set up at first use */

/* One node-local collective in flight (embedded in its request). */
typedef struct slots_op {
    plx_comm_t comm;
    struct node_slots *ns;
    coll_args_t a;
    uint64_t seq;            /* node-local sequence number on comm, from 1 */
    size_t bytes;            /* payload per rank */
    int phase;               /* SLOTS_WRITE, SLOTS_READ, SLOTS_DONE */
    int next;                /* read phase: members before this one have arrived */
    uint64_t sig;            /* what this rank called (coll/signature.h), next to seq */
    int late;                /* a member disagreed on an earlier call, seen only now */
    plx_status_t status;
    plx_coll_t called;       /* what the caller called, for messages (alltoall runs as alltoallv) */
    /* the v-forms (node_slots_v.c) */
    size_t spill_at;         /* a payload over this many bytes is read from the user's buffer */
    void *vmem;              /* count arrays kept past the call, in-place scratch, or NULL */
    size_t vmem_size;
    int spilled;             /* peers read this rank's buffers: wait for them before ending */
    int vcopy;               /* copying this rank's blocks out (no mismatch) */
    int vm;                  /* copying: member, byte offset in its block */
    size_t voff;
    int moved;               /* a piece was copied in the last advance (direct forms) */
    int uni;                 /* its count arrays are the communicator's uniform ones (held) */
} slots_op_t;

/* Can comm run a node-local collective of `bytes` per rank?  Every member
 * on this node, served by a transport with collective windows, a free
 * channel (communicator id < 16) and bytes within the window. */
int plx_slots_can_run(plx_comm_t comm, size_t bytes);

/* Start op (after plx_slots_can_run said yes); never waits.  sig: the
 * call's coll_sig_word (coll/signature.h), built once by the caller. */
plx_status_t plx_slots_start(plx_comm_t comm, const coll_args_t *a, uint64_t sig, slots_op_t *op);
/* Move it as far as possible; 1 when finished (op->status). */
int plx_slots_advance(slots_op_t *op);
/* Timeout / dead peer check for the progress engine: ends the op with a
 * message naming the ranks that never arrived; 1 if it ended it. */
int plx_slots_check(slots_op_t *op, double elapsed, double limit);
/* The ranks disagree on this call across paths (lib/coll/call_record.c):
 * end op with st; the windows are out of step from here on, so later
 * collectives of the comm fail at once here, and a peer that reads this
 * rank's line of op's sequence sees an abandoned signature.  1 if op was
 * not finished yet. */
int plx_slots_abort(slots_op_t *op, plx_status_t st);
/* Before freeing comm: wait (at most timeout_s) until every member has
 * finished reading this rank's window, so a comm that reuses the id cannot
 * overwrite data still being read.  0 when drained (or never used), -1 if
 * not (a member failed or is stuck): the id must then not be reused.
 * Drained, it also makes the checks that the last rooted calls left for
 * later (node_slots.c), logging a disagreement nobody reported. */
int plx_slots_drain(plx_comm_t comm, double timeout_s);
/* The last node-local sequence number comm used (0: none). */
uint64_t plx_slots_last_seq(plx_comm_t comm);
/* Free comm's slot state (comm free, finalize). */
void plx_slots_release(plx_comm_t comm);

/* ---- the v-forms (node_slots_v.c: allgatherv, alltoallv, gatherv,
 * scatterv, reduce_scatterv) -------------------------------------------------
 * They run their own phases on the same windows and sequence numbers as
 * the collectives above (so the two kinds interleave on a communicator in
 * call order), through the window accessors below. */
enum { PLX_SLOTS_V_SPILL_BIG = 0, PLX_SLOTS_V_SPILL_ALL = 1 };
/* Can comm run them?  allgatherv, reduce_scatterv: bytes (their total)
 * fits the slot; alltoallv, gatherv, scatterv and the direct forms: any
 * size (payloads that do not fit are read with one copy, so single-copy
 * reads must work). */
int plx_slots_v_total_can_run(plx_comm_t comm, size_t bytes);
int plx_slots_v_spill_can_run(plx_comm_t comm, size_t bytes);
/* spill: PLX_SLOTS_V_SPILL_BIG (payloads that do not fit the slot are read
 * from the user's buffer) or _ALL (every payload is). */
plx_status_t plx_slots_v_start(plx_comm_t comm, const coll_args_t *a, slots_op_t *op, int spill);
int plx_slots_v_advance(slots_op_t *op);
int plx_slots_v_check(slots_op_t *op, double elapsed, double limit);
/* alltoall, gather, scatter and reduce_scatter as the v-forms above with
 * every count equal (node_slots_v.c): payloads always in the slot, sig the
 * non-v call's signature, so a rank that calls the v-form differs.  The
 * can_run functions take the selector's bytes (count x datatype size). */
int plx_slots_u_table_can_run(plx_comm_t comm, size_t bytes);    /* alltoall, scatter */
int plx_slots_u_block_can_run(plx_comm_t comm, size_t bytes);    /* gather */
int plx_slots_u_input_can_run(plx_comm_t comm, size_t bytes);    /* reduce_scatter */
plx_status_t plx_slots_u_start(plx_comm_t comm, const coll_args_t *a, uint64_t sig, slots_op_t *op);
/* The communicator's arrays of p counts `count` then p displacements
 * (i x count), held until _put; NULL if held by calls of another count (or
 * out of memory).  No allocation per call. */
const size_t *plx_slots_uniform_get(plx_comm_t comm, size_t count);
void plx_slots_uniform_put(plx_comm_t comm);
/* Window access for collective op->seq (node_slots.c). */
uint64_t plx_slots_v_take_seq(plx_comm_t comm);                 /* the next sequence number */
size_t plx_slots_v_cap(const slots_op_t *op);                  /* bytes of a data buffer */
unsigned char *plx_slots_v_line(const slots_op_t *op, int m);   /* member m's 48 inline bytes */
unsigned char *plx_slots_v_data(const slots_op_t *op, int m);   /* member m's data buffer */
/* a non-root's block into its window for the root (reduce, gatherv): the
 * PLX_SLOTS_STREAM rule for 64-256 KiB (coll: PLX_COLL_REDUCE or
 * PLX_COLL_GATHERV), memcpy otherwise */
void plx_slots_write_for_root(plx_comm_t comm, plx_coll_t coll, void *dst, const void *src, size_t n);
int plx_slots_v_may_write(slots_op_t *op);       /* 1: this rank may write its line */
void plx_slots_v_publish(slots_op_t *op);        /* store signature, then seq (release) */
/* 1 when member m's line holds op->seq; a signature that differs sets
 * op->status to PLX_ERR_MISMATCH (logged once). */
int plx_slots_v_arrived(slots_op_t *op, int m);
/* This rank finished reading windows (and buffers) of op->seq; read_all:
 * it waited for every member's line. */
void plx_slots_v_finish_reads(slots_op_t *op, int read_all);
uint64_t plx_slots_v_done(const slots_op_t *op, int m);        /* member m's last finished seq */
uint64_t plx_slots_v_local_done(const slots_op_t *op);
/* The protocol of comm is out of step: later collectives fail at once with
 * st (_broken: 1 and *st once that happened). */
int plx_slots_v_broken(const slots_op_t *op, plx_status_t *st);
void plx_slots_v_break(slots_op_t *op, plx_status_t st);

#endif /* PLX_NODE_SLOTS_H */
