/*
 * lib/graph/exec.c — running a compiled task graph: plx_graph_launch,
 * plx_graph_run, the progress-engine hook, and the dispatch of ready nodes
 * by whichever thread finished their last predecessor.
 *
 * A launch is ONE engine request of kind REQ_HOOK (lib/engine/request.h): the
 * engine calls graph_advance under the context lock on every progress pass
 * (inside plx_wait/plx_test/plx_graph_run, or on the progress thread with
 * PLX_PROGRESS=thread).  It collects finished communication requests,
 * releases their successors and dispatches what became ready.  A worker
 * that finishes a compute node does the same for its successors at once,
 * without the engine: a chain of compute nodes never waits for a progress
 * pass (one can take milliseconds while large reductions run).
 *
 * Dispatching a step: every ready node at once, in the policy's order.
 * comm_first posts communication before handing out the compute nodes that
 * became ready in the same step (README, task graphs: a ready compute node must never
 * wait behind communication, and posting never blocks a worker: a worker
 * posts only when the context lock is free, else leaves the node to the
 * engine's next pass); compute_first the other way round; fifo runs one node
 * at a time in ready order (the naive executor, kept to measure the gain).
 * Collective nodes of one communicator are posted strictly in the compiled
 * matching order (a ready one "parks" until the ones before it are posted),
 * so every rank posts them in the same order whatever the timing, and at
 * most PLX_GRAPH_COMM_WINDOW of them are in flight per communicator.
 *
 * Compute nodes measured under PLX_GRAPH_INLINE_US run inline in the
 * engine's thread (a hand-off to a worker and back costs more), at most
 * GRAPH_INLINE_BUDGET_S per pass; a thread that finished a node runs the
 * best successor that became ready itself (a chain stays on one thread);
 * the others go to the worker pool (lib/graph/pool.c), highest priority
 * first.
 *
 * The hot path of a compiled graph allocates nothing and makes no system
 * call: counters are reset from arrays made at compile, requests come from
 * the engine's free list, and a worker is woken (futex) only when no thread
 * is already looking for work.
 */
#include "graph/graph.h"

#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Small compute nodes run inline for at most this long per engine pass,
 * so the transports are still polled often. */
#define GRAPH_INLINE_BUDGET_S 50e-6
/* Inline nodes are timed at one launch in this many (a power of two); a
 * node that became long moves back to the workers within as many launches. */
#define GRAPH_MEASURE_EVERY 16

static int ctx_alive(plx_graph_t g)
{
    return !g->ctx_dead && g->ctx->magic == PLX_CTX_MAGIC;
}

static const char *node_what(const gnode_t *x)
{
    switch (x->kind) {
    case GN_COMPUTE: return "compute";
    case GN_SEND: return "send";
    case GN_RECV: return "recv";
    default: return plx_coll_name(x->u.coll.coll);
    }
}

/* How a dispatch runs: in the engine hook (ctx->lock held, small nodes
 * inline) or in a thread that finished a compute node (ctx->lock taken
 * only if free; self: a pool worker, which takes the next node itself). */
typedef struct disp {
    int engine;
    int have_ctx;
    int self;                  /* 1: a pool worker; 2: plx_graph_run's thread; 0: the engine */
    int next;                  /* a compute node the calling thread keeps and runs next, -1 */
} disp_t;

/* ---- completion and readiness (g->lk) ---------------------------------------- */
static void make_ready(plx_graph_t g, uint32_t s)
{
    if (g->stop) return;
    if (g->policy == PLX_GRAPH_FIFO) {
        g->fifo[g->fifo_tail++] = s;
        return;
    }
    const gnode_t *x = &g->nodes[s];
    lvq_push(x->kind == GN_COMPUTE ? &g->crq : &g->rq, x->level, s);
}

static void node_done(plx_graph_t g, uint32_t v)
{
    g->state[v] = NS_DONE;
    g->remaining--;
    atomic_fetch_add_explicit(&g->completions, 1, memory_order_relaxed);
    const gnode_t *x = &g->nodes[v];
    const uint32_t *s = g->succ + x->succ_off;
    for (uint32_t i = 0; i < x->nsucc; i++)
        if (--g->pending[s[i]] == 0) make_ready(g, s[i]);
}

