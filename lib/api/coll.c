/*
 * lib/api/coll.c — the public collective calls: check every argument, ask
 * the selector for an algorithm, build its schedule, run it.
 *
 * This is where a collective starts its trip (README, "How a collective
 * travels"): plx_allreduce = plx_iallreduce + plx_wait;
 * plx_iallreduce -> check_* -> start_coll -> plx_select_algo ->
 * coll_allreduce_<algorithm> (lib/coll/allreduce.c) builds a schedule ->
 * plx_req_start_sched (lib/engine/request.c) makes it a request that the progress
 * engine drives over the transports.  All argument checks happen before anything is written or
 * sent, so a rejected call leaves every buffer untouched.
 */
#include "plx_internal.h"
#include "core/reduce.h"
#include "engine/sched.h"
#include "coll/select.h"
#include "engine/request.h"
#include "device/device.h"
#include "coll/signature.h"
#include "coll/call_record.h"
#include "api/vcoll.h"
#include "core/user_op.h"

#include <string.h>

/* ---- argument checks ------------------------------------------------------- */
static plx_status_t check_comm(const char *fn, plx_comm_t comm)
{
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    return PLX_SUCCESS;
}

static plx_status_t check_dtype(const char *fn, plx_dtype_t dt)
{
    if ((int)dt < 0 || dt >= PLX_DTYPE_COUNT) return plx_bad_arg(fn, "unknown datatype %d", (int)dt);
    return PLX_SUCCESS;
}

static plx_status_t check_op(const char *fn, plx_dtype_t dt, plx_op_t op)
{
    if (plx_op_is_user(op) && !plx_user_op_live(op))
        return plx_bad_arg(fn, "op %d is not a user op made by plx_op_create (or it was freed)", (int)op);
    if (plx_op_is_user(op)) return PLX_SUCCESS;
    if ((int)op < 0 || op >= PLX_OP_COUNT) return plx_bad_arg(fn, "unknown op %d", (int)op);
    if (!plx_op_valid(dt, op))
        return plx_bad_arg(fn, "op %s is not defined on %s", plx_op_name(op), plx_dtype_name(dt));
    return PLX_SUCCESS;
}

static plx_status_t check_root(const char *fn, plx_comm_t comm, int root)
{
    if (root < 0 || root >= comm->size)
        return plx_bad_arg(fn, "root %d is not a rank of this communicator (size %d)", root, comm->size);
    return PLX_SUCCESS;
}

/* A buffer that this rank reads or writes: needed when count > 0;
 * PLX_IN_PLACE only where the API allows it here. */
static plx_status_t check_buf(const char *fn, const char *what, const void *buf, size_t count,
                              int in_place_ok)
{
    if (count == 0) return PLX_SUCCESS;
    if (!buf) return plx_bad_arg(fn, "%s is NULL with count %zu", what, count);
    if (buf == PLX_IN_PLACE && !in_place_ok)
        return plx_bad_arg(fn, "%s may not be PLX_IN_PLACE here", what);
    return PLX_SUCCESS;
}

/* count x size x element size must fit in memory arithmetic. */
static plx_status_t check_extent(const char *fn, size_t count, plx_dtype_t dt, int nblocks)
{
    size_t es = plx_dtype_size_fast(dt), b;
    /* overflow flags, not two divisions: this runs on every call */
    if (__builtin_mul_overflow(count, es, &b) || __builtin_mul_overflow(b, (size_t)nblocks, &b))
        return plx_bad_arg(fn, "count %zu of %s overflows the address space", count, plx_dtype_name(dt));
    return PLX_SUCCESS;
}

/* ---- running ------------------------------------------------------------------ */
/* What a call derives from its arguments alone: the algorithm (the
 * selector's rules and every algorithm's can_run answer are fixed for a
 * comm once asked), its call-record path, its signature in both forms.
 * NULL algo: the selector found none. */
