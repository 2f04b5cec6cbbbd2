/*
 * lib/engine/persist.c — persistent requests: made once by a plx_*_init
 * call, run by plx_start / plx_startall, completed by the ordinary test and
 * wait calls, freed by plx_request_free (see persist.h).
 *
 * A persistent request is an ordinary engine request (lib/engine/request.c) with
 * persistent = 1, so test/wait/waitall/waitany and the progress thread
 * handle it unchanged; completing it makes it inactive instead of freeing
 * it.  What it runs is decided at init, once:
 *   RUN_SCHED     the selected algorithm's schedule, built once
 *                 (sched_new_persistent) and restarted under the
 *                 communicator's next sequence number at each start;
 *   RUN_SLOTS     a node-local slot operation (lib/coll/node_slots.c),
 *                 re-armed from the saved arguments;
 *   RUN_DIRECT    a node-local single-copy collective (lib/coll/node_direct.c),
 *                 re-armed from the saved arguments;
 *   RUN_P2P       a send or receive, posted again from the saved arguments;
 *   RUN_EMPTY     nothing moves on any rank (coll_skips): every start
 *                 completes at once;
 *   RUN_RELAUNCH  device (GPU) buffers and hierarchical (several-node)
 *                 algorithms: each start hands the saved
 *                 arguments to the ordinary start path (NCCL or staging
 *                 decide per call, lib/device/device.c) and the request completes
 *                 with that inner request.
 * Only the init allocates; a start takes the context lock once, touches
 * what was built and makes no allocation and no selection.
 *
 * Sequence numbers are taken at start, not at init: every rank must start
 * its persistent collectives in the same order relative to its other
 * collectives on the communicator (the MPI rule for starts), while the
 * init calls themselves are local and may come in any order.
 */
#include "engine/persist.h"
#include "api/vcoll.h"
#include "coll/select.h"
#include "device/device.h"
#include "core/user_op.h"
#include "coll/signature.h"

#include <stdlib.h>
#include <string.h>

enum { RUN_SCHED = 1, RUN_SLOTS, RUN_DIRECT, RUN_P2P, RUN_EMPTY, RUN_RELAUNCH };

struct plx_persist {
    int how;                   /* RUN_* */
    plx_comm_t comm;
    coll_args_t a;             /* collectives: the arguments as checked at init; a v-form's
                                * count/displacement arrays copied (a.owned) */
    uint64_t sig;              /* RUN_SLOTS: the call's slot signature (coll_sig_word) */
    plx_request_t inner;       /* RUN_RELAUNCH: this run's ordinary request */
    void *buf;                 /* RUN_P2P */
    size_t len;
    struct plx_request *req;   /* the request this belongs to */
    struct plx_persist *next, *prev;   /* ctx->persist_head */
};

static void list_push(plx_context_t ctx, struct plx_persist *p)
{
    p->prev = NULL;
    p->next = ctx->persist_head;
    if (p->next) p->next->prev = p;
    ctx->persist_head = p;
}

static void list_remove(plx_context_t ctx, struct plx_persist *p)
{
    if (p->prev) p->prev->next = p->next;
    else ctx->persist_head = p->next;
    if (p->next) p->next->prev = p->prev;
    p->next = p->prev = NULL;
}

void plx_persist_release(struct plx_request *r)
{
    struct plx_persist *p = r->pers;
    if (!p) return;
    if (r->kind == REQ_SCHED && r->sched) {
        sched_free(r->sched);
        r->sched = NULL;
    }
    list_remove(r->ctx, p);
    free(p->a.owned);
    free(p);
    r->pers = NULL;
    r->persistent = 0;
}

/* Finalize: the engine has already withdrawn the transfers of active ones
 * (and freed RUN_RELAUNCH inner requests with the other active requests). */
void plx_persist_release_all(plx_context_t ctx)
{
    struct plx_persist *p;
    while ((p = ctx->persist_head)) {
        struct plx_request *r = p->req;
        plx_persist_release(r);
        r->magic = PLX_DEAD_MAGIC;
        free(r);
    }
}