static int launch_over(const plx_graph_t g)
{
    return g->remaining == 0 || (g->stop && !g->nposted && !g->outstanding);
}

/* A communication node failed: nothing more starts (the ranks no longer
 * agree on what was posted); the launch ends when the nodes in flight end. */
static void comm_failed(plx_graph_t g, uint32_t v, plx_status_t st)
{
    const gnode_t *x = &g->nodes[v];
    if (g->status == PLX_SUCCESS) g->status = st;
    if (!g->stop)
        plx_error("plx_graph: node %u (%s on comm %u) failed: %s; the launch stops", v,
                  node_what(x), g->comms[x->cslot].comm->id, plx_strerror(st));
    g->state[v] = NS_DONE;
    g->stop = 1;
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
}

/* A compute node returned non-zero: the compute nodes not yet started are
 * skipped, communication goes on so the other ranks are not left waiting. */
static void compute_failed(plx_graph_t g, uint32_t v, int rc)
{
    if (g->status == PLX_SUCCESS) {
        g->status = PLX_ERR_COMPUTE_FAILED;
        g->failed_node = (int)v;
        g->failed_rc = rc;
        plx_error("plx_graph: compute node %u returned %d: the launch ends with "
                  "PLX_ERR_COMPUTE_FAILED (compute nodes not yet started are skipped; "
                  "communication nodes still run so the other ranks are not left waiting)",
                  v, rc);
    }
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
}

static void comm_finished(plx_graph_t g, uint32_t v, plx_status_t st)
{
    if (g->timing) g->t_end[v] = plx_now();
    if (st != PLX_SUCCESS) comm_failed(g, v, st);
    else node_done(g, v);
}

/* ---- posting communication (ctx->lock and g->lk) -------------------------------- */
static void start_one(plx_graph_t g, uint32_t v)
{
    if (g->stop) return;
    const gnode_t *x = &g->nodes[v];
    plx_comm_t comm = g->comms[x->cslot].comm;
    plx_request_t r = NULL;
    plx_status_t st;
    if (g->timing) g->t_start[v] = plx_now();
    if (x->kind == GN_COLL)
        st = plx_coll_start_locked(comm, &x->u.coll, &r);
    else
        st = plx_p2p_start_locked(x->kind == GN_SEND ? REQ_SEND : REQ_RECV, x->u.p2p.buf,
                                  x->u.p2p.count, x->u.p2p.dt, x->u.p2p.peer, x->u.p2p.tag, comm,
                                  x->u.p2p.received, &r);
    if (st != PLX_SUCCESS) {
        comm_failed(g, v, st);
        return;
    }
    if (plx_req_is_done(r)) {            /* one rank, count 0, or every peer already there */
        comm_finished(g, v, plx_req_collect_locked(&r));
        return;
    }
    g->state[v] = NS_POSTED;
    g->req[v] = r;
    g->posted[g->nposted++] = v;
    if (x->kind == GN_COLL) {
        g->ncoll_posted++;
        g->comms[x->cslot].inflight++;
    }
}

/* Post the parked collectives of gc whose turn has come, while the window
 * has room. */
static void pump(plx_graph_t g, gcomm_t *gc)
{
    while (gc->next < gc->ncoll && g->state[gc->order[gc->next]] == NS_PARKED &&
           gc->inflight < g->window) {
        uint32_t v = gc->order[gc->next++];
        start_one(g, v);
    }
}

/* A ready communication node: collectives wait for their turn on their
 * communicator (the compiled matching order); send/recv go at once. */
static void post_comm(plx_graph_t g, uint32_t v)
{
    const gnode_t *x = &g->nodes[v];
    if (x->kind != GN_COLL) {
        start_one(g, v);
        return;
    }
    /* parked until its turn (matching order) and until the window has
     * room: many large collectives in flight at once each advance a little
     * per pass and thrash the caches (2x slower in all on 2 ranks) */
    g->state[v] = NS_PARKED;
    pump(g, &g->comms[x->cslot]);
}

