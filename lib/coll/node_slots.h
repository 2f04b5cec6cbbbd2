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
 * on the call get PLX_ERR_MISMATCH instead of each other's bytes.
 * See node_slots.c for the protocol.
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
    plx_status_t status;
} slots_op_t;

/* Can comm run a node-local collective of `bytes` per rank?  Every member
 * on this node, served by a transport with collective windows, a free
 * channel (communicator id < 16) and bytes within the window. */
int plx_slots_can_run(plx_comm_t comm, size_t bytes);

/* Start op (after plx_slots_can_run said yes); never waits. */
plx_status_t plx_slots_start(plx_comm_t comm, const coll_args_t *a, slots_op_t *op);
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
 * not (a member failed or is stuck): the id must then not be reused. */
int plx_slots_drain(plx_comm_t comm, double timeout_s);
/* The last node-local sequence number comm used (0: none). */
uint64_t plx_slots_last_seq(plx_comm_t comm);
/* Free comm's slot state (comm free, finalize). */
void plx_slots_release(plx_comm_t comm);

#endif /* PLX_NODE_SLOTS_H */
