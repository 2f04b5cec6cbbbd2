/*
 * lib/coll/alltoall.c — alltoall: block j of rank i goes to block i of
 * rank j.
 *
 *   pairwise  size-1 rounds; in round k rank r sends to r+k and receives
 *             from r-k, so each rank has one message in flight each way:
 *             for large blocks (no incast, bounded buffering).
 *   linear    every send and receive posted in one round: fewest round
 *             trips, for small blocks.
 *
 * In place the input is recvbuf itself, which the receives overwrite, so it
 * is first copied to scratch (this rank's own block needs no move: block r
 * of the input is block r of the output).
 */
#include "coll.h"

/* The input blocks; in place, a scratch copy of recvbuf taken in a round of
 * its own before any message moves. */
static const char *alltoall_input(plx_sched_t *s, const coll_args_t *a, int p, size_t bytes)
{
    if (!coll_in_place(a->sbuf)) return a->sbuf;
    if (p == 1) return a->rbuf;
    void *copy = sched_alloc(s, (size_t)p * bytes);
    sched_copy(s, copy, a->rbuf, (size_t)p * bytes);
    sched_round(s);
    return copy;
}

static plx_status_t alltoall_build(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a,
                                   int one_round)
{
    int p = comm->size, r = comm->rank;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;
    const char *in = alltoall_input(s, a, p, bytes);
    char *out = a->rbuf;

    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        sched_send(s, to, in + (size_t)to * bytes, bytes);
        sched_recv(s, from, out + (size_t)from * bytes, bytes);
        if (!one_round) sched_round(s);
    }
    if (!coll_in_place(a->sbuf))
        sched_copy(s, out + (size_t)r * bytes, in + (size_t)r * bytes, bytes);
    sched_round(s);
    return PLX_SUCCESS;
}

plx_status_t coll_alltoall_pairwise(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    return alltoall_build(s, comm, a, 0);
}

plx_status_t coll_alltoall_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    return alltoall_build(s, comm, a, 1);
}