static void make_plan(plx_comm_t comm, const coll_args_t *a, struct plx_call_plan *pl)
{
    size_t bytes = coll_select_count(comm, a) * plx_dtype_size_fast(a->dt);
    /* a non-commutative user op needs an algorithm that keeps rank order
     * (built-in ops are all commutative: no call for them) */
    int need_order = plx_op_is_user(a->op) && coll_is_reduction(a->coll) && !plx_op_commutative(a->op);
    const coll_algo_t *algo = plx_select_algo_for(comm->ctx->select, a->coll, bytes, comm, need_order);
    coll_sig_t sig = coll_sig_of(comm, a);
    pl->coll = a->coll;
    pl->dt = a->dt;
    pl->op = a->op;
    pl->root = a->root;
    pl->count = a->count;
    /* the v-forms' direct algorithms run on the slots' windows and
     * sequence (lib/coll/node_direct_v.c): the slots path for the records */
    pl->path = !algo ? CALLREC_OTHER
             : algo->node_slots == COLL_NODE_DIRECT && !coll_is_v(a->coll) ? CALLREC_DIRECT
             : algo->node_slots ? CALLREC_SLOTS : CALLREC_SCHED;
    pl->sig[0] = sig.word[0];
    pl->sig[1] = sig.word[1];
    pl->sig_word = coll_sig_word(&sig);
    pl->rec = plx_callrec_hash(&sig);
    pl->algo = algo;
}

/* The plan of this call: comm's last one when the key matches.  Not kept
 * for the v-forms (their counts are arrays) nor user ops (a freed handle
 * may come back with another commutativity). */
static const struct plx_call_plan *plan_of(plx_comm_t comm, const coll_args_t *a,
                                           struct plx_call_plan *tmp)
{
    struct plx_call_plan *pl = &comm->plan;
    if (__builtin_expect(pl->algo && pl->coll == (int)a->coll && pl->count == a->count &&
                         pl->dt == (int)a->dt && pl->op == (int)a->op && pl->root == a->root, 1))
        return pl;
    if (coll_is_v(a->coll) || plx_op_is_user(a->op)) pl = tmp;
    make_plan(comm, a, pl);
    return pl;
}

/* Build the chosen algorithm's schedule and start it as a request. */
static plx_status_t start_coll_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req)
{
    /* Device buffers go to lib/device/device.c (NCCL or staging).  dev_on is 0
     * when no CUDA device is usable: one predictable branch, no CUDA call. */
    if (__builtin_expect(comm->ctx->dev_on, 0)) {
        plx_status_t dst;
        coll_sig_t sig = coll_sig_of(comm, a);
        uint64_t dcall = plx_callrec_publish(comm, &sig, CALLREC_OTHER);   /* numbered alike */
        if (plx_dev_start_locked(comm, a, req, &dst)) return dst;
        if (dcall) comm->callrec->next--;   /* not taken: numbered again below */
    }
    struct plx_call_plan tmp;
    const struct plx_call_plan *pl = plan_of(comm, a, &tmp);
    const coll_algo_t *algo = pl->algo;
    if (!algo) return PLX_ERR_INTERNAL;
    /* what this rank calls, compared by each path's own check and
     * published with the path it takes for the ranks that take another
     * one (lib/coll/call_record.h; one store) */
    uint64_t call = plx_callrec_publish_hash(comm, pl->rec, pl->path);
    plx_status_t st;
    if (algo->node_slots == COLL_NODE_DIRECT) {
        st = plx_req_start_direct(comm, a, req);
    } else if (algo->node_slots) {
        st = plx_req_start_slots(comm, a, pl->sig_word, req);
    } else {
        plx_sched_t *s = sched_new(comm, plx_coll_name(a->coll));
        if (!s) return PLX_ERR_NO_MEMORY;
        /* every rank checks that the ranks agree on the call (PLX_ERR_MISMATCH) */
        sched_sign(s, pl->sig, call);
        st = algo->build(s, comm, a);
        if (st != PLX_SUCCESS) {
            sched_free(s);
            return st;
        }
        st = plx_req_start_sched(s, req);
    }
    if (call && st == PLX_SUCCESS) plx_req_set_call(*req, call, pl->sig, pl->path);
    return st;
}

/* run_coll with a progress thread: the call is waited for at once, so
 * the thread stands aside from its start (no hand-over, see
 * plx_req_drive_begin).  Lock held. */
static __attribute__((noinline)) plx_status_t run_coll_driving(plx_comm_t comm, const coll_args_t *a)
{
    plx_context_t ctx = comm->ctx;
    plx_request_t req;
    plx_req_drive_begin(ctx);
    plx_status_t st = start_coll_locked(comm, a, &req);
    if (st == PLX_SUCCESS) st = plx_req_wait_locked(&req);
    plx_req_drive_end(ctx);
    return st;
}

