/*
 * lib/coll/barrier.c — barrier: nobody leaves before everybody arrived.
 *
 *   dissemination  ceil(log2 size) rounds; in round k rank r sends an empty
 *                  message to r + 2^k and waits for one from r - 2^k.
 *                  After round k a rank has (transitively) heard from the
 *                  2^(k+1) ranks before it, so after the last round it has
 *                  heard from all of them.  Any size, no fold needed.
 */
#include "coll.h"

plx_status_t coll_barrier_dissemination(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    (void)a;
    int p = comm->size, r = comm->rank;
    for (int d = 1; d < p; d <<= 1) {
        sched_send(s, (r + d) % p, NULL, 0);
        sched_recv(s, (r - d + p) % p, NULL, 0);
        sched_round(s);
    }
    return PLX_SUCCESS;
}
