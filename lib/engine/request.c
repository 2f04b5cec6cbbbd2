/*
 * lib/engine/request.c — the progress engine: requests in flight, plx_test /
 * plx_wait / plx_waitall / plx_waitany / plx_request_free.
 *
 * Progress is caller-driven: every test or wait polls the transports once
 * (plx_progress) and then advances each active request (sched_advance for
 * collectives, the transport's done flag for send/recv).  Waits back off
 * spin -> sched_yield -> sleep (plx_backoff_*) when nothing moved, and every
 * ~100 ms look at the clock: a request older than PLX_TIMEOUT, or whose
 * peer died, is ended with a message naming the operation, communicator,
 * sequence number and the ranks that never arrived.  With PLX_PROGRESS=
 * thread the background thread (lib/engine/progress_thread.c) runs the same
 * plx_engine_progress; waiters then help only when the lock is free.
 *
 * Locking: everything here runs under ctx->lock except the reading of a
 * request's done flag (an atomic, so a waiter can watch it unlocked while
 * backing off).  A request object is only freed by its owner (collect) or,
 * once detached, by the engine, so watching it unlocked is safe.
 */
#include "engine/request.h"
#include "coll/call_record.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define ENGINE_CHECK_S 0.1   /* how often waits look at deadlines and dead peers */

struct plx_request *plx_req_alloc(plx_context_t ctx)
{
    struct plx_request *r = ctx->free_reqs;
    if (r)
        ctx->free_reqs = r->next;
    else if (!(r = malloc(sizeof *r)))
        return NULL;
    /* the header and the fields after the per-kind parts; the slots,
     * hook and direct parts (most of the struct) are set whole by the
     * start of their kind, and read only for that kind: zeroing them here
     * cost a measurable share of an 8-byte collective */
    memset(r, 0, offsetof(struct plx_request, slots));
    memset(&r->persistent, 0, offsetof(struct plx_request, treq) - offsetof(struct plx_request, persistent));
    r->magic = PLX_REQ_MAGIC;
    r->ctx = ctx;
    r->status = PLX_SUCCESS;
    return r;
}

static void req_recycle(struct plx_request *r);

/* The communicator of a collective request with call records, else NULL. */
static plx_comm_t call_comm(const struct plx_request *r)
{
    if (!r->call) return NULL;
    switch (r->kind) {
    case REQ_SLOTS: return r->slots.comm;
    case REQ_DIRECT: return r->direct.comm;
    case REQ_SCHED: return r->sched ? sched_comm(r->sched) : NULL;
    default: return NULL;
    }
}

void plx_req_call_failed(struct plx_request *r)
{
    plx_comm_t c = call_comm(r);
    if (c) plx_callrec_failed(c, r->call);
}

void plx_req_release(struct plx_request *r) { req_recycle(r); }

static void req_recycle(struct plx_request *r)
{
    plx_context_t ctx = r->ctx;
    if (r->persistent) plx_persist_release(r);   /* its schedule lives as long as it does */
    r->magic = PLX_DEAD_MAGIC;
    r->next = ctx->free_reqs;
    ctx->free_reqs = r;
}

static void active_push(struct plx_request *r)
{
    plx_context_t ctx = r->ctx;
    r->next = NULL;
    r->prev = ctx->active_tail;
    if (ctx->active_tail) ctx->active_tail->next = r;
    else ctx->active_head = r;
    ctx->active_tail = r;
}

static void active_remove(struct plx_request *r)
{
    plx_context_t ctx = r->ctx;
    if (r->prev) r->prev->next = r->next;
    else ctx->active_head = r->next;
    if (r->next) r->next->prev = r->prev;
    else ctx->active_tail = r->prev;
    r->next = r->prev = NULL;
}

void plx_req_activate(struct plx_request *r)
{
    /* no clock read on the hot path: the deadline starts at the first check
     * (at most ENGINE_CHECK_S late), so a request that completes quickly
     * never reads the clock */
    r->started = 0;
    active_push(r);
    /* no progress thread (the default): nobody to tell.  While an
     * application thread drives a wait, it moves this one too: the
     * progress thread is told when that wait ends (drive_end) */
    if (!r->ctx->pt.running || r->ctx->pt.driving) return;
    /* a lingering progress thread watches this without the lock */
    __atomic_store_n(&r->ctx->pt.posts, r->ctx->pt.posts + 1, __ATOMIC_RELEASE);
    /* the progress thread sleeps while nothing is in flight */
    if (r->ctx->pt.sleeping) pthread_cond_signal(&r->ctx->pt.wake);
}

