/*
 * lib/coll/node_direct.h — node-local single-copy collectives ("direct" in
 * the selector) for large buffers: allreduce, reduce_scatter, reduce,
 * bcast, allgather, alltoall, gather and scatter among ranks that all share
 * one node.
 *
 * Every rank publishes, per collective, the addresses of its own buffers
 * and a per-piece progress counter in a small control area of the node's
 * shared segment; each rank then reads what it needs straight out of its
 * peers' user buffers with one copy (the transport's peer_read op,
 * process_vm_readv), in cache-sized pieces, reducing each piece into its
 * destination while it is hot.  No message, no handshake per step, no
 * scratch copy in between.  See node_direct.c for the protocol.
 *
 * Where single-copy reads are refused (PLX_SHM_CMA=0, other uid, ptrace
 * scope) the algorithm cannot run (can_run says no) and the selector falls
 * through to the next rule, whose large messages the shm transport moves
 * through its pipelined, double-buffered staging area.
 */
#ifndef PLX_NODE_DIRECT_H
#define PLX_NODE_DIRECT_H

#include "coll.h"

struct node_direct;   /* per communicator, set up at first use */

/* One single-copy collective in flight (embedded in its request). */
typedef struct direct_op {
    plx_comm_t comm;
    struct node_direct *nd;
    coll_args_t a;
    uint64_t seq;            /* node-local sequence number on comm, from 1 */
    uint64_t prev;           /* the one this rank took before (its turn comes after it) */
    size_t es;               /* element size */
    size_t bytes;            /* count x element size */
    int phase;               /* DIRECT_TURN .. DIRECT_DONE (node_direct.c) */
    int next;                /* member cursor while waiting for headers / done flags */
    int seg;                 /* work: current segment */
    size_t off;              /* work: bytes of the current segment finished */
    size_t cbeg, clen;       /* work, 2-rank reductions: the current claim (bytes) */
    const void *in;          /* this rank's input (in-place resolved), local address */
    void *aux;               /* this rank's scratch for this collective, or NULL */
    int wrote_done;
    int star;                /* scatter/gather, more ranks than cores: see node_direct.c */
    double spin_since;       /* start of the current bounded spin (meet, drain), 0: none */
    double work_since;       /* start of the work phase (spin_on's budget) */
    int solo;                /* set by the engine before each advance: DIRECT_SOLO_* */
    plx_status_t status;
    struct slots_op *v;      /* a v-form (node_direct_v.c), or NULL */
    int stage;               /* this rank stages its input (see "Staged input") */
    int stage_wait;          /* work: the member whose staging this rank waits for, or -1 */
    size_t st_done, st_len;  /* bytes staged so far, to stage in all */
    size_t pend;             /* shared read: 1 + a claimed piece not staged yet, or 0 */
    int in_huge;             /* turn: every 2 MiB page of the input peers read is a huge page */
} direct_op_t;

/* op->solo, the engine's word on the caller of plx_direct_advance:
 * 0: short pieces, no spinning (a progress thread shares the core with
 * computing threads, or others wait for the lock); CALLER: no progress
 * thread, or an application thread drives the wait alone; THREAD: the
 * progress thread with this op alone in flight and nobody waiting for the
 * lock -- steps like CALLER's (the thread's core is shared only with an
 * application thread that sleeps or computes; at 4 ranks on 2 cores the
 * 1 MiB pieces, and the engine's naps in place of backoff sleeps). */
enum { DIRECT_SOLO_NO = 0, DIRECT_SOLO_CALLER = 1, DIRECT_SOLO_THREAD = 2 };

/* Can comm run a single-copy collective?  Every member on this node, served
 * by a transport with collective windows and peer_read, each peer readable,
 * communicator id < 16.  comm NULL (printing the table): 1. */
int plx_direct_can_run(plx_comm_t comm, size_t bytes);

