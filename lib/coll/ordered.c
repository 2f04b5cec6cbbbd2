/*
 * lib/coll/ordered.c — reductions that combine in rank order, for
 * non-commutative user ops (plx_op_create with commutative = 0), which the
 * selector sends here when every faster algorithm is marked as needing a
 * commutative op.
 *
 *   reduce ordered          binomial tree over absolute ranks to rank 0,
 *                           each rank combining its own (lower) range op
 *                           its child's (higher) range, then one message
 *                           from rank 0 to root when root != 0.
 *   reduce_scatter ordered  the same tree reduction of the whole vector,
 *                           then rank 0 sends every rank its block.
 *
 * Any associative op gives in[0] op in[1] op ... op in[p-1]: a subtree of
 * rank v spans the consecutive ranks [v, v + lowbit(v)), and children are
 * visited in increasing order, each adding the range right after the
 * ranks already combined.
 */
#include "coll.h"

const void *coll_phase_ordered_reduce0(plx_sched_t *s, plx_comm_t comm, const void *in, void *acc,
                                       size_t n, plx_dtype_t dt, plx_op_t op)
{
    int p = comm->size, r = comm->rank;
    size_t bytes = n * plx_dtype_size(dt);
    const void *cur = in;
    void *tmp = NULL;
    int mask;
    for (mask = 1; mask < p && !(r & mask); mask <<= 1) {
        int child = r + mask;
        if (child >= p) break;                /* larger masks are past the end too */
        if (!tmp) tmp = sched_alloc(s, bytes);
        sched_recv(s, child, tmp, bytes);
        if (cur == acc)
            sched_reduce(s, acc, tmp, n, dt, op);
        else
            sched_reduce3(s, acc, cur, tmp, n, dt, op);
        cur = acc;
        sched_round(s);
    }
    if (r != 0) {
        while (!(r & mask)) mask <<= 1;       /* (left the loop at a child past the end) */
        sched_send(s, r - mask, cur, bytes);
        sched_round(s);
    }
    return cur;
}

plx_status_t coll_reduce_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (p == 1) {
        if (in != a->rbuf) sched_copy(s, a->rbuf, in, bytes);
    } else {
        /* rank 0 accumulates in rbuf when it is root, else in scratch; a
         * non-root never touches rbuf */
        void *acc = (r == 0 && root == 0) ? a->rbuf : sched_alloc(s, bytes);
        const void *res = coll_phase_ordered_reduce0(s, comm, in, acc, n, a->dt, op);
        if (root != 0) {
            if (r == 0) sched_send(s, root, res, bytes);
            if (r == root) sched_recv(s, 0, a->rbuf, bytes);
            sched_round(s);
        } else if (r == 0 && res != a->rbuf) {
            sched_copy(s, a->rbuf, res, bytes);   /* only when rank 0 had no child */
        }
    }
    if (r == root && a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    return PLX_SUCCESS;
}

plx_status_t coll_reduce_scatter_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es, total = (size_t)p * n;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (p == 1) {
        if (in != a->rbuf) sched_copy(s, a->rbuf, in, bytes);
    } else {
        void *acc = sched_alloc(s, r == 0 || !(r & 1) ? total * es : 0);
        const void *res = coll_phase_ordered_reduce0(s, comm, in, acc, total, a->dt, op);
        if (r == 0) {
            for (int i = 1; i < p; i++) sched_send(s, i, COLL_CAT(res, (size_t)i * n, es), bytes);
            sched_copy(s, a->rbuf, res, bytes);
        } else {
            sched_recv(s, 0, a->rbuf, bytes);
        }
        sched_round(s);
    }
    if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
    return PLX_SUCCESS;
}