int plx_req_direct_solo(const struct plx_request *r)
{
    plx_context_t ctx = r->ctx;
    if (!ctx->pt.running || ctx->pt.driving) return DIRECT_SOLO_CALLER;
    /* the progress thread, with r alone in flight and nobody asking for
     * the lock: as long a step as a caller alone would take (on the core
     * it shares, the application thread is asleep or computing; holding
     * the lock longer delays nobody) */
    if (ctx->active_head == r && !r->next && !__atomic_load_n(&ctx->pt.want, __ATOMIC_RELAXED) &&
        pthread_equal(pthread_self(), ctx->pt.tid))
        return DIRECT_SOLO_THREAD;
    return DIRECT_SOLO_NO;
}

void plx_req_drive_end_slow(plx_context_t ctx)
{
    if (--ctx->pt.driving) return;
    /* back to the progress thread: what is still in flight, and the next post */
    if (ctx->active_head) __atomic_store_n(&ctx->pt.posts, ctx->pt.posts + 1, __ATOMIC_RELEASE);
    if (ctx->pt.sleeping) pthread_cond_signal(&ctx->pt.wake);
}

/* The request reached its end: take it off the active list; a detached
 * one has nobody to report to and is recycled at once. */
static void finish(struct plx_request *r, plx_status_t st)
{
    if (st == PLX_ERR_MISMATCH && r->call) plx_req_call_failed(r);   /* peers on other paths stop too */
    if (r->kind == REQ_SCHED && r->sched && !r->persistent) {
        sched_free(r->sched);
        r->sched = NULL;
    }
    if (r->kind == REQ_RECV && r->received && (st == PLX_SUCCESS || st == PLX_ERR_TRUNCATE))
        *r->received = r->treq.bytes / r->elem_size;
    if (r->kind == REQ_RECV && st == PLX_ERR_TRUNCATE)
        plx_warn("plx_recv: message of %zu bytes from rank %d tag %d truncated", r->treq.bytes,
                 r->peer, r->tag);
    r->status = st;
    /* the job is broken for this context: plx_finalize waits for nobody */
    if (st == PLX_ERR_TIMEOUT || st == PLX_ERR_PEER_FAILED || st == PLX_ERR_MISMATCH)
        r->ctx->failed = 1;
    active_remove(r);
    if (r->detached) req_recycle(r);
    else __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);   /* last: a waiter may look unlocked */
}

void plx_req_finish_locked(struct plx_request *r, plx_status_t st) { finish(r, st); }

