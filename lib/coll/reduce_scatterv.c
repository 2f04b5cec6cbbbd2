/*
 * lib/coll/reduce_scatterv.c — reduce_scatter with per-rank block lengths
 * (MPI_Reduce_scatter): the input holds N = sum(recvcounts) elements and
 * rank r gets the reduction of block r, which starts at element
 * recvcounts[0] + ... + recvcounts[r-1].
 *
 *   ring     p-1 steps, each moving one partial block to the right
 *            neighbour, which adds its own input block to it (as the equal
 *            form's ring in reduce_scatter.c, with blocks of their own
 *            lengths): bandwidth-optimal; commutative ops only (a block
 *            is combined starting from the rank after its owner).
 *   ordered  rank-ordered binomial reduce of the whole vector to rank 0
 *            (ordered.c), then rank 0 sends each rank its block: for
 *            non-commutative user ops.
 *
 * recvcounts is the same on every rank, so empty blocks are skipped by
 * both sides of a pair alike.
 */
#include "coll.h"

/* Offsets of the blocks (p+1 entries) in schedule scratch; NULL if out of
 * memory (recorded in the schedule). */
static size_t *block_offsets(plx_sched_t *s, const coll_args_t *a, int p)
{
    size_t *off = sched_alloc(s, ((size_t)p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int i = 0; i < p; i++) off[i + 1] = off[i] + a->rcounts[i];
    return off;
}

static void self_result(plx_sched_t *s, const coll_args_t *a, const void *in, size_t n, size_t es)
{
    if (in != a->rbuf && n) sched_copy(s, a->rbuf, in, n * es);
}

plx_status_t coll_reduce_scatterv_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    plx_op_t op = coll_reduce_op(a->op);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    size_t *off = block_offsets(s, a, p);
    if (!off) return PLX_SUCCESS;             /* recorded: sched_start reports it */
    size_t mine = a->rcounts[r];
    if (p == 1) {
        self_result(s, a, in, mine, es);
    } else {
        size_t maxb = 0;
        for (int i = 0; i < p; i++) maxb = a->rcounts[i] > maxb ? a->rcounts[i] : maxb;
        void *part[2] = { sched_alloc(s, maxb * es), sched_alloc(s, maxb * es) };
        int right = (r + 1) % p, left = (r - 1 + p) % p;
        /* Step k: send the partial of block r-k-1, receive that of block
         * r-k-2 and add this rank's input block to it; the partial received
         * at the last step is block r's.  rbuf is written only after the
         * last input block has been read (in place it is the input). */
        for (int k = 0; k <= p - 2; k++) {
            int sb = (r - k - 1 + p) % p, rb = (r - k - 2 + 2 * p) % p;
            const void *out = k == 0 ? COLL_CAT(in, off[sb], es) : part[(k - 1) & 1];
            if (a->rcounts[sb]) sched_send(s, right, out, a->rcounts[sb] * es);
            size_t rn = a->rcounts[rb];
            if (rn) {
                sched_recv(s, left, part[k & 1], rn * es);
                if (k < p - 2)
                    sched_reduce(s, part[k & 1], COLL_CAT(in, off[rb], es), rn, a->dt, op);
            }
            sched_round(s);
        }
        /* block r: its partial (ranks r+1 .. r-1 around the ring) plus this
         * rank's input; copied out of input before rbuf is written */
        if (mine) {
            int last = (p - 2) & 1;
            sched_reduce(s, part[last], COLL_CAT(in, off[r], es), mine, a->dt, op);
            sched_copy(s, a->rbuf, part[last], mine * es);
            sched_round(s);
        }
    }
    if (a->op == PLX_AVG && mine) sched_avg(s, a->rbuf, mine, a->dt, p);
    return PLX_SUCCESS;
}

plx_status_t coll_reduce_scatterv_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt);
    plx_op_t op = coll_reduce_op(a->op);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    size_t *off = block_offsets(s, a, p);
    if (!off) return PLX_SUCCESS;
    size_t total = off[p], mine = a->rcounts[r];
    if (p == 1) {
        self_result(s, a, in, mine, es);
    } else {
        void *acc = sched_alloc(s, r == 0 || !(r & 1) ? total * es : 0);
        const void *res = coll_phase_ordered_reduce0(s, comm, in, acc, total, a->dt, op);
        if (r == 0) {
            for (int i = 1; i < p; i++)
                if (a->rcounts[i]) sched_send(s, i, COLL_CAT(res, off[i], es), a->rcounts[i] * es);
            if (mine) sched_copy(s, a->rbuf, res, mine * es);
        } else if (mine) {
            sched_recv(s, 0, a->rbuf, mine * es);
        }
        sched_round(s);
    }
    if (a->op == PLX_AVG && mine) sched_avg(s, a->rbuf, mine, a->dt, p);
    return PLX_SUCCESS;
}