/* RUN_RELAUNCH: the request completes with the inner one. */
static int relaunch_advance(void *arg, plx_status_t *st)
{
    struct plx_request *r = arg;
    struct plx_persist *p = r->pers;
    if (!p->inner || !plx_req_is_done(p->inner)) return 0;
    *st = plx_req_collect_locked(&p->inner);
    return 1;
}

/* Device buffers take the ordinary start path at each start (lib/device/device.c
 * decides NCCL or staging per call); only asked when a GPU is usable. */
static int is_device_call(plx_comm_t comm, const coll_args_t *a)
{
    if (comm->mem_type == PLX_MEM_DEVICE) return 1;
    if (comm->mem_type == PLX_MEM_HOST) return 0;
    const void *bufs[2] = { a->sbuf, a->rbuf };
    for (int i = 0; i < 2; i++)
        if (bufs[i] && bufs[i] != PLX_IN_PLACE && plx_dev_is_device_buffer(bufs[i])) return 1;
    return 0;
}

/* Decide how r runs and build it (lock held). */
static plx_status_t prepare_coll_locked(struct plx_request *r, struct plx_persist *p)
{
    plx_comm_t comm = p->comm;
    const coll_args_t *a = &p->a;
    /* nothing moves on any rank, as every rank knows (a->count alone is
     * not that for the v-forms: alltoallv leaves it 0) */
    if (coll_skips(comm, a)) {
        p->how = RUN_EMPTY;
        r->kind = REQ_DONE;
        return PLX_SUCCESS;
    }
    if (__builtin_expect(comm->ctx->dev_on, 0) && is_device_call(comm, a)) {
        p->how = RUN_RELAUNCH;
        r->kind = REQ_HOOK;
        r->hook = (plx_req_hook_t){ .advance = relaunch_advance, .arg = r };
        return PLX_SUCCESS;
    }
    /* the same choice as a plain call (lib/api/coll.c): a non-commutative
     * user op needs an algorithm that keeps rank order */
    size_t bytes = coll_select_count(comm, a) * plx_dtype_size(a->dt);
    int need_order = coll_is_reduction(a->coll) && !plx_op_commutative(a->op);
    const coll_algo_t *algo = plx_select_algo_for(comm->ctx->select, a->coll, bytes, comm, need_order);
    if (!algo) return PLX_ERR_INTERNAL;
    if (!strcmp(algo->name, "hier")) {
        /* its node-local phases take their sequence numbers when the
         * schedule is built (lib/coll/hier.c), so a built schedule cannot
         * run twice: each start goes the ordinary way */
        p->how = RUN_RELAUNCH;
        r->kind = REQ_HOOK;
        r->hook = (plx_req_hook_t){ .advance = relaunch_advance, .arg = r };
        return PLX_SUCCESS;
    }
    if (algo->node_slots == COLL_NODE_DIRECT) {
        p->how = RUN_DIRECT;
        r->kind = REQ_DIRECT;
        return PLX_SUCCESS;
    }
    if (algo->node_slots) {
        p->how = RUN_SLOTS;
        r->kind = REQ_SLOTS;
        coll_sig_t sig = coll_sig_of(comm, a);
        p->sig = coll_sig_word(&sig);
        return PLX_SUCCESS;
    }
    plx_sched_t *s = sched_new_persistent(comm, plx_coll_name(a->coll));
    if (!s) return PLX_ERR_NO_MEMORY;
    r->kind = REQ_SCHED;
    r->sched = s;               /* freed with the request, also on failure below */
    /* signed like a plain call (lib/api/coll.c): every start checks again
     * that the ranks agree (PLX_ERR_MISMATCH) */
    coll_sig_t sig = coll_sig_of(comm, a);
    sched_sign(s, sig.word, 0);   /* a start publishes no call record */
    PLX_CHECK(algo->build(s, comm, a));
    PLX_CHECK(sched_seal(s));
    p->how = RUN_SCHED;
    return PLX_SUCCESS;
}