/* Start and wait with the context lock taken once (the sequence number,
 * the caches and the transports are shared with other threads and the
 * progress thread): every blocking collective.  Arguments already checked.
 * Caller-driven progress (the default) tests pt.running once and nothing
 * else of the hand-over (in place it cost 5 more instructions per call,
 * perf/RESULTS.md session s7s). */
static plx_status_t run_coll(plx_comm_t comm, const coll_args_t *a)
{
    if (coll_skips(comm, a)) return PLX_SUCCESS;
    plx_context_t ctx = comm->ctx;
    plx_request_t req;
    plx_status_t st;
    plx_ctx_lock(ctx);
    if (__builtin_expect(ctx->pt.running, 0)) {
        st = run_coll_driving(comm, a);
    } else {
        st = start_coll_locked(comm, a, &req);
        if (st == PLX_SUCCESS) st = plx_req_wait_locked(&req);
    }
    plx_ctx_unlock(ctx);
    return st;
}

plx_status_t plx_coll_allgather_bytes(plx_comm_t comm, const void *mine, void *all, size_t len)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = mine, .rbuf = all, .count = len,
                      .dt = PLX_UINT8, .op = PLX_SUM, .root = 0 };
    return run_coll(comm, &a);
}

/* ---- the arguments of every collective, checked in one place --------------- */
plx_status_t plx_coll_check_args(const char *fn, plx_comm_t comm, const coll_args_t *a)
{
    PLX_CHECK(check_comm(fn, comm));
    if (a->coll == PLX_COLL_BARRIER) return PLX_SUCCESS;
    PLX_CHECK(check_dtype(fn, a->dt));
    size_t n = a->count;
    int is_root = 0;
    switch (a->coll) {
    case PLX_COLL_BCAST:
        PLX_CHECK(check_root(fn, comm, a->root));
        PLX_CHECK(check_buf(fn, "buf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, 1);
    case PLX_COLL_REDUCE:
        PLX_CHECK(check_op(fn, a->dt, a->op));
        PLX_CHECK(check_root(fn, comm, a->root));
        is_root = comm->rank == a->root;
        PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, is_root));
        if (is_root) PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, 1);
    case PLX_COLL_ALLREDUCE:
    case PLX_COLL_REDUCE_SCATTER:
    case PLX_COLL_SCAN:
        PLX_CHECK(check_op(fn, a->dt, a->op));
        PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, 1));
        PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, a->coll == PLX_COLL_REDUCE_SCATTER ? comm->size : 1);
    case PLX_COLL_EXSCAN:   /* rank 0's recvbuf is not written: may be NULL there */
        PLX_CHECK(check_op(fn, a->dt, a->op));
        PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, 1));
        if (comm->rank != 0 || coll_in_place(a->sbuf)) PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, 1);
    case PLX_COLL_REDUCE_SCATTERV:
        PLX_CHECK(check_op(fn, a->dt, a->op));
        return plx_vcoll_check_args(fn, comm, a);
    case PLX_COLL_ALLGATHERV:
    case PLX_COLL_ALLTOALLV:
    case PLX_COLL_GATHERV:
    case PLX_COLL_SCATTERV:
        return plx_vcoll_check_args(fn, comm, a);
    case PLX_COLL_ALLGATHER:
    case PLX_COLL_ALLTOALL:
        PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, 1));
        PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, comm->size);
    case PLX_COLL_GATHER:
        PLX_CHECK(check_root(fn, comm, a->root));
        is_root = comm->rank == a->root;
        PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, is_root));
        if (is_root) PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, 0));
        return check_extent(fn, n, a->dt, comm->size);
    case PLX_COLL_SCATTER:
        PLX_CHECK(check_root(fn, comm, a->root));
        is_root = comm->rank == a->root;
        if (is_root) PLX_CHECK(check_buf(fn, "sendbuf", a->sbuf, n, 0));
        PLX_CHECK(check_buf(fn, "recvbuf", a->rbuf, n, is_root));
        return check_extent(fn, n, a->dt, comm->size);
    default:
        return plx_bad_arg(fn, "unknown collective %d", (int)a->coll);
    }
}

plx_status_t plx_coll_start_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req)
{
    if (coll_skips(comm, a))
        return plx_req_completed_locked(comm->ctx, PLX_SUCCESS, req);
    return start_coll_locked(comm, a, req);
}

