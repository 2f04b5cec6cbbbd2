/*
 * lib/coll/allreduce.c — allreduce: every rank gets the reduction of every
 * rank's vector.
 *
 *   recursive_doubling  log2(size) steps, each exchanging the whole vector
 *                       with a partner and reducing: fewest steps, for
 *                       small vectors (latency bound).
 *   ring                reduce-scatter around a ring, then allgather
 *                       around it: 2(size-1) steps moving 1/size of the
 *                       vector each, bandwidth-optimal, for large vectors.
 *   rabenseifner        recursive-halving reduce-scatter, then
 *                       recursive-doubling allgather: bandwidth-optimal
 *                       with log2(size) steps, for medium-large vectors.
 *
 * Non-powers of two use the fold described at coll_fold_t (coll.h).  AVG is
 * summed and divided once at the end (by each block's owner before the
 * allgather, so every rank ends with the same bits).
 */
#include "coll.h"

/* Size 1: the result is the input. */
static plx_status_t allreduce_self(plx_sched_t *s, const coll_args_t *a, size_t bytes)
{
    if (!coll_in_place(a->sbuf)) sched_copy(s, a->rbuf, a->sbuf, bytes);
    return PLX_SUCCESS;
}

/* After the power-of-two phase: a pair's survivor sends the finished vector
 * to the partner that folded out. */
static void fold_out(plx_sched_t *s, const coll_fold_t *f, void *buf, size_t bytes)
{
    if (f->vr >= 2 * f->rem) return;
    if (f->vr & 1)
        sched_recv(s, coll_fold_abs(f, f->vr - 1), buf, bytes);
    else
        sched_send(s, coll_fold_abs(f, f->vr + 1), buf, bytes);
    sched_round(s);
}

/* ---- recursive doubling ---------------------------------------------------------- */
plx_status_t coll_allreduce_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return allreduce_self(s, a, bytes);

    coll_fold_t f;
    coll_fold_init(&f, comm->rank, p, 0);
    /* cur is this rank's running result: the user's input until the first
     * reduction writes rbuf (so the input is never copied, nor written). */
    const void *cur = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    void *tmp = f.newrank >= 0 ? sched_alloc(s, bytes) : NULL;

    coll_phase_fold_in(s, &f, &cur, a->rbuf, tmp, n, a->dt, op);
    if (f.newrank >= 0) {
        for (int mask = 1; mask < f.p2; mask <<= 1) {
            int peer = coll_fold_rank(&f, f.newrank ^ mask);
            sched_send(s, peer, cur, bytes);
            sched_recv(s, peer, tmp, bytes);
            /* The lower group half's partial goes first: group ranks stand
             * for runs of consecutive ranks, so the result is in rank order
             * (non-commutative user ops) and both partners compute the
             * same operands in the same order, hence the same bits. */
            if (f.newrank & mask)
                sched_reduce3(s, a->rbuf, tmp, cur, n, a->dt, op);
            else if (cur == a->rbuf)
                sched_reduce(s, a->rbuf, tmp, n, a->dt, op);
            else
                sched_reduce3(s, a->rbuf, cur, tmp, n, a->dt, op);
            cur = a->rbuf;
            sched_round(s);
        }
        if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, p);
        sched_round(s);
    }
    fold_out(s, &f, a->rbuf, bytes);
    return PLX_SUCCESS;
}

/* ---- ring ---------------------------------------------------------------------------
 * The vector is cut into size blocks (sizes differ by at most one element;
 * some are empty when count < size).  Reduce-scatter step k sends the
 * partial of block r-k-1 right and adds the partial of block r-k-2 from the
 * left into rbuf, so rank r finishes block r; allgather step k then sends
 * block r-k right and stores block r-k-1 from the left. */
