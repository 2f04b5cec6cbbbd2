/*
 * lib/coll/node_direct_v.c — the single-copy ("direct") algorithms of the
 * v-collectives allgatherv, alltoallv, gatherv and scatterv among ranks
 * that share one node, for large blocks.
 *
 * They run node_slots_v.c's protocol (the slot line of each rank carries
 * the address of its buffer and a table of its blocks; readers copy their
 * blocks straight out of it with the transport's single-copy read, and a
 * rank ends only when every member finished with its buffer) with every
 * payload read in place, never staged through the slot: one copy per byte,
 * as node_direct.c's forms, one piece per progress call.  They share the slots' sequence numbers, so
 * they need both the slot windows and single-copy reads (PLX_SHM_CMA=0:
 * not available, the selector's next rule runs).  They are requests of the
 * single-copy kind (REQ_DIRECT): the op state lives in a small allocation
 * hung on the direct_op_t, freed when it ends.
 */
#include "node_direct.h"
#include "node_slots.h"

#include <stdlib.h>
#include <string.h>

int plx_direct_v_can_run(plx_comm_t comm, size_t bytes)
{
    return plx_slots_v_spill_can_run(comm, bytes);
}

plx_status_t plx_direct_v_start(plx_comm_t comm, const coll_args_t *a, direct_op_t *op)
{
    memset(op, 0, sizeof *op);
    op->comm = comm;
    op->a = *a;
    op->phase = 1;   /* not DIRECT_DONE (node_direct.c) until node_slots_v.c ends it */
    op->status = PLX_SUCCESS;
    op->v = malloc(sizeof *op->v);
    if (!op->v) return PLX_ERR_NO_MEMORY;
    return plx_slots_v_start(comm, a, op->v, PLX_SLOTS_V_SPILL_ALL);
}

static int ended(direct_op_t *op)
{
    op->status = op->v->status;
    free(op->v);
    op->v = NULL;
    return 1;
}

int plx_direct_v_advance(direct_op_t *op, int *moved)
{
    op->v->moved = 0;
    int done = plx_slots_v_advance(op->v);
    if (op->v->moved) *moved = 1;   /* a piece moved: the engine does not back off */
    return done ? ended(op) : 0;
}

int plx_direct_v_check(direct_op_t *op, double elapsed, double limit)
{
    return plx_slots_v_check(op->v, elapsed, limit) ? ended(op) : 0;
}

/* The call records saw a cross-path mismatch (lib/coll/call_record.c):
 * end it as the slots forms end theirs (plx_slots_abort). */
int plx_direct_v_abort(direct_op_t *op, plx_status_t st)
{
    return plx_slots_abort(op->v, st) ? ended(op) : 0;
}
