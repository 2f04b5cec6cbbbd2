/*
 * lib/api/vcoll.c — the public v-collectives (plx_allgatherv,
 * plx_alltoallv, plx_gatherv, plx_scatterv, plx_reduce_scatterv and their
 * i-forms): argument checks, the selector's size, and the hand-off to the
 * common start path of lib/api/coll.c (plx_coll_start_locked).  The
 * arguments are packed by the *_ARGS macros of api/vcoll.h, shared with
 * the persistent forms (lib/api/coll_init.c).
 *
 * The checks, all before anything is sent or written: count and
 * displacement arrays present where the call reads them; every block end
 * (displacement + count, in bytes) representable, which also catches a
 * negative int converted to size_t; buffers present where a block is not
 * empty; the blocks a rank writes disjoint; a rank's own send count equal
 * to its own entry in the receive counts.  Counts that only another rank
 * can see (rank i's sendcounts[j] against rank j's recvcounts[i]) cannot
 * be checked locally: a longer block than expected ends the call with
 * PLX_ERR_TRUNCATE on the receiver.
 */
#include "api/vcoll.h"
#include "engine/request.h"

#include <stdlib.h>
#include <string.h>

/* ---- checks ------------------------------------------------------------------ */

/* counts[] and displs[] (displs may be skipped: NULL want_displs = 0) of
 * size entries, each block end within SIZE_MAX bytes; *total (may be NULL)
 * gets the sum of the counts, itself checked. */
static plx_status_t check_layout(const char *fn, const char *cname, const size_t *counts,
                                 const char *dname, const size_t *displs, int want_displs, int size,
                                 size_t es, size_t *total)
{
    if (!counts) return plx_bad_arg(fn, "%s is NULL", cname);
    if (want_displs && !displs) return plx_bad_arg(fn, "%s is NULL", dname);
    size_t lim = SIZE_MAX / es, sum = 0;
    for (int i = 0; i < size; i++) {
        if (counts[i] > lim)
            return plx_bad_arg(fn, "%s[%d] = %zu overflows the address space (a negative count?)",
                               cname, i, counts[i]);
        if (want_displs && (displs[i] > lim || counts[i] > lim - displs[i]))
            return plx_bad_arg(fn, "%s[%d] = %zu + count %zu overflows the address space "
                               "(a negative displacement?)", dname, i, displs[i], counts[i]);
        if (counts[i] > lim - sum)
            return plx_bad_arg(fn, "the sum of %s overflows the address space", cname);
        sum += counts[i];
    }
    if (total) *total = sum;
    return PLX_SUCCESS;
}

