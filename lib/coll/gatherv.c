/*
 * lib/coll/gatherv.c — gatherv: root's recvbuf gets rank r's block
 * (recvcounts[r] elements) at displs[r].
 *
 *   linear  every rank sends its block straight to root, which posts all
 *           receives at once.  The only algorithm: non-roots do not know
 *           the other ranks' counts, so no rank can forward another's
 *           block without an extra exchange of sizes.
 *
 * An empty block is skipped on both sides (sendcount on rank r equals
 * recvcounts[r] at root).  A non-root never touches recvbuf.
 */
#include "coll.h"

plx_status_t coll_gatherv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t es = plx_dtype_size(a->dt);
    if (r != root) {
        if (a->count) sched_send(s, root, a->sbuf, a->count * es);
    } else {
        for (int k = 1; k < p; k++) {
            int i = (root + k) % p;
            if (a->rcounts[i])
                sched_recv(s, i, COLL_AT(a->rbuf, a->rdispls[i], es), a->rcounts[i] * es);
        }
        if (!coll_in_place(a->sbuf) && a->rcounts[root])
            sched_copy(s, COLL_AT(a->rbuf, a->rdispls[root], es), a->sbuf, a->rcounts[root] * es);
    }
    sched_round(s);
    return PLX_SUCCESS;
}
