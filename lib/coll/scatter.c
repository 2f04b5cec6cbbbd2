/*
 * lib/coll/scatter.c — scatter: block r of root's sendbuf goes to rank r.
 *
 *   linear    root posts one send per rank at once: one step; for large
 *             blocks.
 *   binomial  a binomial tree from root, each rank receiving its whole
 *             subtree's blocks in one message and passing on the
 *             children's: ceil(log2 size) steps, for small blocks.
 *
 * A non-root never touches sendbuf (ignored there by the API).  Root with
 * recvbuf == PLX_IN_PLACE leaves its own block where it is.
 */
#include "coll.h"

static void scatter_own(plx_sched_t *s, const coll_args_t *a, int root, size_t bytes)
{
    if (!coll_in_place(a->rbuf))
        sched_copy(s, a->rbuf, (const char *)a->sbuf + (size_t)root * bytes, bytes);
}

/* ---- linear ---------------------------------------------------------------------------- */
plx_status_t coll_scatter_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;

    if (r != root) {
        sched_recv(s, root, a->rbuf, bytes);
    } else {
        const char *in = a->sbuf;
        for (int k = 1; k < p; k++) {
            int i = (root + k) % p;
            sched_send(s, i, in + (size_t)i * bytes, bytes);
        }
        scatter_own(s, a, root, bytes);
    }
    sched_round(s);
    return PLX_SUCCESS;
}

/* ---- binomial ---------------------------------------------------------------------------
 * The mirror of gather's binomial tree: relative rank vr receives the
 * blocks of relative ranks [vr, vr+sub) from vr - lowbit(vr), keeps the
 * first and sends each child vr + m its subtree's run, the largest first.
 * Root sends from sendbuf, in absolute order, so a run that wraps past rank
 * size-1 goes as two messages (coll_rel_runs); a leaf receives straight
 * into recvbuf, an inner rank into scratch. */
plx_status_t coll_scatter_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank, root = a->root;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    if (bytes == 0) return PLX_SUCCESS;

    int vr = (r - root + p) % p;
    int low = coll_lowbit(vr, p);
    int sub = vr == 0 ? p : (low < p - vr ? low : p - vr);
    int start[2], len[2];

    if (vr == 0) {
        const char *in = a->sbuf;
        for (int m = low >> 1; m > 0; m >>= 1) {
            int c = m, csub = m < p - c ? m : p - c;
            int runs = coll_rel_runs(c, csub, root, p, start, len);
            for (int i = 0; i < runs; i++)
                sched_send(s, (c + root) % p, in + (size_t)start[i] * bytes, (size_t)len[i] * bytes);
        }
        scatter_own(s, a, root, bytes);
        sched_round(s);
        return PLX_SUCCESS;
    }

    int parent = (vr - low + root) % p;
    char *tmp = sub > 1 ? sched_alloc(s, (size_t)sub * bytes) : a->rbuf;
    if (vr - low == 0) {                      /* from root: split where its buffer wraps */
        int runs = coll_rel_runs(vr, sub, root, p, start, len);
        size_t off = 0;
        for (int i = 0; i < runs; i++) {
            sched_recv(s, parent, tmp + off, (size_t)len[i] * bytes);
            off += (size_t)len[i] * bytes;
        }
    } else {
        sched_recv(s, parent, tmp, (size_t)sub * bytes);
    }
    sched_round(s);
    if (sub > 1) {
        for (int m = low >> 1; m > 0; m >>= 1) {
            int c = vr + m;
            if (c >= p) continue;
            int csub = m < p - c ? m : p - c;
            sched_send(s, (c + root) % p, tmp + (size_t)m * bytes, (size_t)csub * bytes);
        }
        sched_copy(s, a->rbuf, tmp, bytes);
        sched_round(s);
    }
    return PLX_SUCCESS;
}