static int cmp_block(const void *x, const void *y)
{
    const size_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The non-empty blocks [displs[i], displs[i] + counts[i]) must not overlap
 * (they are written). */
static plx_status_t check_disjoint(const char *fn, const char *what, const size_t *counts,
                                   const size_t *displs, int size)
{
    size_t (*b)[3] = malloc((size_t)size * sizeof *b);
    if (!b) return PLX_ERR_NO_MEMORY;
    int n = 0;
    for (int i = 0; i < size; i++)
        if (counts[i]) {
            b[n][0] = displs[i];
            b[n][1] = displs[i] + counts[i];
            b[n][2] = (size_t)i;
            n++;
        }
    qsort(b, (size_t)n, sizeof *b, cmp_block);
    plx_status_t st = PLX_SUCCESS;
    for (int k = 1; k < n; k++)
        if (b[k][0] < b[k - 1][1]) {
            st = plx_bad_arg(fn, "the %s blocks of ranks %zu and %zu overlap", what, b[k - 1][2], b[k][2]);
            break;
        }
    free(b);
    return st;
}

/* A buffer holding non-empty blocks: not NULL, PLX_IN_PLACE only where allowed. */
static plx_status_t check_vbuf(const char *fn, const char *what, const void *buf, size_t total,
                               int in_place_ok)
{
    if (total == 0) return PLX_SUCCESS;
    if (!buf) return plx_bad_arg(fn, "%s is NULL with %zu elements in its blocks", what, total);
    if (buf == PLX_IN_PLACE && !in_place_ok)
        return plx_bad_arg(fn, "%s may not be PLX_IN_PLACE here", what);
    return PLX_SUCCESS;
}

static plx_status_t check_count(const char *fn, const char *what, size_t count, size_t es)
{
    if (count > SIZE_MAX / es)
        return plx_bad_arg(fn, "%s %zu overflows the address space (a negative count?)", what, count);
    return PLX_SUCCESS;
}

static plx_status_t check_root(const char *fn, plx_comm_t comm, int root)
{
    if (root < 0 || root >= comm->size)
        return plx_bad_arg(fn, "root %d is not a rank of this communicator (size %d)", root, comm->size);
    return PLX_SUCCESS;
}

plx_status_t plx_vcoll_check_args(const char *fn, plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    size_t es = plx_dtype_size(a->dt), total;
    int in_place;
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:
        PLX_CHECK(check_layout(fn, "recvcounts", a->rcounts, "displs", a->rdispls, 1, p, es, &total));
        PLX_CHECK(check_vbuf(fn, "recvbuf", a->rbuf, total, 0));
        PLX_CHECK(check_disjoint(fn, "recvbuf", a->rcounts, a->rdispls, p));
        if (coll_in_place(a->sbuf)) return PLX_SUCCESS;
        PLX_CHECK(check_count(fn, "sendcount", a->count, es));
        if (a->count != a->rcounts[r])
            return plx_bad_arg(fn, "sendcount %zu differs from recvcounts[%d] = %zu", a->count, r,
                               a->rcounts[r]);
        return check_vbuf(fn, "sendbuf", a->sbuf, a->count, 0);
    case PLX_COLL_GATHERV:
        PLX_CHECK(check_root(fn, comm, a->root));
        in_place = coll_in_place(a->sbuf);
        if (in_place && r != a->root) return plx_bad_arg(fn, "sendbuf may be PLX_IN_PLACE only at root");
        if (!in_place) {
            PLX_CHECK(check_count(fn, "sendcount", a->count, es));
            PLX_CHECK(check_vbuf(fn, "sendbuf", a->sbuf, a->count, 0));
        }
        if (r != a->root) return PLX_SUCCESS;
        PLX_CHECK(check_layout(fn, "recvcounts", a->rcounts, "displs", a->rdispls, 1, p, es, &total));
        PLX_CHECK(check_vbuf(fn, "recvbuf", a->rbuf, total, 0));
        PLX_CHECK(check_disjoint(fn, "recvbuf", a->rcounts, a->rdispls, p));
        if (!in_place && a->count != a->rcounts[r])
            return plx_bad_arg(fn, "sendcount %zu differs from recvcounts[%d] = %zu at root", a->count,
                               r, a->rcounts[r]);
        return PLX_SUCCESS;
    case PLX_COLL_SCATTERV:
        PLX_CHECK(check_root(fn, comm, a->root));
        in_place = coll_in_place(a->rbuf);
        if (in_place && r != a->root) return plx_bad_arg(fn, "recvbuf may be PLX_IN_PLACE only at root");
        if (!in_place) {
            PLX_CHECK(check_count(fn, "recvcount", a->count, es));
            PLX_CHECK(check_vbuf(fn, "recvbuf", a->rbuf, a->count, 0));
        }
        if (r != a->root) return PLX_SUCCESS;
        PLX_CHECK(check_layout(fn, "sendcounts", a->scounts, "displs", a->sdispls, 1, p, es, &total));
        PLX_CHECK(check_vbuf(fn, "sendbuf", a->sbuf, total, 0));
        if (!in_place && a->count != a->scounts[r])
            return plx_bad_arg(fn, "recvcount %zu differs from sendcounts[%d] = %zu at root", a->count,
                               r, a->scounts[r]);
        return PLX_SUCCESS;
    case PLX_COLL_ALLTOALLV:
        PLX_CHECK(check_layout(fn, "recvcounts", a->rcounts, "rdispls", a->rdispls, 1, p, es, &total));
        PLX_CHECK(check_vbuf(fn, "recvbuf", a->rbuf, total, 0));
        PLX_CHECK(check_disjoint(fn, "recvbuf", a->rcounts, a->rdispls, p));
        if (coll_in_place(a->sbuf)) return PLX_SUCCESS;
        PLX_CHECK(check_layout(fn, "sendcounts", a->scounts, "sdispls", a->sdispls, 1, p, es, &total));
        PLX_CHECK(check_vbuf(fn, "sendbuf", a->sbuf, total, 0));
        if (a->scounts[r] != a->rcounts[r])
            return plx_bad_arg(fn, "sendcounts[%d] = %zu differs from recvcounts[%d] = %zu (this rank's "
                               "block to itself)", r, a->scounts[r], r, a->rcounts[r]);
        return PLX_SUCCESS;
    case PLX_COLL_REDUCE_SCATTERV:
        PLX_CHECK(check_layout(fn, "recvcounts", a->rcounts, NULL, NULL, 0, p, es, &total));
        if (coll_in_place(a->sbuf)) return check_vbuf(fn, "recvbuf", a->rbuf, total, 0);
        PLX_CHECK(check_vbuf(fn, "sendbuf", a->sbuf, total, 0));
        return check_vbuf(fn, "recvbuf", a->rbuf, a->rcounts[r], 0);
    default:
        return plx_bad_arg(fn, "unknown collective %d", (int)a->coll);
    }
}