static inline int req_done(const struct plx_request *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

plx_status_t plx_req_start_sched(plx_sched_t *s, plx_request_t *out)
{
    plx_context_t ctx = sched_comm(s)->ctx;
    struct plx_request *r = plx_req_alloc(ctx);
    if (!r) {
        sched_free(s);
        return PLX_ERR_NO_MEMORY;
    }
    r->kind = REQ_SCHED;
    r->sched = s;
    plx_status_t st = sched_start(s);
    if (st != PLX_SUCCESS) {
        sched_free(s);
        r->sched = NULL;
        req_recycle(r);
        return st;
    }
    plx_req_activate(r);
    /* a schedule with nothing to wait for (one rank, local copies) ends here */
    if (sched_advance(s)) finish(r, sched_status(s));
    *out = r;
    return PLX_SUCCESS;
}

plx_status_t plx_req_start_slots(plx_comm_t comm, const coll_args_t *a, uint64_t sig,
                                 plx_request_t *out)
{
    struct plx_request *r = plx_req_alloc(comm->ctx);
    if (!r) return PLX_ERR_NO_MEMORY;
    r->kind = REQ_SLOTS;
    plx_slots_start(comm, a, sig, &r->slots);
    *out = r;
    /* the peers may all be there already: the fast small case ends here,
     * without entering the active list (nobody else has seen r yet; the
     * lock is held) */
    int ended = plx_slots_advance(&r->slots);
    if (__builtin_expect(ended && r->slots.status == PLX_SUCCESS, 1)) {
        r->status = PLX_SUCCESS;
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
        return PLX_SUCCESS;
    }
    plx_req_activate(r);
    if (ended) finish(r, r->slots.status);
    return PLX_SUCCESS;
}

plx_status_t plx_req_start_direct(plx_comm_t comm, const coll_args_t *a, plx_request_t *out)
{
    struct plx_request *r = plx_req_alloc(comm->ctx);
    if (!r) return PLX_ERR_NO_MEMORY;
    r->kind = REQ_DIRECT;
    plx_direct_start(comm, a, &r->direct);
    plx_req_activate(r);
    /* with a progress thread the posting thread goes back to its compute
     * at once: a piece here (35-50 us at 128 KiB) would delay the compute,
     * while on the progress thread it overlaps it.  Not for a v-form: its
     * first step keeps the caller's count arrays, which are only good
     * during the call (lib/coll/node_slots_v.c) */
    int moved = 0;
    plx_context_t ctx = comm->ctx;
    if (!ctx->pt.running || ctx->pt.driving || r->direct.v) {
        r->direct.solo = plx_req_direct_solo(r);
        if (plx_direct_advance(&r->direct, &moved)) finish(r, r->direct.status);
    } else {
        /* but its header, at once (a few stores): the peer can start
         * reading this rank's buffers without waiting for this rank's
         * thread to get the core, which the application thread keeps until
         * it sleeps (with the thread's no-spin lock on one CPU: 2 ranks,
         * 1 MiB overlap median 0.80 -> 0.83, perf/RESULTS.md session s9o) */
        if (plx_direct_publish(&r->direct)) finish(r, r->direct.status);
    }
    *out = r;
    return PLX_SUCCESS;
}

plx_status_t plx_req_start_hook(plx_context_t ctx, const plx_req_hook_t *h, plx_request_t *out)
{
    struct plx_request *r = plx_req_alloc(ctx);
    if (!r) return PLX_ERR_NO_MEMORY;
    r->kind = REQ_HOOK;
    r->hook = *h;
    plx_req_activate(r);
    *out = r;
    plx_status_t st = PLX_SUCCESS;
    if (r->hook.advance(r->hook.arg, &st)) finish(r, st);
    return PLX_SUCCESS;
}

plx_status_t plx_req_completed_locked(plx_context_t ctx, plx_status_t st, plx_request_t *out)
{
    struct plx_request *r = plx_req_alloc(ctx);
    if (!r) return PLX_ERR_NO_MEMORY;
    r->kind = REQ_DONE;
    r->done = 1;
    r->status = st;
    *out = r;
    return PLX_SUCCESS;
}

/* Move one active request; 1 if it finished.  *moved (may be NULL) is set
 * when work moved without finishing it (a single-copy collective's piece),
 * so the engine does not back off. */
static int advance_one(struct plx_request *r, int *moved)
{
    switch (r->kind) {
    case REQ_SCHED: {
        int m = 0;
        if (sched_advance_moved(r->sched, &m)) {
            finish(r, sched_status(r->sched));
            return 1;
        }
        if (m && moved) *moved = 1;
        return 0;
    }
    case REQ_HOOK: {
        plx_status_t st = PLX_SUCCESS;
        if (r->hook.advance(r->hook.arg, &st)) {
            finish(r, st);
            return 1;
        }
        return 0;
    }
    case REQ_SLOTS:
        if (plx_slots_advance(&r->slots)) {
            finish(r, r->slots.status);
            return 1;
        }
        return 0;
    case REQ_DIRECT: {
        int m = 0;
        r->direct.solo = plx_req_direct_solo(r);
        if (plx_direct_advance(&r->direct, &m)) {
            finish(r, r->direct.status);
            return 1;
        }
        if (m && moved) *moved = 1;
        return 0;
    }
    case REQ_SEND:
    case REQ_RECV:
        if (r->treq.done) {
            finish(r, r->treq.status);
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

int plx_engine_progress(plx_context_t ctx)
{
    int events = plx_progress(ctx);
    struct plx_request *r = ctx->active_head;
    while (r) {
        struct plx_request *next = r->next;   /* r may leave the list */
        int moved = 0;
        events += advance_one(r, &moved) + moved;
        r = next;
    }
    return events;
}

/* The slow path of a waiting collective: do the peers' records of its
 * call (lib/coll/call_record.c) agree with it, whatever path they took?
 * 1 if a mismatch ended r (finished here). */
static int check_call(struct plx_request *r)
{
    plx_comm_t c = call_comm(r);
    if (!c) return 0;
    /* what the call published (a v-form on direct publishes the slots
     * path and its op holds no arguments to rebuild the signature from) */
    coll_sig_t sig = { { r->call_sig[0], r->call_sig[1] } };
    int path = r->call_path;
    if (plx_callrec_check(c, r->call, &sig, path) == PLX_SUCCESS) return 0;
    int ended = r->kind == REQ_SLOTS ? plx_slots_abort(&r->slots, PLX_ERR_MISMATCH)
              : r->kind == REQ_DIRECT ? plx_direct_abort(&r->direct, PLX_ERR_MISMATCH)
              : sched_abort_mismatch(r->sched);
    if (ended) finish(r, PLX_ERR_MISMATCH);
    return ended;
}

/* Deadlines and dead peers of every active request. */
static void check_deadlines(plx_context_t ctx, double now)
{
    double limit = ctx->cfg.timeout_s;
    struct plx_request *r = ctx->active_head;
    while (r) {
        struct plx_request *next = r->next;
        if (r->started == 0) r->started = now;
        double elapsed = now - r->started;
        if (r->call && check_call(r)) {
            /* ended: the ranks disagree across paths */
        } else if (r->kind == REQ_SCHED) {
            if (sched_check(r->sched, elapsed, limit)) finish(r, sched_status(r->sched));
        } else if (r->kind == REQ_HOOK) {
            plx_status_t st = PLX_SUCCESS;
            if (r->hook.check && r->hook.check(r->hook.arg, elapsed, limit, &st)) finish(r, st);
        } else if (r->kind == REQ_SLOTS) {
            if (plx_slots_check(&r->slots, elapsed, limit)) finish(r, r->slots.status);
        } else if (r->kind == REQ_DIRECT) {
            if (plx_direct_check(&r->direct, elapsed, limit)) finish(r, r->direct.status);
        } else if (r->kind == REQ_SEND || r->kind == REQ_RECV) {
            plx_comm_t c = r->comm;
            int w = c->world_rank[r->peer];
            plx_status_t ps = plx_peer_status(ctx, w);
            if ((ps != PLX_SUCCESS || elapsed >= limit) && !r->treq.done) {
                plx_p2p_cancel(c, r->peer, &r->treq);
                const char *fn = r->kind == REQ_SEND ? "plx_send" : "plx_recv";
                if (r->treq.done) {
                    /* completed while we looked */
                } else if (ps != PLX_SUCCESS) {
                    plx_error("%s on comm %u (rank %d of %d), tag %d: peer rank %d (world %d) failed",
                              fn, c->id, c->rank, c->size, r->tag, r->peer, w);
                    finish(r, ps);
                } else {
                    plx_error("%s timed out after %g s on comm %u (rank %d of %d), tag %d: rank %d "
                              "(world %d) never %s", fn, limit, c->id, c->rank, c->size, r->tag,
                              r->peer, w, r->kind == REQ_SEND ? "took the message" : "sent a matching message");
                    finish(r, PLX_ERR_TIMEOUT);
                }
            }
        }
        r = next;
    }
}

/* At most every ENGINE_CHECK_S: deadlines cost a clock read per request and
 * a peer check is a system call, too much for every test or poll. */
void plx_engine_check_deadlines(plx_context_t ctx)
{
    double now = plx_now();
    if (now < ctx->next_deadline_check) return;
    ctx->next_deadline_check = now + ENGINE_CHECK_S;
    check_deadlines(ctx, now);
}

static int req_ok(const struct plx_request *r)
{
    return r && r->magic == PLX_REQ_MAGIC;
}

/* Hand a finished request's status to the caller and free it; a
 * persistent one becomes inactive instead (handle kept, as MPI-4), and an
 * inactive one gives PLX_SUCCESS at once. */
static plx_status_t collect(plx_request_t *req)
{
    struct plx_request *r = *req;
    plx_status_t st = r->status;
    if (r->persistent) {
        r->status = PLX_SUCCESS;
        r->active = 0;
        return st;
    }
    req_recycle(r);
    *req = NULL;
    return st;
}

int plx_req_is_done(plx_request_t r) { return req_done(r); }
plx_status_t plx_req_collect_locked(plx_request_t *req) { return collect(req); }

/* The one wait loop: until pred(arg) holds, driving everything.  Called
 * and returns with ctx->lock held; the lock is let go while backing off so
 * other threads (and the progress thread) can start and move requests.
 * pred must be safe to evaluate without the lock (it reads done flags). */
typedef int (*wait_pred_t)(void *arg);

#define DIRECT_SLEEP_S 1e-3   /* longest sleep of one pass (a lost wake costs no more) */
/* Before that sleep, yield this long: a sleeping rank leaves its core idle
 * until the futex wake, and waking an idle (virtual) CPU costs an
 * interrupt and a reschedule; a yielding rank keeps the core and hands it
 * to a runnable rank on it, and sees the member's store at once.  Four
 * ranks on 2 cores, 256 KiB-1 MiB: 0.3-0.7x the time of sleeping at once,
 * 100 us-3 ms all alike (perf/RESULTS.md, issue 11, "yield, then sleep") */
#define DIRECT_YIELD_S 1e-3
/* ... unless the yields find the core empty (plx_yield_alone: one that
 * returns within 5 us ran nobody else), so the waiter spins alone while
 * the members it waits for queue on the other core(s), and the kernel does
 * not move one of them here while this core stays busy.  After
 * DIRECT_LONE_S of that, sleep at once: the idle core pulls a waiting rank
 * over (only with two ranks or more per core, ds->lone: see lone_sleep in
 * lib/coll/node_direct.c).  Four ranks on 2 cores: a quarter to a third of the calls of
 * alltoall 4 MiB and reduce 2 MiB ran 3:1 (three ranks on one core, the
 * fourth spinning alone on the other) at 1.3-2.0x the time of the 2:2
 * calls; with this sleep 0.03-0.10 of them (perf/RESULTS.md, session s13b;
 * plx_graph_run naps likewise, lib/graph/exec.c). */
#define DIRECT_LONE_S 50e-6

int plx_req_nap_target(plx_context_t ctx, const struct plx_request *r, direct_sleep_t *ds)
{
    return r && r->kind == REQ_DIRECT && r->direct.solo && ctx->active_head == r && !r->next &&
           plx_direct_sleep_target(&r->direct, ds);
}

void plx_req_idle_step(int events, int nap, direct_sleep_t *ds, double *nap_since, plx_backoff_t *bo)
{
    if (events > 0) {
        plx_backoff_reset(bo);
        *nap_since = 0;
    } else if (nap) {
        double now = plx_now();
        if (*nap_since == 0) *nap_since = now;
        int alone = 0;
        if (now - *nap_since < DIRECT_YIELD_S) {
            if (ds->lone) alone = plx_yield_alone(&bo->lone_since, DIRECT_LONE_S);
            else sched_yield();
        }
        if (now - *nap_since >= DIRECT_YIELD_S || alone) {
            plx_direct_sleep(ds, DIRECT_SLEEP_S);
            bo->lone_since = 0;
        }
    } else {
        *nap_since = 0;
        plx_backoff_idle(bo);
    }
}

static void engine_wait_loop(plx_context_t ctx, wait_pred_t pred, void *arg, struct plx_request *focus)
{
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    double nap_since = 0;   /* start of the current yield window of a direct wait */
    /* a node-local collective finishes by reading shared memory, not by a
     * transport event: look at it first, before polling every transport */
    if (focus && focus->kind != REQ_SLOTS && focus->kind != REQ_DIRECT) focus = NULL;
    for (unsigned iter = 1; !pred(arg); iter++) {
        if (focus && advance_one(focus, NULL)) break;
        int events = plx_engine_progress(ctx);
        if ((iter & 63) == 0) plx_engine_check_deadlines(ctx);
        if (pred(arg)) break;
        /* a single-copy collective, alone in flight, waiting for a member
         * while ranks outnumber cores: yield a while, then sleep until that
         * member's store (bounded: deadlines and dead peers are checked on
         * the way) */
        direct_sleep_t ds;
        int nap = events == 0 && plx_req_nap_target(ctx, focus, &ds);
        plx_ctx_unlock(ctx);
        plx_req_idle_step(events, nap, &ds, &nap_since, &bo);
        if (ctx->pt.running) {
            /* the progress thread is doing the work: help only when the
             * lock is free, otherwise just watch the flags */
            while (!plx_ctx_trylock(ctx)) {
                if (pred(arg)) {
                    plx_ctx_lock(ctx);
                    return;
                }
                plx_backoff_idle(&bo);
            }
        } else {
            plx_ctx_lock(ctx);
        }
    }
}

/* A waiting thread drives its wait itself, and the progress thread keeps
 * away meanwhile (plx_req_drive_begin): on the core they share (plexusrun
 * binds a rank to a core), passing the lock back and forth between the
 * two costs a switch per piece, and the thread's short pieces and
 * no-spin waits are slower than a lone caller's. */
static void engine_wait(plx_context_t ctx, wait_pred_t pred, void *arg, struct plx_request *focus)
{
    plx_req_drive_begin(ctx);
    engine_wait_loop(ctx, pred, arg, focus);
    plx_req_drive_end(ctx);
}

static int one_done(void *arg) { return req_done(*(plx_request_t *)arg); }

plx_status_t plx_test(plx_request_t *req, int *done)
{
    if (done) *done = 0;
    if (!req || !done) return plx_bad_arg("plx_test", "req or done is NULL");
    if (!*req) {
        *done = 1;
        return PLX_SUCCESS;
    }
    if (!req_ok(*req)) return plx_bad_arg("plx_test", "not a live request");
    plx_context_t ctx = (*req)->ctx;
    if (ctx->pt.running) {
        /* the progress thread moves it; a test that finds the lock busy
         * just reports the flag (never blocks the caller) */
        if (!plx_ctx_trylock(ctx)) {
            if (!req_done(*req)) {
                *done = 0;
                return PLX_SUCCESS;
            }
            plx_ctx_lock(ctx);
        }
    } else {
        plx_ctx_lock(ctx);
    }
    if (!req_done(*req)) plx_engine_progress(ctx);
    if (!req_done(*req)) {
        plx_engine_check_deadlines(ctx);
        if (!req_done(*req)) {
            plx_ctx_unlock(ctx);
            *done = 0;
            return PLX_SUCCESS;
        }
    }
    *done = 1;
    plx_status_t st = collect(req);
    plx_ctx_unlock(ctx);
    return st;
}

plx_status_t plx_req_wait_locked(plx_request_t *req)
{
    plx_context_t ctx = (*req)->ctx;
    if (!req_done(*req)) engine_wait(ctx, one_done, req, *req);
    return collect(req);
}

plx_status_t plx_wait(plx_request_t *req)
{
    if (!req) return plx_bad_arg("plx_wait", "req is NULL");
    if (!*req) return PLX_SUCCESS;
    if (!req_ok(*req)) return plx_bad_arg("plx_wait", "not a live request");
    /* a persistent run that already ended (often at its start): its status
     * and flags belong to the owner now, no engine state is touched */
    if ((*req)->persistent && req_done(*req)) return collect(req);
    plx_context_t ctx = (*req)->ctx;
    plx_ctx_lock(ctx);
    if (!req_done(*req)) engine_wait(ctx, one_done, req, *req);
    plx_status_t st = collect(req);
    plx_ctx_unlock(ctx);
    return st;
}

typedef struct multi {
    int n;
    plx_request_t *reqs;
    int any;                   /* waitany: stop at the first; waitall: at the last */
    int index;
} multi_t;

static int multi_done(void *arg)
{
    multi_t *m = arg;
    int pending = 0;
    for (int i = 0; i < m->n; i++) {
        if (!m->reqs[i]) continue;
        /* an inactive persistent request is complete for waitall and
         * ignored by waitany, like MPI's */
        if (m->any && m->reqs[i]->persistent && !m->reqs[i]->active) continue;
        if (req_done(m->reqs[i])) {
            if (m->any) {
                m->index = i;
                return 1;
            }
        } else {
            pending++;
        }
    }
    return pending == 0;
}

/* *ctx: the context of the entries, NULL when there is none to wait for
 * (NULL entries; for waitany also inactive persistent ones). */
static plx_status_t check_array(const char *fn, int n, plx_request_t reqs[], plx_context_t *ctx,
                                int any)
{
    if (n < 0 || (n > 0 && !reqs)) return plx_bad_arg(fn, "bad request array (n = %d)", n);
    *ctx = NULL;
    for (int i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        if (!req_ok(reqs[i])) return plx_bad_arg(fn, "entry %d is not a live request", i);
        if (any && reqs[i]->persistent && !reqs[i]->active) continue;
        if (*ctx && reqs[i]->ctx != *ctx) return plx_bad_arg(fn, "requests of different contexts");
        *ctx = reqs[i]->ctx;
    }
    return PLX_SUCCESS;
}

plx_status_t plx_waitall(int n, plx_request_t reqs[], plx_status_t statuses[])
{
    plx_context_t ctx;
    PLX_CHECK(check_array("plx_waitall", n, reqs, &ctx, 0));
    if (!ctx) {
        for (int i = 0; i < n; i++)
            if (statuses) statuses[i] = PLX_SUCCESS;
        return PLX_SUCCESS;
    }
    plx_ctx_lock(ctx);
    multi_t m = { n, reqs, 0, -1 };
    engine_wait(ctx, multi_done, &m, NULL);
    plx_status_t first = PLX_SUCCESS;
    for (int i = 0; i < n; i++) {
        plx_status_t st = reqs[i] ? collect(&reqs[i]) : PLX_SUCCESS;
        if (statuses) statuses[i] = st;
        if (first == PLX_SUCCESS) first = st;
    }
    plx_ctx_unlock(ctx);
    return first;
}

plx_status_t plx_waitany(int n, plx_request_t reqs[], int *index)
{
    if (!index) return plx_bad_arg("plx_waitany", "index is NULL");
    *index = -1;
    plx_context_t ctx;
    PLX_CHECK(check_array("plx_waitany", n, reqs, &ctx, 1));
    *index = -1;
    if (!ctx) return PLX_SUCCESS;
    plx_ctx_lock(ctx);
    multi_t m = { n, reqs, 1, -1 };
    engine_wait(ctx, multi_done, &m, NULL);
    *index = m.index;
    plx_status_t st = collect(&reqs[m.index]);
    plx_ctx_unlock(ctx);
    return st;
}

plx_status_t plx_request_free(plx_request_t *req)
{
    if (!req) return plx_bad_arg("plx_request_free", "req is NULL");
    if (!*req) return PLX_SUCCESS;
    if (!req_ok(*req)) return plx_bad_arg("plx_request_free", "not a live request");
    struct plx_request *r = *req;
    plx_context_t ctx = r->ctx;
    *req = NULL;
    plx_ctx_lock(ctx);
    /* (an inactive persistent request is done; an active one is released
     * when its run ends) */
    if (req_done(r)) req_recycle(r);
    else r->detached = 1;
    plx_ctx_unlock(ctx);
    return PLX_SUCCESS;
}

void plx_requests_release(plx_context_t ctx)
{
    struct plx_request *r = ctx->active_head;
    while (r) {
        struct plx_request *next = r->next;
        if (r->persistent) {
            /* withdraw its transfers; the object goes with the other
             * persistent ones below */
            if (r->kind == REQ_SCHED && r->sched) {
                sched_free(r->sched);
                r->sched = NULL;
            } else if ((r->kind == REQ_SEND || r->kind == REQ_RECV) && !r->treq.done) {
                plx_p2p_cancel(r->comm, r->peer, &r->treq);
            }
            r = next;
            continue;
        }
        if (r->kind == REQ_SCHED && r->sched) sched_free(r->sched);   /* cancels its transfers */
        else if (r->kind == REQ_HOOK && r->hook.cancel) r->hook.cancel(r->hook.arg);
        else if ((r->kind == REQ_SEND || r->kind == REQ_RECV) && !r->treq.done)
            plx_p2p_cancel(r->comm, r->peer, &r->treq);
        r->magic = PLX_DEAD_MAGIC;
        free(r);
        r = next;
    }
    ctx->active_head = ctx->active_tail = NULL;
    plx_persist_release_all(ctx);
    while ((r = ctx->free_reqs)) {
        ctx->free_reqs = r->next;
        free(r);
    }
}