/* The context lock, for posting: the engine holds it; another thread takes
 * it only if it is free (never waits on the engine). */
static int need_ctx(plx_graph_t g, disp_t *d)
{
    if (d->have_ctx) return 1;
    if (g->stop) return 0;               /* nothing to post (and the context may be gone) */
    d->have_ctx = plx_ctx_trylock(g->ctx);
    return d->have_ctx;
}

/* ---- handing out compute nodes ---------------------------------------------------- */
/* May plx_graph_run's thread run a compute node now?  With a progress
 * thread, always (it moves communication meanwhile).  Otherwise only when
 * nothing else of the launch is in flight: while it computes nobody would
 * move the communication. */
static int helper_ok(plx_graph_t g, int comm_coming)
{
    return g->ctx->pt.running ||
           (g->nposted == 0 && g->outstanding <= 1 && !comm_coming && g->rq.count == 0);
}

/* A compute node measured under PLX_GRAPH_INLINE_US runs inline in the
 * thread driving the engine: handing it to a worker and back costs more
 * (microseconds, tens under load) than running it. */
static inline int runs_inline(const plx_graph_t g, uint32_t v)
{
    float t = g->last[v];
    return t >= 0 && t < g->inline_s;
}

/* Engine only: run deferred small nodes while this pass's inline budget
 * lasts; a communication node made ready here is posted before more
 * compute (the dispatch loop comes back). */
static void run_deferred(plx_graph_t g)
{
    while (g->defer_head < g->defer_tail && g->pass_left > 0 && !g->rq.count) {
        uint32_t v = g->defer[g->defer_head++];
        int rc;
        if (g->measure || g->timing) {
            rc = graph_call_compute(g, v);
        } else if (atomic_load_explicit(&g->skip, memory_order_relaxed)) {
            rc = 0;
        } else {
            /* two clock reads would cost more than the node: its last
             * measured duration stands until the next measured launch */
            rc = g->nodes[v].u.c.fn(g->nodes[v].u.c.arg);
        }
        g->pass_left -= g->last[v];
        if (rc) compute_failed(g, v, rc);
        node_done(g, v);
    }
}

/* May the thread that finished a node keep the best ready one and run it
 * itself (no queue, no hand-off)?  A worker always; plx_graph_run's thread
 * when it may compute at all. */
static int may_continue(plx_graph_t g, const disp_t *d, int comm_coming)
{
    return d->next < 0 && (d->self == 1 || (d->self == 2 && helper_ok(g, comm_coming)));
}

/* Hand the ready compute nodes out, highest priority first: in the engine
 * the small ones are run inline (after the others are handed out); a
 * thread that finished a node keeps the best one for itself; the rest go
 * to the workers in one batch (they start at once, in parallel). */
static void flush_compute(plx_graph_t g, disp_t *d, int comm_coming)
{
    int skip = atomic_load_explicit(&g->skip, memory_order_relaxed);
    uint32_t k = 0;
    while (g->crq.count) {
        uint32_t v = lvq_pop(&g->crq);
        if (skip) {
            node_done(g, v);               /* a compute node failed: the rest complete unrun */
        } else if (d->engine && runs_inline(g, v)) {
            g->defer[g->defer_tail++] = v;
        } else if (may_continue(g, d, comm_coming)) {
            d->next = (int)v;              /* the highest priority one */
            g->state[v] = NS_RUNNING;
            g->outstanding++;
        } else {
            g->batch[k++] = v;
        }
    }
    if (k) {
        for (uint32_t i = 0; i < k; i++) g->state[g->batch[i]] = NS_RUNNING;
        g->outstanding += k;
        /* a caller that kept a node is busy: it takes none of these */
        graph_pool_push(g, g->batch, k, helper_ok(g, comm_coming), d->next >= 0 ? 0 : d->self);
    }
    if (d->engine) run_deferred(g);
}

