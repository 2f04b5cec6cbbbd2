/*
 * lib/coll/reduce_scatter.c — reduce_scatter with equal blocks: every rank
 * contributes size*count elements and rank r gets block r of the sum.
 *
 *   ring               size-1 steps, each moving one block to the right
 *                      neighbour and adding it: bandwidth-optimal, for
 *                      large blocks.
 *   recursive_halving  log2(size) steps exchanging halves with a partner:
 *                      fewer messages, for small blocks.
 *
 * It also holds the two phases that allreduce (Rabenseifner) and reduce
 * (reduce_scatter_gather) borrow: the fold of a non-power-of-two size and
 * the recursive-halving reduce-scatter itself (declared in coll.h).
 */
#include "coll.h"

/* ---- shared phases ------------------------------------------------------------ */

void coll_phase_fold_in(plx_sched_t *s, const coll_fold_t *f, const void **cur, void *acc,
                        void *tmp, size_t count, plx_dtype_t dt, plx_op_t op)
{
    if (f->vr >= 2 * f->rem) return;          /* not in a pair: nothing to fold */
    size_t bytes = count * plx_dtype_size(dt);
    if (f->vr & 1) {
        sched_send(s, coll_fold_abs(f, f->vr - 1), *cur, bytes);
    } else {
        sched_recv(s, coll_fold_abs(f, f->vr + 1), tmp, bytes);
        sched_reduce3(s, acc, *cur, tmp, count, dt, op);
        *cur = acc;
    }
    sched_round(s);
}

void coll_phase_rs_halving(plx_sched_t *s, const coll_fold_t *f, const void *cur, void *acc,
                           void *tmp, const size_t *pdisp, plx_dtype_t dt, plx_op_t op)
{
    size_t es = plx_dtype_size(dt);
    int lo = 0, hi = f->p2;                   /* parts this rank still reduces */
    for (int mask = f->p2 >> 1; mask > 0; mask >>= 1) {
        int peer = coll_fold_rank(f, f->newrank ^ mask);
        int mid = lo + mask;
        /* The group rank's bit picks the half it keeps, high bits first, so
         * after the last step rank g keeps exactly part g. */
        int keep_lo = (f->newrank & mask) ? mid : lo, keep_hi = (f->newrank & mask) ? hi : mid;
        int give_lo = (f->newrank & mask) ? lo : mid, give_hi = (f->newrank & mask) ? mid : hi;
        size_t ko = pdisp[keep_lo], kn = pdisp[keep_hi] - ko;
        size_t go = pdisp[give_lo], gn = pdisp[give_hi] - go;
        if (gn) sched_send(s, peer, COLL_CAT(cur, go, es), gn * es);
        if (kn) {
            sched_recv(s, peer, tmp, kn * es);
            if (cur == acc)
                sched_reduce(s, COLL_AT(acc, ko, es), tmp, kn, dt, op);
            else
                sched_reduce3(s, COLL_AT(acc, ko, es), COLL_CAT(cur, ko, es), tmp, kn, dt, op);
        }
        sched_round(s);
        cur = acc;                            /* everything still needed is in acc now */
        lo = keep_lo;
        hi = keep_hi;
    }
}

/* ---- size 1 ---------------------------------------------------------------------- */

static plx_status_t rs_self(plx_sched_t *s, const coll_args_t *a, size_t bytes)
{
    if (!coll_in_place(a->sbuf)) sched_copy(s, a->rbuf, a->sbuf, bytes);
    return PLX_SUCCESS;
}

/* ---- ring ------------------------------------------------------------------------
 * Step k (0 .. p-2): send the partial sum of block r-k-1 to the right,
 * receive the partial of block r-k-2 from the left and add this rank's own
 * input block to it.  The partial received at the last step is block r
 * itself, complete.  A partial only lives for one step, so two alternating
 * scratch blocks suffice, whatever the size. */
plx_status_t coll_reduce_scatter_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return rs_self(s, a, bytes);

    /* In place the input is in rbuf; its block 0 is only overwritten by the
     * last step, after every other input block has been consumed. */
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    void *part[2] = { sched_alloc(s, bytes), sched_alloc(s, bytes) };
    int right = (r + 1) % p, left = (r - 1 + p) % p;

    for (int k = 0; k <= p - 2; k++) {
        int sb = (r - k - 1 + p) % p, rb = (r - k - 2 + 2 * p) % p;
        const void *out = k == 0 ? COLL_CAT(in, (size_t)sb * n, es) : part[(k - 1) & 1];
        sched_send(s, right, out, bytes);
        sched_recv(s, left, part[k & 1], bytes);
        if (k < p - 2)
            sched_reduce(s, part[k & 1], COLL_CAT(in, (size_t)rb * n, es), n, a->dt, op);
        else /* rb == r: the finished block goes straight to rbuf */
            sched_reduce3(s, a->rbuf, COLL_CAT(in, (size_t)r * n, es), part[k & 1], n, a->dt, op);
        sched_round(s);
    }
    if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    return PLX_SUCCESS;
}

/* ---- recursive halving -------------------------------------------------------------
 * Fold to a power of two (coll_fold_t), halve: group rank g ends up with
 * part g, which is the block of every rank it stands for (two adjacent
 * blocks for a pair, so parts are contiguous), then a pair's survivor hands
 * its partner's block back. */
plx_status_t coll_reduce_scatter_recursive_halving(plx_sched_t *s, plx_comm_t comm,
                                                   const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es, total = (size_t)p * n;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return rs_self(s, a, bytes);

    coll_fold_t f;
    coll_fold_init(&f, r, p, 0);
    int in_place = coll_in_place(a->sbuf);
    const void *cur = in_place ? a->rbuf : a->sbuf;
    /* acc collects partial sums of the whole vector: rbuf itself in place
     * (it holds size*count elements then), scratch otherwise. */
    void *acc = in_place ? a->rbuf : NULL;

    if (f.newrank < 0) {
        /* Folded out: contribute everything, then get this rank's block. */
        coll_phase_fold_in(s, &f, &cur, NULL, NULL, total, a->dt, op);
        sched_recv(s, coll_fold_abs(&f, f.vr - 1), a->rbuf, bytes);
        if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
        sched_round(s);
        return PLX_SUCCESS;
    }

    if (!acc) acc = sched_alloc(s, total * es);
    void *tmp = sched_alloc(s, total * es);
    size_t *pdisp = sched_alloc(s, ((size_t)f.p2 + 1) * sizeof *pdisp);
    if (!pdisp) return PLX_SUCCESS;           /* recorded: sched_start reports it */
    for (int g = 0; g <= f.p2; g++) {
        int first = g < f.rem ? 2 * g : g + f.rem;  /* first rank group rank g stands for */
        pdisp[g] = (size_t)first * n;
    }

    coll_phase_fold_in(s, &f, &cur, acc, tmp, total, a->dt, op);
    coll_phase_rs_halving(s, &f, cur, acc, tmp, pdisp, a->dt, op);
    if (f.vr < 2 * f.rem) sched_send(s, r + 1, COLL_CAT(acc, (size_t)(r + 1) * n, es), bytes);
    sched_copy(s, a->rbuf, COLL_CAT(acc, (size_t)r * n, es), bytes);  /* no-op for rank 0 in place */
    if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    sched_round(s);
    return PLX_SUCCESS;
}