/* A new inactive persistent request of ctx with its saved-state record
 * (lock held); NULL if out of memory. */
static struct plx_request *new_persistent_locked(plx_comm_t comm)
{
    struct plx_persist *p = calloc(1, sizeof *p);
    struct plx_request *r = p ? plx_req_alloc(comm->ctx) : NULL;
    if (!r) {
        free(p);
        return NULL;
    }
    p->comm = comm;
    p->req = r;
    r->persistent = 1;
    r->pers = p;
    r->comm = comm;
    r->done = 1;                /* inactive: a wait returns at once */
    list_push(comm->ctx, p);
    return r;
}

plx_status_t plx_persist_coll_init(const char *fn, plx_comm_t comm, const coll_args_t *a,
                                   plx_request_t *req)
{
    if (!req) return plx_bad_arg(fn, "req is NULL");
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    plx_ctx_lock(comm->ctx);
    struct plx_request *r = new_persistent_locked(comm);
    plx_status_t st = PLX_ERR_NO_MEMORY;
    if (r) {
        r->pers->a = *a;
        /* slot, direct and relaunched runs read the arrays at each start:
         * keep copies so a start never reads freed user memory */
        st = plx_coll_args_own_arrays(&r->pers->a, comm->size);
        if (st == PLX_SUCCESS) st = prepare_coll_locked(r, r->pers);
        if (st == PLX_SUCCESS) *req = r;
        else plx_req_release(r);   /* frees the schedule and the record too */
    }
    plx_ctx_unlock(comm->ctx);
    return st;
}

plx_status_t plx_persist_p2p_init(const char *fn, int kind, void *buf, size_t count,
                                  plx_dtype_t dt, int peer, int tag, plx_comm_t comm,
                                  size_t *received, plx_request_t *req)
{
    if (!req) return plx_bad_arg(fn, "req is NULL");
    PLX_CHECK(plx_p2p_check_args(fn, buf, count, dt, peer, tag, comm));
    if (__builtin_expect(comm->ctx->dev_on, 0) && count && plx_dev_is_device_buffer(buf)) {
        plx_error("%s: buffer %p is GPU memory; point-to-point on device buffers is not "
                  "supported yet (stage through host memory)", fn, buf);
        return PLX_ERR_NOT_SUPPORTED;
    }
    plx_ctx_lock(comm->ctx);
    struct plx_request *r = new_persistent_locked(comm);
    if (r) {
        r->pers->how = RUN_P2P;
        r->pers->buf = buf;
        r->pers->len = count * plx_dtype_size(dt);
        r->kind = kind;
        r->peer = peer;
        r->tag = tag;
        r->elem_size = plx_dtype_size(dt);
        r->received = received;
        *req = r;
    }
    plx_ctx_unlock(comm->ctx);
    return r ? PLX_SUCCESS : PLX_ERR_NO_MEMORY;
}

/* ---- starting ----------------------------------------------------------------- */

/* Is r a persistent request that may be started now?  (lock not needed:
 * only the owner thread starts and completes it) */
static plx_status_t check_startable(const char *fn, const struct plx_request *r, int i)
{
    char what[32] = "the request";
    if (i >= 0) snprintf(what, sizeof what, "entry %d", i);
    if (!r || r->magic != PLX_REQ_MAGIC) return plx_bad_arg(fn, "%s is not a live request", what);
    if (!r->persistent)
        return plx_bad_arg(fn, "%s is not a persistent request (made by a plx_*_init call)", what);
    if (r->active)
        return plx_bad_arg(fn, "%s is already active (start it again after a test or wait "
                           "completed it)", what);
    if (!plx_comm_ok(r->pers->comm))
        return plx_bad_arg(fn, "%s belongs to a communicator that was freed", what);
    return PLX_SUCCESS;
}