static void dispatch(plx_graph_t g, disp_t *d)
{
    int compute_first = g->policy == PLX_GRAPH_COMPUTE_FIRST;
    for (;;) {
        if (compute_first) flush_compute(g, d, g->rq.count > 0);
        while (g->rq.count && need_ctx(g, d)) post_comm(g, lvq_pop(&g->rq));
        flush_compute(g, d, 0);
        int inline_left = d->engine && g->defer_head < g->defer_tail && g->pass_left > 0;
        if (!g->crq.count && !inline_left && !(g->rq.count && need_ctx(g, d))) break;
    }
    /* left for the engine's next pass: communication this thread could not
     * post, small nodes beyond this pass's budget */
    if (g->rq.count || g->defer_head < g->defer_tail) atomic_store(&g->wake, 1);
}

/* The naive executor: one node at a time, in ready order, each compute or
 * collective node run to completion before the next starts.  Send and recv
 * are only posted (as a naive executor would use isend/irecv): waiting for
 * each would deadlock pairs that must be in flight together. */
static void dispatch_fifo(plx_graph_t g, disp_t *d)
{
    while (!g->stop && !g->ncoll_posted && !g->outstanding && g->fifo_head < g->fifo_tail) {
        uint32_t v = g->fifo[g->fifo_head];
        if (g->nodes[v].kind != GN_COMPUTE) {
            if (!need_ctx(g, d)) {
                atomic_store(&g->wake, 1);
                break;
            }
            g->fifo_head++;
            start_one(g, v);
        } else if (atomic_load_explicit(&g->skip, memory_order_relaxed)) {
            g->fifo_head++;
            node_done(g, v);
        } else if (d->engine && runs_inline(g, v)) {
            if (g->pass_left <= 0) {
                atomic_store(&g->wake, 1);
                break;
            }
            g->fifo_head++;
            g->defer[g->defer_tail++] = v;
            run_deferred(g);
        } else {
            g->fifo_head++;
            g->state[v] = NS_RUNNING;
            g->outstanding = 1;
            if (may_continue(g, d, 0)) d->next = (int)v;
            else graph_pool_push(g, &v, 1, 1, d->self);
        }
    }
}

static void dispatch_any(plx_graph_t g, disp_t *d)
{
    if (g->policy == PLX_GRAPH_FIFO) dispatch_fifo(g, d);
    else dispatch(g, d);
}

/* ---- a worker (or plx_graph_run's thread) finished a compute node --------------------- */
int graph_worker_done(plx_graph_t g, uint32_t v, int rc, int self)
{
    disp_t d = { 0, 0, self, -1 };
    pthread_mutex_lock(&g->lk);
    g->outstanding--;
    if (g->active) {                     /* else: a launch that timed out or was cancelled */
        if (rc) compute_failed(g, v, rc);
        node_done(g, v);
        dispatch_any(g, &d);
        if (d.have_ctx) plx_ctx_unlock(g->ctx);
        if (launch_over(g)) atomic_store(&g->wake, 1);   /* the engine ends the request */
    }
    pthread_mutex_unlock(&g->lk);
    return d.next;
}

/* ---- the hook (ctx->lock held) ------------------------------------------------------ */
/* Finished communication requests (g->lk held). */
static void collect_comm(plx_graph_t g)
{
    for (uint32_t i = 0; i < g->nposted;) {
        uint32_t v = g->posted[i];
        if (!plx_req_is_done(g->req[v])) {
            i++;
            continue;
        }
        g->posted[i] = g->posted[--g->nposted];
        const gnode_t *x = &g->nodes[v];
        if (x->kind == GN_COLL) {
            g->ncoll_posted--;
            g->comms[x->cslot].inflight--;
        }
        comm_finished(g, v, plx_req_collect_locked(&g->req[v]));
        if (x->kind == GN_COLL) pump(g, &g->comms[x->cslot]);   /* room in the window */
    }
}