/* Every plx_i<collective>: check, then start (count 0: a finished request). */
static plx_status_t icoll(const char *fn, plx_comm_t comm, const coll_args_t *a, plx_request_t *req)
{
    if (!req) return plx_bad_arg(fn, "req is NULL");
    *req = NULL;                /* stays NULL when nothing is started */
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_ctx_lock(comm->ctx);
    plx_status_t st = plx_coll_start_locked(comm, a, req);
    plx_ctx_unlock(comm->ctx);
    return st;
}

/* Every blocking collective: the same checks, start and wait as the i-form
 * plus plx_wait, with the context lock taken once for both. */
static plx_status_t coll(const char *fn, plx_comm_t comm, const coll_args_t *a)
{
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    return run_coll(comm, a);
}

/* ---- the public calls ---------------------------------------------------------- */
plx_status_t plx_ibarrier(plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_BARRIER, .dt = PLX_UINT8 };
    return icoll("plx_ibarrier", comm, &a, req);
}

plx_status_t plx_barrier(plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_BARRIER, .dt = PLX_UINT8 };
    return coll("plx_barrier", comm, &a);
}

plx_status_t plx_ibcast(void *buf, size_t count, plx_dtype_t dt, int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_BCAST, .sbuf = buf, .rbuf = buf, .count = count, .dt = dt,
                      .root = root };
    return icoll("plx_ibcast", comm, &a, req);
}

plx_status_t plx_bcast(void *buf, size_t count, plx_dtype_t dt, int root, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_BCAST, .sbuf = buf, .rbuf = buf, .count = count, .dt = dt,
                      .root = root };
    return coll("plx_bcast", comm, &a);
}

plx_status_t plx_ireduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                        plx_op_t op, int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op, .root = root };
    return icoll("plx_ireduce", comm, &a, req);
}

plx_status_t plx_reduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                        plx_op_t op, int root, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op, .root = root };
    return coll("plx_reduce", comm, &a);
}

plx_status_t plx_iallreduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                           plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return icoll("plx_iallreduce", comm, &a, req);
}

plx_status_t plx_allreduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                           plx_op_t op, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return coll("plx_allreduce", comm, &a);
}

plx_status_t plx_iallgather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                           plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return icoll("plx_iallgather", comm, &a, req);
}

plx_status_t plx_allgather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                           plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return coll("plx_allgather", comm, &a);
}

plx_status_t plx_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                plx_dtype_t dt, plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = recvcount, .dt = dt, .op = op };
    return icoll("plx_ireduce_scatter", comm, &a, req);
}

plx_status_t plx_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                plx_dtype_t dt, plx_op_t op, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = recvcount, .dt = dt, .op = op };
    return coll("plx_reduce_scatter", comm, &a);
}

plx_status_t plx_ialltoall(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                          plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLTOALL, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return icoll("plx_ialltoall", comm, &a, req);
}

plx_status_t plx_alltoall(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                          plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_ALLTOALL, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return coll("plx_alltoall", comm, &a);
}

plx_status_t plx_igather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                        int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_GATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return icoll("plx_igather", comm, &a, req);
}

plx_status_t plx_gather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                        int root, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_GATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return coll("plx_gather", comm, &a);
}

plx_status_t plx_iscatter(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                         int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return icoll("plx_iscatter", comm, &a, req);
}

plx_status_t plx_scatter(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                         int root, plx_comm_t comm)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return coll("plx_scatter", comm, &a);
}

plx_status_t plx_query_algorithm(plx_comm_t comm, const char *collective, size_t bytes,
                                 const char **algorithm, const char **transport)
{
    const char *fn = "plx_query_algorithm";
    if (algorithm) *algorithm = NULL;
    if (transport) *transport = NULL;
    PLX_CHECK(check_comm(fn, comm));
    if (!collective || !algorithm) return plx_bad_arg(fn, "collective or algorithm is NULL");
    int c = plx_coll_from_name(collective);
    if (c < 0) return plx_bad_arg(fn, "unknown collective '%s'", collective);
    plx_ctx_lock(comm->ctx);   /* the selector records first uses */
    const coll_algo_t *algo = plx_select_algo(comm->ctx->select, (plx_coll_t)c, bytes, comm);
    plx_ctx_unlock(comm->ctx);
    if (!algo) return PLX_ERR_INTERNAL;
    *algorithm = algo->name;
    if (transport) *transport = plx_comm_transports(comm);
    return PLX_SUCCESS;
}