/* Start op (after plx_direct_can_run said yes); never waits. */
plx_status_t plx_direct_start(plx_comm_t comm, const coll_args_t *a, direct_op_t *op);
/* Move it as far as one piece of work; 1 when finished (op->status).
 * op->solo (the engine's): one piece may be piece_solo, a copy one call,
 * and waits for members may spin; else short pieces and no spin.  While a
 * task graph's compute runs on the pool's workers and every member has a
 * core, the pieces stay short even so (node_direct.c, long_steps).
 * *moved is set when something happened (the engine then does not back
 * off). */
int plx_direct_advance(direct_op_t *op, int *moved);
/* Step 1 alone (publish this rank's header) if op can take it now, for a
 * poster that leaves the rest to the progress thread; 1 if it ended op
 * (failed). */
int plx_direct_publish(direct_op_t *op);
/* Timeout / dead peer check for the progress engine: ends the op with a
 * message naming the ranks waited for; 1 if it ended it. */
int plx_direct_check(direct_op_t *op, double elapsed, double limit);
/* With more ranks on the node than cores, a blocking wait sleeps instead
 * of yielding: the engine (lock held) asks where op waits (0: it does not
 * wait for a member's store, or ranks do not outnumber cores), then,
 * without the lock, sleeps until that member's next store or max_s.  The
 * member wakes it (futex in the shared control area). */
typedef struct direct_sleep {
    uint32_t *event, *sleepers;      /* the member's futex word and sleeper count */
    uint32_t ev;                     /* the event count seen before the last check */
    const uint64_t *word;            /* seq or done of that member ... */
    uint64_t want;                   /* ... reaching this ends the wait */
    int lone;                        /* a rank alone on its core means an uneven placement
                                        (lone_sleep in node_direct.c) */
} direct_sleep_t;
int plx_direct_sleep_target(const direct_op_t *op, direct_sleep_t *t);
void plx_direct_sleep(direct_sleep_t *t, double max_s);
/* The ranks disagree on this call across paths (lib/coll/call_record.c):
 * end op with st (published to the peers as a failure) if no member can be
 * using this rank's buffers yet (before the work, some member's header
 * missing); 1 if it ended op. */
int plx_direct_abort(direct_op_t *op, plx_status_t st);
/* The node-local phase of a hierarchical collective: can the comm ranks
 * members[0..n) (this rank among them, all on this node) run one?  The
 * answer is kept for comm (one node group per communicator). */
int plx_direct_node_can_run(plx_comm_t comm, const int *members, int n);
/* Append that phase to schedule s as one step of the current round: a
 * with every rank and root counted among the members (after
 * plx_direct_node_can_run said yes). */
void plx_direct_sched_phase(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

/* Before freeing comm: 1 when no member can still be reading this rank's
 * window or buffers (every collective ended with its drain; a claimed
 * reduction that ended on its finished count: waits up to timeout_s for
 * every member's done of it), 0 if the last one failed or a member never
 * finished it (then comm's id must not be reused). */
int plx_direct_drained(plx_comm_t comm, double timeout_s);
/* The last node-local sequence number comm's direct state used (0: none). */
uint64_t plx_direct_last_seq(plx_comm_t comm);
/* Free comm's state (comm free, finalize). */
void plx_direct_release(plx_comm_t comm);

/* The v-forms' single-copy algorithms (node_direct_v.c): they run the
 * protocol of node_slots_v.c with every payload read from its owner's
 * buffer; plx_direct_start/advance/check hand them over. */
int plx_direct_v_can_run(plx_comm_t comm, size_t bytes);
plx_status_t plx_direct_v_start(plx_comm_t comm, const coll_args_t *a, direct_op_t *op);
int plx_direct_v_advance(direct_op_t *op, int *moved);
int plx_direct_v_check(direct_op_t *op, double elapsed, double limit);
int plx_direct_v_abort(direct_op_t *op, plx_status_t st);

#endif /* PLX_NODE_DIRECT_H */
