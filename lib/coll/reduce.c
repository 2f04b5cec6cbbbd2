/*
 * lib/coll/reduce.c — reduce: root gets the reduction of every rank's
 * vector.  Every op of plexus.h is commutative, which both algorithms rely
 * on (they combine contributions in tree order, not rank order).
 *
 *   binomial               a binomial tree toward root: log2(size) steps
 *                          of whole vectors, for small vectors.
 *   reduce_scatter_gather  recursive-halving reduce-scatter, then a
 *                          binomial gather of the finished parts to root
 *                          (Rabenseifner's reduce): each rank moves about
 *                          2x the vector in total, for large vectors.
 *
 * Ranks are relative to root (vr = rank - root mod size).  A non-root never
 * touches recvbuf (the API says it is ignored there): its partial results
 * live in scratch memory.
 */
#include "coll.h"

/* Size 1: the result is the input. */
static plx_status_t reduce_self(plx_sched_t *s, const coll_args_t *a, size_t bytes)
{
    if (!coll_in_place(a->sbuf)) sched_copy(s, a->rbuf, a->sbuf, bytes);
    return PLX_SUCCESS;
}

/* ---- binomial --------------------------------------------------------------------
 * Relative rank vr receives from its children vr + 1, vr + 2, vr + 4, ...
 * (below its lowest set bit) one round each, reducing as each arrives, then
 * sends its partial to its parent vr - lowbit(vr). */
plx_status_t coll_reduce_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return reduce_self(s, a, bytes);

    int vr = (r - root + p) % p;
    const void *cur = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;   /* running partial */
    void *acc = r == root ? a->rbuf : NULL;   /* where partials are written */
    void *tmp = NULL;
    int mask;
    for (mask = 1; mask < p && !(vr & mask); mask <<= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        if (!tmp) tmp = sched_alloc(s, bytes);
        if (!acc) acc = sched_alloc(s, bytes);
        sched_recv(s, (child + root) % p, tmp, bytes);
        if (cur == acc)
            sched_reduce(s, acc, tmp, n, a->dt, op);
        else
            sched_reduce3(s, acc, cur, tmp, n, a->dt, op);
        cur = acc;
        sched_round(s);
    }
    if (vr == 0) {
        if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    } else {
        sched_send(s, (vr - mask + root) % p, cur, bytes);
    }
    sched_round(s);
    return PLX_SUCCESS;
}

/* ---- reduce-scatter + gather ------------------------------------------------------
 * Fold (relative to root, so root stays in the group as group rank 0),
 * recursive-halving reduce-scatter of p2 parts, then a binomial gather in
 * the group: at the step with this mask, a rank with that bit set sends the
 * mask parts it holds (starting at its own) to group rank - mask and stops;
 * the others receive them next to their own. */
plx_status_t coll_reduce_scatter_gather(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return reduce_self(s, a, bytes);

    coll_fold_t f;
    coll_fold_init(&f, r, p, a->root);
    const void *cur = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;

    if (f.newrank < 0) {                      /* contribute, and that is all */
        coll_phase_fold_in(s, &f, &cur, NULL, NULL, n, a->dt, op);
        return PLX_SUCCESS;
    }

    char *acc = r == a->root ? a->rbuf : sched_alloc(s, bytes);
    void *tmp = sched_alloc(s, bytes);
    size_t *pdisp = sched_alloc(s, ((size_t)f.p2 + 1) * sizeof *pdisp);
    if (!pdisp) return PLX_SUCCESS;           /* recorded: sched_start reports it */
    for (int g = 0; g <= f.p2; g++) pdisp[g] = coll_block_off(n, f.p2, g);

    coll_phase_fold_in(s, &f, &cur, acc, tmp, n, a->dt, op);
    coll_phase_rs_halving(s, &f, cur, acc, tmp, pdisp, a->dt, op);

    for (int mask = 1; mask < f.p2; mask <<= 1) {
        int g = f.newrank;
        if (g & mask) {
            size_t o = pdisp[g], len = pdisp[g + mask] - o;
            if (len) sched_send(s, coll_fold_rank(&f, g - mask), acc + o * es, len * es);
            sched_round(s);
            break;
        }
        size_t o = pdisp[g + mask], len = pdisp[g + 2 * mask] - o;
        if (len) sched_recv(s, coll_fold_rank(&f, g + mask), acc + o * es, len * es);
        sched_round(s);
    }
    if (r == a->root && a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    return PLX_SUCCESS;
}