static int graph_advance(void *arg, plx_status_t *st)
{
    plx_graph_t g = arg;
    /* the fast path of every progress poll: nothing to do without a wake-up
     * or a finished request (posted[] changes only under ctx->lock) */
    int any = atomic_load_explicit(&g->wake, memory_order_relaxed) &&
              atomic_exchange_explicit(&g->wake, 0, memory_order_acquire);
    for (uint32_t i = 0; !any && i < g->nposted; i++) any = plx_req_is_done(g->req[g->posted[i]]);
    if (!any) return 0;
    pthread_mutex_lock(&g->lk);
    collect_comm(g);
    g->pass_left = GRAPH_INLINE_BUDGET_S;
    disp_t d = { 1, 1, 0, -1 };
    dispatch_any(g, &d);
    if (g->stop && g->outstanding) {
        /* nothing more runs: take back what still waits for a thread */
        g->outstanding -= graph_pool_purge(g);
    } else if (g->helper && g->nposted && atomic_load_explicit(&g->cq_n, memory_order_relaxed)) {
        /* a node queued for plx_graph_run's thread while nothing was in
         * flight must not wait now that communication is */
        graph_pool_kick(g, helper_ok(g, 0));
    }
    int over = launch_over(g);
    if (over) {
        g->active = 0;
        *st = g->status;
    }
    pthread_mutex_unlock(&g->lk);
    return over;
}

/* End a launch early (timeout; g->lk held): posted requests are handed to
 * the engine (detached: it frees them when they end), queued compute is
 * taken back; compute nodes running on a worker finish on their own. */
static void abandon(plx_graph_t g)
{
    for (uint32_t i = 0; i < g->nposted; i++) {
        plx_request_t r = g->req[g->posted[i]];
        if (plx_req_is_done(r)) (void)plx_req_collect_locked(&r);
        else r->detached = 1;
    }
    g->nposted = g->ncoll_posted = 0;
    g->stop = 1;
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
    g->outstanding -= graph_pool_purge(g);
    g->active = 0;
}

/* What a stuck launch waits for, for the timeout message (g->lk held). */
static void describe_pending(plx_graph_t g, char *buf, size_t len)
{
    size_t off = 0;
    int shown = 0, more = 0;
    buf[0] = '\0';
    for (uint32_t v = 0; v < g->n; v++) {
        int s = g->state[v];
        if (s != NS_RUNNING && s != NS_POSTED && s != NS_PARKED) continue;
        if (shown == 6 || off >= len - 80) {
            more++;
            continue;
        }
        const gnode_t *x = &g->nodes[v];
        const char *where = s == NS_RUNNING ? "running or queued for a worker"
                          : s == NS_POSTED ? "posted, not complete"
                                           : "ready, waiting for earlier collectives of its communicator";
        if (x->kind == GN_COMPUTE)
            off += (size_t)snprintf(buf + off, len - off, "%snode %u (compute) %s", shown ? "; " : "",
                                    v, where);
        else
            off += (size_t)snprintf(buf + off, len - off, "%snode %u (%s on comm %u) %s",
                                    shown ? "; " : "", v, node_what(x), g->comms[x->cslot].comm->id,
                                    where);
        shown++;
    }
    if (more && off < len) snprintf(buf + off, len - off, "; and %d more", more);
    if (!shown) snprintf(buf, len, "no node in flight");
}

/* Every ~100 ms: a launch that completed no node for PLX_TIMEOUT ends. */
static int graph_check(void *arg, double elapsed, double limit, plx_status_t *st)
{
    plx_graph_t g = arg;
    uint64_t c = atomic_load_explicit(&g->completions, memory_order_relaxed);
    if (c != g->chk_completions || elapsed < g->chk_since) {
        g->chk_completions = c;
        g->chk_since = elapsed;
        return 0;
    }
    /* posted collectives time out by themselves, naming the missing ranks:
     * give them the first word */
    double lim = g->nposted ? limit + 1.0 : limit;
    if (elapsed - g->chk_since < lim) return 0;
    char what[600];
    pthread_mutex_lock(&g->lk);
    describe_pending(g, what, sizeof what);
    plx_error("plx_graph: launch completed no node for %g s (PLX_TIMEOUT): %s", elapsed - g->chk_since,
              what);
    abandon(g);
    pthread_mutex_unlock(&g->lk);
    *st = PLX_ERR_TIMEOUT;
    return 1;
}

