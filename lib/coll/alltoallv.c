/*
 * lib/coll/alltoallv.c — alltoallv: rank i's block j (its own length and
 * displacement) goes to rank j, which places it at its own displacement.
 *
 *   linear    every send and receive posted in one round; for small blocks.
 *   pairwise  p-1 rounds, round k a sendrecv with rank+k / rank-k; bounded
 *             in-flight traffic, for large blocks.
 *
 * Each rank knows only its own counts, so ranks may pick different
 * algorithms (the selector sees each rank's own totals): both move exactly
 * one message per ordered pair with a non-empty block, on the schedule's
 * one tag, so they match whatever each side chose.  A pair whose block is
 * empty exchanges nothing (both sides know: sendcounts[j] on rank i equals
 * recvcounts[i] on rank j).
 *
 * In place (sendbuf PLX_IN_PLACE) the outgoing blocks are recvbuf's, laid
 * out by recvcounts/rdispls; they are copied to scratch first since
 * arriving blocks overwrite them.
 */
#include "coll.h"

typedef struct a2av_layout {
    const char *sbuf;
    const size_t *scounts, *sdispls;
} a2av_layout_t;

static a2av_layout_t send_layout(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a, size_t es)
{
    a2av_layout_t l = { a->sbuf, a->scounts, a->sdispls };
    if (!coll_in_place(a->sbuf)) return l;
    size_t extent = 0;
    for (int i = 0; i < comm->size; i++)
        if (a->rcounts[i] && a->rdispls[i] + a->rcounts[i] > extent)
            extent = a->rdispls[i] + a->rcounts[i];
    char *copy = sched_alloc(s, extent * es);
    if (copy && extent) sched_copy(s, copy, a->rbuf, extent * es);
    sched_round(s);
    l.sbuf = copy;
    l.scounts = a->rcounts;
    l.sdispls = a->rdispls;
    return l;
}

static void self_block(plx_sched_t *s, const coll_args_t *a, const a2av_layout_t *l, int r, size_t es)
{
    size_t n = l->scounts[r] < a->rcounts[r] ? l->scounts[r] : a->rcounts[r];
    if (n && l->sbuf)
        sched_copy(s, COLL_AT(a->rbuf, a->rdispls[r], es), l->sbuf + l->sdispls[r] * es, n * es);
}

static void exchange(plx_sched_t *s, const coll_args_t *a, const a2av_layout_t *l, int to, int from,
                     size_t es)
{
    if (l->scounts[to] && l->sbuf) sched_send(s, to, l->sbuf + l->sdispls[to] * es, l->scounts[to] * es);
    if (a->rcounts[from])
        sched_recv(s, from, COLL_AT(a->rbuf, a->rdispls[from], es), a->rcounts[from] * es);
}

plx_status_t coll_alltoallv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    a2av_layout_t l = send_layout(s, comm, a, es);
    for (int k = 1; k < p; k++) exchange(s, a, &l, (r + k) % p, (r - k + p) % p, es);
    self_block(s, a, &l, r, es);
    sched_round(s);
    return PLX_SUCCESS;
}

plx_status_t coll_alltoallv_pairwise(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    a2av_layout_t l = send_layout(s, comm, a, es);
    self_block(s, a, &l, r, es);
    sched_round(s);
    for (int k = 1; k < p; k++) {
        exchange(s, a, &l, (r + k) % p, (r - k + p) % p, es);
        sched_round(s);
    }
    return PLX_SUCCESS;
}
