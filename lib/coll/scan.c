/*
 * lib/coll/scan.c — scan and exscan: prefix reductions in rank order.
 * Rank r gets in[0] op ... op in[r] (scan) or in[0] op ... op in[r-1]
 * (exscan; rank 0 gets nothing).  Every algorithm here keeps rank order,
 * so non-commutative user ops work everywhere.
 *
 *   recursive_doubling  log2 p rounds; in round k rank r swaps its
 *                       partial (the combination of its aligned group of
 *                       2^k ranks) with r ^ 2^k and, when the partner is
 *                       lower, puts the partner's partial in front of its
 *                       result; moves the vector log2 p times; the default.
 *   linear              a chain: rank r waits for r-1's prefix, combines
 *                       and passes it on; each rank moves the vector once
 *                       but the chain is p-1 messages long.
 *
 * AVG is summed and divided by the number of ranks combined (r + 1 for
 * scan, r for exscan).
 */
#include "coll.h"

static void avg_finish(plx_sched_t *s, const coll_args_t *a, int ranks)
{
    if (a->op == PLX_AVG && ranks > 1) {
        sched_avg(s, a->rbuf, a->count, a->dt, ranks);
        sched_round(s);
    }
}

/* exclusive = 0: scan, 1: exscan. */
static plx_status_t prefix_rd(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a, int exclusive)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (n == 0) return PLX_SUCCESS;
    void *partial = sched_alloc(s, bytes), *tmp = sched_alloc(s, bytes);
    /* partial starts as the input; the scan's result too (the exscan's
     * result starts empty: have_result = 0) */
    sched_copy(s, partial, in, bytes);
    if (!exclusive && in != a->rbuf) sched_copy(s, a->rbuf, in, bytes);
    sched_round(s);
    int have_result = !exclusive;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= p) continue;
        sched_send(s, peer, partial, bytes);
        sched_recv(s, peer, tmp, bytes);
        if (peer < r) {
            /* the peer's ranks come before all of mine */
            if (have_result)
                sched_reduce3(s, a->rbuf, tmp, a->rbuf, n, a->dt, op);
            else
                sched_copy(s, a->rbuf, tmp, bytes);
            have_result = 1;
            sched_reduce3(s, partial, tmp, partial, n, a->dt, op);
        } else {
            sched_reduce(s, partial, tmp, n, a->dt, op);
        }
        sched_round(s);
    }
    avg_finish(s, a, exclusive ? r : r + 1);
    return PLX_SUCCESS;
}

plx_status_t coll_scan_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    return prefix_rd(s, comm, a, 0);
}

plx_status_t coll_exscan_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    return prefix_rd(s, comm, a, 1);
}

plx_status_t coll_scan_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (n == 0) return PLX_SUCCESS;
    if (r == 0) {
        if (in != a->rbuf) sched_copy(s, a->rbuf, in, bytes);
    } else {
        void *tmp = sched_alloc(s, bytes);
        sched_recv(s, r - 1, tmp, bytes);
        sched_reduce3(s, a->rbuf, tmp, in, n, a->dt, op);
    }
    sched_round(s);
    if (r + 1 < p) {
        sched_send(s, r + 1, a->rbuf, bytes);   /* the undivided sum: AVG divides after */
        sched_round(s);
    }
    avg_finish(s, a, r + 1);
    return PLX_SUCCESS;
}

plx_status_t coll_exscan_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (n == 0) return PLX_SUCCESS;
    if (r == 0) {
        if (p > 1) sched_send(s, 1, in, bytes);
        sched_round(s);
        return PLX_SUCCESS;
    }
    if (in == a->rbuf) {                      /* in place: keep the input from the arrival */
        void *copy = sched_alloc(s, bytes);
        sched_copy(s, copy, in, bytes);
        sched_round(s);
        in = copy;
    }
    sched_recv(s, r - 1, a->rbuf, bytes);
    sched_round(s);
    if (r + 1 < p) {
        void *next = sched_alloc(s, bytes);
        sched_reduce3(s, next, a->rbuf, in, n, a->dt, op);
        sched_round(s);
        sched_send(s, r + 1, next, bytes);
        sched_round(s);
    }
    avg_finish(s, a, r);
    return PLX_SUCCESS;
}