/* plx_finalize with the launch in flight: the engine frees every request
 * (ours included), so forget them without touching them. */
static void graph_cancel(void *arg)
{
    plx_graph_t g = arg;
    pthread_mutex_lock(&g->lk);
    g->nposted = g->ncoll_posted = 0;
    g->stop = 1;
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
    g->outstanding -= graph_pool_purge(g);
    g->active = 0;
    g->ctx_dead = 1;
    pthread_mutex_unlock(&g->lk);
}

/* ---- launch ------------------------------------------------------------------------- */
int graph_is_running(plx_graph_t g)
{
    pthread_mutex_lock(&g->lk);
    int r = g->active;
    pthread_mutex_unlock(&g->lk);
    return r;
}

plx_status_t graph_quiesce(const char *fn, plx_graph_t g)
{
    plx_status_t st = PLX_SUCCESS;
    pthread_mutex_lock(&g->lk);
    if (g->active)
        st = plx_bad_arg(fn, "the graph is running a launch (wait for its request first)");
    else if (g->outstanding)
        st = plx_bad_arg(fn, "%u compute node(s) of a launch that timed out are still running",
                         g->outstanding);
    pthread_mutex_unlock(&g->lk);
    return st;
}

static plx_status_t launch(const char *fn, plx_graph_t g, plx_request_t *req, int helper)
{
    if (!g || g->magic != PLX_GRAPH_MAGIC) return plx_bad_arg(fn, "not a live graph");
    if (!req) return plx_bad_arg(fn, "req is NULL");
    if (!g->compiled) return plx_bad_arg(fn, "the graph is not compiled (plx_graph_compile first)");
    if (!ctx_alive(g)) return plx_bad_arg(fn, "the graph's context was finalized");
    for (uint32_t c = 0; c < g->ncomms; c++)
        if (!plx_comm_ok(g->comms[c].comm) || g->comms[c].comm->gen != g->comms[c].comm_gen)
            return plx_bad_arg(fn, "a communicator of the graph was freed after compile");
    plx_context_t ctx = g->ctx;
    plx_ctx_lock(ctx);
    pthread_mutex_lock(&g->lk);
    plx_status_t st = PLX_SUCCESS;
    if (g->active)
        st = plx_bad_arg(fn, "the graph is still running an earlier launch (wait for its request first)");
    else if (g->outstanding)
        st = plx_bad_arg(fn, "%u compute node(s) of an earlier launch that timed out are still running",
                         g->outstanding);
    if (st != PLX_SUCCESS) {
        pthread_mutex_unlock(&g->lk);
        plx_ctx_unlock(ctx);
        return st;
    }
    /* per-launch reset: O(n) copies of arrays made at compile, no allocation */
    uint32_t n = g->n;
    memcpy(g->pending, g->npred0, (size_t)n * sizeof *g->pending);
    memset(g->state, 0, n);
    if (g->timing) {
        memset(g->t_start, 0, (size_t)n * sizeof *g->t_start);
        memset(g->t_end, 0, (size_t)n * sizeof *g->t_end);
    }
    for (uint32_t c = 0; c < g->ncomms; c++) g->comms[c].next = g->comms[c].inflight = 0;
    lvq_reset(&g->rq);
    lvq_reset(&g->crq);
    g->defer_head = g->defer_tail = 0;
    g->fifo_head = g->fifo_tail = 0;
    g->nposted = g->ncoll_posted = 0;
    g->status = PLX_SUCCESS;
    g->stop = 0;
    atomic_store_explicit(&g->skip, 0, memory_order_relaxed);
    g->failed_node = -1;
    g->remaining = n;
    g->chk_completions = atomic_load_explicit(&g->completions, memory_order_relaxed);
    g->measure = (g->launches++ & (GRAPH_MEASURE_EVERY - 1)) == 0;
    g->chk_since = 0;
    for (uint32_t i = 0; i < g->nroots; i++) make_ready(g, g->roots[i]);
    g->active = 1;
    atomic_store_explicit(&g->wake, 1, memory_order_relaxed);
    /* the flag only matters while g has nodes queued, so a value left by
     * the last launch is harmless; the pool mutex is taken only to change it */
    if (g->pool) {
        if (g->helper != helper) graph_pool_helper_set(g, helper);
        else atomic_store_explicit(&g->helper_idle, helper, memory_order_relaxed);
    }
    pthread_mutex_unlock(&g->lk);
    plx_req_hook_t hook = { graph_advance, graph_check, graph_cancel, g };
    st = plx_req_start_hook(ctx, &hook, req);   /* runs the first dispatch */
    if (st != PLX_SUCCESS) {                    /* nothing was dispatched */
        pthread_mutex_lock(&g->lk);
        g->active = 0;
        pthread_mutex_unlock(&g->lk);
    }
    plx_ctx_unlock(ctx);
    return st;
}

