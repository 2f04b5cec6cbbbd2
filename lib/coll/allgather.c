/*
 * lib/coll/allgather.c — allgather: every rank gets every rank's block, in
 * rank order.
 *
 *   ring   size-1 steps, each passing one block to the right neighbour:
 *          bandwidth-optimal, for large blocks.
 *   bruck  ceil(log2 size) steps with doubling distance, any size: fewest
 *          steps, for small blocks.
 *
 * Both work directly in recvbuf (no scratch): this rank's block is copied
 * to its place (unless in place, where it already sits there) while the
 * first step sends it straight from sendbuf.
 */
#include "coll.h"

/* ---- ring ---------------------------------------------------------------------------
 * Step k: send block r-k to the right, receive block r-k-1 from the left
 * (the one the left neighbour received in step k-1). */
plx_status_t coll_allgather_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;
    int in_place = coll_in_place(a->sbuf);
    char *out = a->rbuf;
    const void *mine = in_place ? out + (size_t)r * bytes : a->sbuf;
    int right = (r + 1) % p, left = (r - 1 + p) % p;

    for (int k = 0; k <= p - 2; k++) {
        int sb = (r - k + p) % p, rb = (r - k - 1 + p) % p;
        sched_send(s, right, k == 0 ? mine : out + (size_t)sb * bytes, bytes);
        sched_recv(s, left, out + (size_t)rb * bytes, bytes);
        sched_round(s);
    }
    /* after the first round's messages (or alone when size is 1) */
    sched_copy(s, out + (size_t)r * bytes, mine, bytes);
    sched_round(s);
    return PLX_SUCCESS;
}

/* ---- Bruck ---------------------------------------------------------------------------
 * Rank r collects the blocks r, r+1, r+2, ... (mod size): after the step
 * with distance d it holds 2d of them (size at most).  In that step it
 * sends the ones it holds, [r, r+cnt), to r-d and gets [r+d, r+d+cnt) from
 * r+d, where cnt = min(d, size-d).  Keeping every block at its final place
 * in recvbuf (rather than the textbook's rotated scratch) avoids the final
 * rotation; a run of blocks that wraps past the end becomes two messages,
 * and the sender and receiver split it at the same place because they name
 * the same block indices. */
static void bruck_run(plx_sched_t *s, int send, int peer, char *out, int first, int cnt, int p,
                      size_t bytes)
{
    int n1 = cnt < p - first ? cnt : p - first;
    if (send) {
        sched_send(s, peer, out + (size_t)first * bytes, (size_t)n1 * bytes);
        if (cnt > n1) sched_send(s, peer, out, (size_t)(cnt - n1) * bytes);
    } else {
        sched_recv(s, peer, out + (size_t)first * bytes, (size_t)n1 * bytes);
        if (cnt > n1) sched_recv(s, peer, out, (size_t)(cnt - n1) * bytes);
    }
}

plx_status_t coll_allgather_bruck(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;
    int in_place = coll_in_place(a->sbuf);
    char *out = a->rbuf;

    for (int d = 1; d < p; d <<= 1) {
        int cnt = d < p - d ? d : p - d;
        int to = (r - d + p) % p, from = (r + d) % p;
        if (d == 1 && !in_place)
            sched_send(s, to, a->sbuf, bytes);   /* cnt is 1: just this rank's block */
        else
            bruck_run(s, 1, to, out, r, cnt, p, bytes);
        bruck_run(s, 0, from, out, from, cnt, p, bytes);
        if (d == 1 && !in_place) sched_copy(s, out + (size_t)r * bytes, a->sbuf, bytes);
        sched_round(s);
    }
    if (p == 1 && !in_place) sched_copy(s, out, a->sbuf, bytes);
    return PLX_SUCCESS;
}
