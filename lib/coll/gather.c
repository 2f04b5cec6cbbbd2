/*
 * lib/coll/gather.c — gather: root's recvbuf gets block r from rank r.
 *
 *   linear    every rank sends its block straight to root, which posts all
 *             receives at once: one step, root receives size-1 messages;
 *             for large blocks.
 *   binomial  a binomial tree toward root, each rank forwarding its whole
 *             subtree's blocks in one message: ceil(log2 size) steps, for
 *             small blocks.
 *
 * A non-root never touches recvbuf (ignored there by the API).
 */
#include "coll.h"

static plx_status_t gather_self(plx_sched_t *s, const coll_args_t *a, size_t bytes)
{
    if (!coll_in_place(a->sbuf)) sched_copy(s, a->rbuf, a->sbuf, bytes);
    return PLX_SUCCESS;
}

/* ---- linear ---------------------------------------------------------------------------- */
plx_status_t coll_gather_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;
    if (p == 1) return gather_self(s, a, bytes);

    if (r != root) {
        sched_send(s, root, a->sbuf, bytes);
    } else {
        char *out = a->rbuf;
        for (int k = 1; k < p; k++) {
            int i = (root + k) % p;
            sched_recv(s, i, out + (size_t)i * bytes, bytes);
        }
        if (!coll_in_place(a->sbuf)) sched_copy(s, out + (size_t)root * bytes, a->sbuf, bytes);
    }
    sched_round(s);
    return PLX_SUCCESS;
}

/* ---- binomial ---------------------------------------------------------------------------
 * Relative rank vr gathers the blocks of relative ranks [vr, vr+sub) (its
 * subtree) in relative order, from children vr + m (m a power of two below
 * lowbit(vr)), then sends them to its parent in one message.  A non-root
 * with children collects in scratch; a leaf sends sendbuf as it is; root
 * receives straight into recvbuf, which is in absolute order, so a child's
 * range that wraps past rank size-1 comes as two messages (coll_rel_runs). */
plx_status_t coll_gather_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;
    if (p == 1) return gather_self(s, a, bytes);

    int vr = (r - root + p) % p;
    int low = coll_lowbit(vr, p);
    int sub = vr == 0 ? p : (low < p - vr ? low : p - vr);   /* my subtree's size */
    int start[2], len[2];

    if (vr == 0) {
        char *out = a->rbuf;
        for (int m = 1; m < p; m <<= 1) {
            int c = m, csub = m < p - c ? m : p - c;
            int runs = coll_rel_runs(c, csub, root, p, start, len);
            for (int i = 0; i < runs; i++)
                sched_recv(s, (c + root) % p, out + (size_t)start[i] * bytes, (size_t)len[i] * bytes);
        }
        if (!coll_in_place(a->sbuf)) sched_copy(s, out + (size_t)root * bytes, a->sbuf, bytes);
        sched_round(s);
        return PLX_SUCCESS;
    }

    const char *mine = a->sbuf;               /* what goes to the parent */
    if (sub > 1) {
        char *tmp = sched_alloc(s, (size_t)sub * bytes);
        for (int m = 1; m < low && vr + m < p; m <<= 1) {
            int c = vr + m, csub = m < p - c ? m : p - c;
            sched_recv(s, (c + root) % p, tmp + (size_t)m * bytes, (size_t)csub * bytes);
        }
        sched_copy(s, tmp, a->sbuf, bytes);
        sched_round(s);
        mine = tmp;
    }
    int parent = vr - low;
    if (parent == 0) {                        /* root's buffer is absolute: split where it wraps */
        int runs = coll_rel_runs(vr, sub, root, p, start, len);
        size_t off = 0;
        for (int i = 0; i < runs; i++) {
            sched_send(s, root, mine + off, (size_t)len[i] * bytes);
            off += (size_t)len[i] * bytes;
        }
    } else {
        sched_send(s, (parent + root) % p, mine, (size_t)sub * bytes);
    }
    sched_round(s);
    return PLX_SUCCESS;
}
