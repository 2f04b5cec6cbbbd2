/*
 * lib/coll/bcast.c — bcast: root's buffer to every rank.
 *
 *   binomial           a binomial tree from root: ceil(log2 size) steps of
 *                      the whole buffer, for small buffers.
 *   scatter_allgather  van de Geijn: scatter the buffer in size blocks down
 *                      a binomial tree, then allgather them around a ring;
 *                      every rank sends and receives about 2x the buffer in
 *                      total instead of log2(size)x, for large buffers.
 *
 * Ranks are relative to root (vr = rank - root mod size).  The buffer is
 * a->rbuf.  Root's buffer is only read.
 */
#include "coll.h"

/* ---- binomial -------------------------------------------------------------------
 * vr receives from vr - lowbit(vr), then sends to vr + m for every power of
 * two m below lowbit(vr), the largest subtree first. */
plx_status_t coll_bcast_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, root = a->root;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    void *buf = a->rbuf;
    if (bytes == 0 || p == 1) return PLX_SUCCESS;

    int vr = (comm->rank - root + p) % p;
    int low = coll_lowbit(vr, p);
    if (vr) {
        sched_recv(s, (vr - low + root) % p, buf, bytes);
        sched_round(s);
    }
    for (int m = low >> 1; m > 0; m >>= 1)
        if (vr + m < p) sched_send(s, (vr + m + root) % p, buf, bytes);
    sched_round(s);
    return PLX_SUCCESS;
}

/* ---- scatter + ring allgather -------------------------------------------------------
 * Block j (j = 0 .. size-1, sizes differ by at most one element, possibly
 * empty) belongs to relative rank j.  Blocks are numbered by relative rank
 * so that every subtree of the scatter tree owns a contiguous byte range.
 * Zero-length pieces are skipped on both sides (their size is known to
 * both). */
plx_status_t coll_bcast_scatter_allgather(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, root = a->root;
    size_t n = a->count, es = plx_dtype_size(a->dt);
    char *buf = a->rbuf;
    if (n == 0 || p == 1) return PLX_SUCCESS;

    int vr = (comm->rank - root + p) % p;
    int low = coll_lowbit(vr, p);
#define BLK(j) (coll_block_off(n, p, (j)) * es)          /* byte offset of block j */
#define END(j) ((j) < p ? BLK(j) : n * es)               /* ... clamped to the end */

    /* Scatter: receive my subtree's blocks [vr, vr+low), pass on the children's. */
    if (vr) {
        size_t lo = BLK(vr), hi = END(vr + low);
        if (hi > lo) sched_recv(s, (vr - low + root) % p, buf + lo, hi - lo);
        sched_round(s);
    }
    for (int m = low >> 1; m > 0; m >>= 1) {
        int c = vr + m;
        if (c >= p) continue;
        size_t lo = BLK(c), hi = END(c + m);
        if (hi > lo) sched_send(s, (c + root) % p, buf + lo, hi - lo);
    }
    sched_round(s);

    /* Ring allgather: step k sends block vr-k right, receives block vr-k-1
     * from the left.  Root already has everything, so the rank left of it
     * does not send to it (and root receives nothing). */
    int right = (vr + 1) % p, left = (vr - 1 + p) % p;
    for (int k = 0; k <= p - 2; k++) {
        int sb = (vr - k + p) % p, rb = (vr - k - 1 + p) % p;
        size_t so = BLK(sb), sn = END(sb + 1) - so;
        size_t ro = BLK(rb), rn = END(rb + 1) - ro;
        if (right != 0 && sn) sched_send(s, (right + root) % p, buf + so, sn);
        if (vr != 0 && rn) sched_recv(s, (left + root) % p, buf + ro, rn);
        sched_round(s);
    }
#undef BLK
#undef END
    return PLX_SUCCESS;
}
