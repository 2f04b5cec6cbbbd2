/*
 * lib/coll/allgatherv.c — allgatherv: every rank gets every rank's block,
 * each of its own length, at its own displacement.
 *
 *   linear  one round: every rank sends its block straight to every other
 *           and receives every block in place; p-1 messages per rank and
 *           one latency, for small totals.
 *   ring    p-1 steps passing one block to the right neighbour, straight
 *           out of and into recvbuf: each rank moves the total once, for
 *           large totals.
 *
 * Counts and displacements are the same on every rank, so empty blocks are
 * skipped on both sides of every pair alike (no zero-byte messages).
 */
#include "coll.h"

/* This rank's block into its place in recvbuf (nothing in place). */
static void own_block(plx_sched_t *s, const coll_args_t *a, int r, size_t es)
{
    if (!coll_in_place(a->sbuf) && a->rcounts[r])
        sched_copy(s, COLL_AT(a->rbuf, a->rdispls[r], es), a->sbuf, a->rcounts[r] * es);
}

static const void *block_of(const coll_args_t *a, int i, size_t es)
{
    return COLL_CAT(a->rbuf, a->rdispls[i], es);
}

plx_status_t coll_allgatherv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    const void *mine = coll_in_place(a->sbuf) ? block_of(a, r, es) : a->sbuf;
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        if (a->rcounts[r]) sched_send(s, to, mine, a->rcounts[r] * es);
        if (a->rcounts[from])
            sched_recv(s, from, COLL_AT(a->rbuf, a->rdispls[from], es), a->rcounts[from] * es);
    }
    own_block(s, a, r, es);
    sched_round(s);
    return PLX_SUCCESS;
}

/* Step k: send block r-k (own block first, then the one received at step
 * k-1) to the right, receive block r-k-1 from the left. */
plx_status_t coll_allgatherv_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    own_block(s, a, r, es);
    sched_round(s);
    for (int k = 0; k < p - 1; k++) {
        int sb = (r - k + p) % p, rb = (r - k - 1 + p) % p;
        if (a->rcounts[sb]) {
            const void *src = (k == 0 && !coll_in_place(a->sbuf)) ? a->sbuf : block_of(a, sb, es);
            sched_send(s, right, src, a->rcounts[sb] * es);
        }
        if (a->rcounts[rb])
            sched_recv(s, left, COLL_AT(a->rbuf, a->rdispls[rb], es), a->rcounts[rb] * es);
        sched_round(s);
    }
    return PLX_SUCCESS;
}