/* ---- copies for graph nodes ------------------------------------------------- */
plx_status_t plx_coll_args_own_arrays(coll_args_t *a, int size)
{
    a->owned = NULL;
    if (!coll_is_v(a->coll)) return PLX_SUCCESS;
    const size_t **arr[4] = { &a->scounts, &a->sdispls, &a->rcounts, &a->rdispls };
    int n = 0;
    for (int k = 0; k < 4; k++) n += *arr[k] != NULL;
    if (!n) return PLX_SUCCESS;
    size_t *block = malloc((size_t)n * (size_t)size * sizeof *block);
    if (!block) return PLX_ERR_NO_MEMORY;
    size_t *at = block;
    for (int k = 0; k < 4; k++) {
        if (!*arr[k]) continue;
        memcpy(at, *arr[k], (size_t)size * sizeof *at);
        *arr[k] = at;
        at += size;
    }
    a->owned = block;
    return PLX_SUCCESS;
}

/* ---- calls ---------------------------------------------------------------------- */
plx_status_t plx_vcoll_icall(const char *fn, plx_comm_t comm, coll_args_t *a, plx_request_t *req)
{
    if (!req) return plx_bad_arg(fn, "req is NULL");
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_ctx_lock(comm->ctx);
    plx_status_t st = plx_coll_start_locked(comm, a, req);
    plx_ctx_unlock(comm->ctx);
    return st;
}

plx_status_t plx_vcoll_call(const char *fn, plx_comm_t comm, coll_args_t *a)
{
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_request_t req;
    plx_ctx_lock(comm->ctx);
    plx_status_t st = plx_coll_start_locked(comm, a, &req);
    if (st == PLX_SUCCESS && req) st = plx_req_wait_locked(&req);
    plx_ctx_unlock(comm->ctx);
    return st;
}

/* ---- the public calls ---------------------------------------------------------- */
plx_status_t plx_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                            const size_t recvcounts[], const size_t displs[], plx_dtype_t dt,
                            plx_comm_t comm)
{
    coll_args_t a = AGV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt);
    return plx_vcoll_call("plx_allgatherv", comm, &a);
}

plx_status_t plx_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                             const size_t recvcounts[], const size_t displs[], plx_dtype_t dt,
                             plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = AGV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt);
    return plx_vcoll_icall("plx_iallgatherv", comm, &a, req);
}

plx_status_t plx_alltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[],
                           void *recvbuf, const size_t recvcounts[], const size_t rdispls[],
                           plx_dtype_t dt, plx_comm_t comm)
{
    coll_args_t a = A2AV_ARGS(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dt);
    return plx_vcoll_call("plx_alltoallv", comm, &a);
}

plx_status_t plx_ialltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[],
                            void *recvbuf, const size_t recvcounts[], const size_t rdispls[],
                            plx_dtype_t dt, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = A2AV_ARGS(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dt);
    return plx_vcoll_icall("plx_ialltoallv", comm, &a, req);
}

plx_status_t plx_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                         const size_t recvcounts[], const size_t displs[], plx_dtype_t dt, int root,
                         plx_comm_t comm)
{
    coll_args_t a = GV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, root);
    return plx_vcoll_call("plx_gatherv", comm, &a);
}

plx_status_t plx_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                          const size_t recvcounts[], const size_t displs[], plx_dtype_t dt, int root,
                          plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = GV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, root);
    return plx_vcoll_icall("plx_igatherv", comm, &a, req);
}

plx_status_t plx_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                          void *recvbuf, size_t recvcount, plx_dtype_t dt, int root, plx_comm_t comm)
{
    coll_args_t a = SV_ARGS(sendbuf, sendcounts, displs, recvbuf, recvcount, dt, root);
    return plx_vcoll_call("plx_scatterv", comm, &a);
}

plx_status_t plx_iscatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                           void *recvbuf, size_t recvcount, plx_dtype_t dt, int root,
                           plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SV_ARGS(sendbuf, sendcounts, displs, recvbuf, recvcount, dt, root);
    return plx_vcoll_icall("plx_iscatterv", comm, &a, req);
}

plx_status_t plx_reduce_scatterv(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                 plx_dtype_t dt, plx_op_t op, plx_comm_t comm)
{
    coll_args_t a = RSV_ARGS(sendbuf, recvbuf, recvcounts, dt, op);
    return plx_vcoll_call("plx_reduce_scatterv", comm, &a);
}

plx_status_t plx_ireduce_scatterv(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                  plx_dtype_t dt, plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = RSV_ARGS(sendbuf, recvbuf, recvcounts, dt, op);
    return plx_vcoll_icall("plx_ireduce_scatterv", comm, &a, req);
}