plx_status_t coll_allreduce_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t n = a->count, es = plx_dtype_size(a->dt);
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return allreduce_self(s, a, n * es);

    int in_place = coll_in_place(a->sbuf);
    const char *in = in_place ? a->rbuf : a->sbuf;
    char *out = a->rbuf;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    void *tmp = sched_alloc(s, coll_block_len(n, p, 0) * es);   /* block 0 is the largest */

    for (int k = 0; k <= p - 2; k++) {
        int sb = (r - k - 1 + p) % p, rb = (r - k - 2 + 2 * p) % p;
        size_t so = coll_block_off(n, p, sb), sn = coll_block_len(n, p, sb);
        size_t ro = coll_block_off(n, p, rb), rn = coll_block_len(n, p, rb);
        /* step 0 sends untouched input; later steps send what the previous one reduced */
        if (sn) sched_send(s, right, (k == 0 ? in : out) + so * es, sn * es);
        if (rn) {
            sched_recv(s, left, tmp, rn * es);
            if (in_place)
                sched_reduce(s, out + ro * es, tmp, rn, a->dt, op);
            else
                sched_reduce3(s, out + ro * es, in + ro * es, tmp, rn, a->dt, op);
        }
        sched_round(s);
    }
    if (a->op == PLX_AVG)
        sched_avg(s, out + coll_block_off(n, p, r) * es, coll_block_len(n, p, r), a->dt, p);
    sched_round(s);

    for (int k = 0; k <= p - 2; k++) {
        int sb = (r - k + p) % p, rb = (r - k - 1 + p) % p;
        size_t sn = coll_block_len(n, p, sb), rn = coll_block_len(n, p, rb);
        if (sn) sched_send(s, right, out + coll_block_off(n, p, sb) * es, sn * es);
        if (rn) sched_recv(s, left, out + coll_block_off(n, p, rb) * es, rn * es);
        sched_round(s);
    }
    return PLX_SUCCESS;
}

/* ---- Rabenseifner -----------------------------------------------------------------
 * Fold to a power of two, recursive-halving reduce-scatter (group rank g
 * finishes part g of p2 parts), recursive-doubling allgather of the parts
 * (the halving run backwards), unfold. */
plx_status_t coll_allreduce_rabenseifner(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size;
    size_t n = a->count, es = plx_dtype_size(a->dt), bytes = n * es;
    plx_op_t op = coll_reduce_op(a->op);
    if (n == 0) return PLX_SUCCESS;
    if (p == 1) return allreduce_self(s, a, bytes);

    coll_fold_t f;
    coll_fold_init(&f, comm->rank, p, 0);
    const void *cur = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    char *out = a->rbuf;

    if (f.newrank < 0) {
        coll_phase_fold_in(s, &f, &cur, NULL, NULL, n, a->dt, op);
        fold_out(s, &f, out, bytes);
        return PLX_SUCCESS;
    }

    void *tmp = sched_alloc(s, bytes);
    size_t *pdisp = sched_alloc(s, ((size_t)f.p2 + 1) * sizeof *pdisp);
    if (!pdisp) return PLX_SUCCESS;           /* recorded: sched_start reports it */
    for (int g = 0; g <= f.p2; g++) pdisp[g] = coll_block_off(n, f.p2, g);

    coll_phase_fold_in(s, &f, &cur, out, tmp, n, a->dt, op);
    coll_phase_rs_halving(s, &f, cur, out, tmp, pdisp, a->dt, op);
    if (a->op == PLX_AVG) {
        size_t o = pdisp[f.newrank];
        sched_avg(s, out + o * es, pdisp[f.newrank + 1] - o, a->dt, p);
        sched_round(s);
    }

    /* Recursive doubling allgather: before the step with this mask the rank
     * holds the mask parts starting at its group rank with the low bits
     * cleared; the partner holds the neighbouring run of the same length. */
    for (int mask = 1; mask < f.p2; mask <<= 1) {
        int peer = coll_fold_rank(&f, f.newrank ^ mask);
        int mine = f.newrank & ~(mask - 1), theirs = mine ^ mask;
        size_t mo = pdisp[mine], mn = pdisp[mine + mask] - mo;
        size_t to = pdisp[theirs], tn = pdisp[theirs + mask] - to;
        if (mn) sched_send(s, peer, out + mo * es, mn * es);
        if (tn) sched_recv(s, peer, out + to * es, tn * es);
        sched_round(s);
    }
    fold_out(s, &f, out, bytes);
    return PLX_SUCCESS;
}