/* The run begins: the engine moves it from here on. */
static void begin(struct plx_request *r)
{
    r->active = 1;
    r->status = PLX_SUCCESS;
    r->detached = 0;
    __atomic_store_n(&r->done, 0, __ATOMIC_RELEASE);
    plx_req_activate(r);
}

/* One start (lock held, r checked).  On error the request stays inactive. */
static plx_status_t start_locked(struct plx_request *r)
{
    struct plx_persist *p = r->pers;
    plx_status_t st = PLX_SUCCESS;
    switch (p->how) {
    case RUN_EMPTY:
        r->status = PLX_SUCCESS;
        r->active = 1;          /* done stays 1: the next test or wait collects it */
        return PLX_SUCCESS;
    case RUN_SCHED:
        PLX_CHECK(sched_restart(r->sched));
        begin(r);
        /* one rank, or everything local: finished already */
        if (sched_advance(r->sched)) plx_req_finish_locked(r, sched_status(r->sched));
        return PLX_SUCCESS;
    case RUN_SLOTS:
        PLX_CHECK(plx_slots_start(p->comm, &p->a, p->sig, &r->slots));
        begin(r);
        if (plx_slots_advance(&r->slots)) plx_req_finish_locked(r, r->slots.status);
        return PLX_SUCCESS;
    case RUN_DIRECT: {
        PLX_CHECK(plx_direct_start(p->comm, &p->a, &r->direct));
        begin(r);
        int moved = 0;
        r->direct.solo = plx_req_direct_solo(r);
        if (plx_direct_advance(&r->direct, &moved)) plx_req_finish_locked(r, r->direct.status);
        return PLX_SUCCESS;
    }
    case RUN_P2P: {
        memset(&r->treq, 0, sizeof r->treq);
        uint64_t t = plx_tag_p2p(p->comm, r->tag);
        st = r->kind == REQ_SEND ? plx_p2p_isend(p->comm, r->peer, t, p->buf, p->len, &r->treq)
                                 : plx_p2p_irecv(p->comm, r->peer, t, p->buf, p->len, &r->treq);
        if (st != PLX_SUCCESS) return st;
        begin(r);
        return PLX_SUCCESS;
    }
    case RUN_RELAUNCH: {
        PLX_CHECK(plx_coll_start_locked(p->comm, &p->a, &p->inner));
        begin(r);
        if (relaunch_advance(r, &st)) plx_req_finish_locked(r, st);
        return PLX_SUCCESS;
    }
    default:
        return PLX_ERR_INTERNAL;
    }
}

plx_status_t plx_start(plx_request_t *req)
{
    if (!req) return plx_bad_arg("plx_start", "req is NULL");
    PLX_CHECK(check_startable("plx_start", *req, -1));
    struct plx_request *r = *req;
    plx_ctx_lock(r->ctx);
    plx_status_t st = start_locked(r);
    plx_ctx_unlock(r->ctx);
    return st;
}

plx_status_t plx_startall(int n, plx_request_t reqs[])
{
    const char *fn = "plx_startall";
    if (n < 0 || (n > 0 && !reqs)) return plx_bad_arg(fn, "bad request array (n = %d)", n);
    if (n == 0) return PLX_SUCCESS;
    /* every entry is checked before any is started */
    for (int i = 0; i < n; i++) {
        PLX_CHECK(check_startable(fn, reqs[i], i));
        if (reqs[i]->ctx != reqs[0]->ctx) return plx_bad_arg(fn, "requests of different contexts");
        for (int j = 0; j < i; j++)
            if (reqs[j] == reqs[i]) return plx_bad_arg(fn, "entries %d and %d are the same request", j, i);
    }
    plx_context_t ctx = reqs[0]->ctx;
    plx_ctx_lock(ctx);
    plx_status_t st = PLX_SUCCESS;
    for (int i = 0; i < n && st == PLX_SUCCESS; i++) st = start_locked(reqs[i]);
    plx_ctx_unlock(ctx);
    return st;
}