plx_status_t plx_graph_launch(plx_graph_t g, plx_request_t *req)
{
    if (req) *req = NULL;       /* stays NULL when nothing is launched */
    return launch("plx_graph_launch", g, req, 0);
}

/* One idle step of plx_graph_run while ranks outnumber cores: after the
 * back-off's pure polls, yields timed by plx_yield_alone; after RUN_LONE_S
 * of yields alone on this core, nap RUN_NAP_S so that a waiting rank is
 * pulled over (4 ranks on 2 cores: the engine threads sat 3:1 through a
 * third of graph_bench's timed runs, the communication then at the speed
 * of the crowded core, up to 20 ms more per 40 ms run; perf/RESULTS.md,
 * session s12c). */
#define RUN_LONE_S 100e-6
#define RUN_NAP_S 50e-6
static void run_idle_oversub(plx_backoff_t *bo, double *lone_since)
{
    if (bo->idle_polls < 64) {   /* the back-off's pure polls first */
        plx_backoff_idle(bo);
        return;
    }
    if (plx_yield_alone(lone_since, RUN_LONE_S)) {
        struct timespec ts = { 0, (long)(RUN_NAP_S * 1e9) };
        nanosleep(&ts, NULL);
    }
}

/* Launch and wait, this thread running compute nodes when allowed (see
 * helper_ok) and driving the engine otherwise, like plx_wait's loop. */
plx_status_t plx_graph_run(plx_graph_t g)
{
    plx_request_t req;
    PLX_CHECK(launch("plx_graph_run", g, &req, 1));
    plx_context_t ctx = g->ctx;
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    unsigned iter = 0;
    uint64_t seen = 0;
    double lone_since = 0;   /* this thread's yields found its core empty since then (0: not) */
    while (!plx_req_is_done(req)) {
        int work = 0;
        if (g->pool) {
            int v = graph_pool_helper_take(g);
            if (v >= 0) {
                graph_run_compute(g, (uint32_t)v, 2);
                atomic_store_explicit(&g->helper_idle, 1, memory_order_relaxed);
                work = 1;
            }
        }
        /* with a progress thread, help only when the lock is free */
        if (ctx->pt.running ? plx_ctx_trylock(ctx) : (plx_ctx_lock(ctx), 1)) {
            work += plx_engine_progress(ctx);
            if ((++iter & 63) == 0) plx_engine_check_deadlines(ctx);
            plx_ctx_unlock(ctx);
        }
        /* the engine counts no event for the graph's own moves */
        uint64_t c = atomic_load_explicit(&g->completions, memory_order_relaxed);
        if (c != seen) {
            seen = c;
            work = 1;
        }
        if (work) {
            plx_backoff_reset(&bo);
            lone_since = 0;
        } else if (g->oversub) {
            run_idle_oversub(&bo, &lone_since);
        } else {
            plx_backoff_idle(&bo);
        }
    }
    plx_ctx_lock(ctx);
    plx_status_t st = plx_req_collect_locked(&req);
    plx_ctx_unlock(ctx);
    return st;
}
