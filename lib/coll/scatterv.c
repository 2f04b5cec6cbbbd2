/*
 * lib/coll/scatterv.c — scatterv: rank r gets sendcounts[r] elements of
 * root's sendbuf from displs[r].
 *
 *   linear  root sends straight to every rank, all at once.  The only
 *           algorithm, for the reason given in gatherv.c (non-roots do not
 *           know the other ranks' counts).
 *
 * An empty block is skipped on both sides.  A non-root never touches
 * sendbuf; root in place (recvbuf PLX_IN_PLACE) keeps its block where it
 * is.
 */
#include "coll.h"

plx_status_t coll_scatterv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t es = plx_dtype_size(a->dt);
    if (r != root) {
        if (a->count) sched_recv(s, root, a->rbuf, a->count * es);
    } else {
        for (int k = 1; k < p; k++) {
            int i = (root + k) % p;
            if (a->scounts[i])
                sched_send(s, i, COLL_CAT(a->sbuf, a->sdispls[i], es), a->scounts[i] * es);
        }
        if (!coll_in_place(a->rbuf) && a->scounts[root])
            sched_copy(s, a->rbuf, COLL_CAT(a->sbuf, a->sdispls[root], es), a->scounts[root] * es);
    }
    sched_round(s);
    return PLX_SUCCESS;
}
