/*
 * lib/graph_exec.c — running a compiled task graph: plx_graph_launch,
 * plx_graph_run, and the progress-engine hook that dispatches nodes.
 *
 * A launch is ONE engine request of kind REQ_HOOK (lib/request.h): the
 * engine calls graph_advance under the context lock on every progress pass
 * (inside plx_wait/plx_test/plx_graph_run, or on the progress thread with
 * PLX_PROGRESS=thread).  Each call
 *   1. collects finished communication requests and the compute nodes the
 *      workers finished (a lock-free stack: workers never take ctx->lock);
 *   2. marks every successor whose last predecessor finished as ready;
 *   3. dispatches all ready nodes at once, in the policy's order:
 *      comm_first posts communication before pushing the compute nodes that
 *      became ready in the same step (DESIGN.md: a ready compute node must
 *      never wait behind communication, and posting never blocks a worker);
 *      compute_first the other way round; fifo runs one node at a time in
 *      ready order (the naive executor, kept to measure the difference).
 * Collective nodes of one communicator are posted strictly in the compiled
 * matching order (a ready one "parks" until the ones before it are posted),
 * so every rank posts them in the same order whatever the timing.
 *
 * The hot path of a compiled graph allocates nothing and makes no system
 * call: counters are reset from arrays made at compile, requests come from
 * the engine's free list, and a worker is woken (futex) only when no thread
 * is already spinning for work.
 */
#include "graph.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

/* ---- completion and readiness ------------------------------------------------ */
static void make_ready(plx_graph_t g, uint32_t s)
{
    if (g->stop) return;
    if (g->policy == PLX_GRAPH_FIFO) {
        g->fifo[g->fifo_tail++] = s;
        return;
    }
    const gnode_t *x = &g->nodes[s];
    if (x->kind == GN_COMPUTE) g->cready[g->ncready++] = s;
    else lvq_push(&g->rq, x->level, s);
}

static void node_done(plx_graph_t g, uint32_t v)
{
    g->state[v] = NS_DONE;
    g->remaining--;
    g->completions++;
    const gnode_t *x = &g->nodes[v];
    const uint32_t *s = g->succ + x->succ_off;
    for (uint32_t i = 0; i < x->nsucc; i++)
        if (--g->pending[s[i]] == 0) make_ready(g, s[i]);
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

/* ---- posting communication ------------------------------------------------------ */
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
    gcomm_t *gc = &g->comms[x->cslot];
    if (x->corder != gc->next) {
        g->state[v] = NS_PARKED;
        return;
    }
    start_one(g, v);
    gc->next++;
    while (gc->next < gc->ncoll && g->state[gc->order[gc->next]] == NS_PARKED) {
        start_one(g, gc->order[gc->next]);
        gc->next++;
    }
}

/* ---- dispatching ------------------------------------------------------------------ */
/* May plx_graph_run's thread run a compute node now?  With a progress
 * thread, always (it moves communication meanwhile).  Otherwise only when
 * nothing else of the launch is in flight: while it computes nobody would
 * post what another completion makes ready. */
static int helper_ok(plx_graph_t g, int comm_coming)
{
    return g->ctx->pt.running ||
           (g->nposted == 0 && g->outstanding <= 1 && !comm_coming && g->rq.count == 0);
}

static void flush_compute(plx_graph_t g, int comm_coming)
{
    if (!g->ncready) return;
    if (atomic_load_explicit(&g->skip, memory_order_relaxed)) {
        /* a compute node failed: the rest complete without running (the
         * loop sees the ones this makes ready) */
        for (uint32_t i = 0; i < g->ncready; i++) node_done(g, g->cready[i]);
        g->ncready = 0;
        return;
    }
    uint32_t k = g->ncready;
    g->ncready = 0;
    for (uint32_t i = 0; i < k; i++) g->state[g->cready[i]] = NS_RUNNING;
    g->outstanding += k;
    graph_pool_push(g, g->cready, k, helper_ok(g, comm_coming));
}

static void dispatch(plx_graph_t g)
{
    int compute_first = g->policy == PLX_GRAPH_COMPUTE_FIRST;
    for (;;) {
        if (compute_first) flush_compute(g, g->rq.count > 0);
        while (g->rq.count) post_comm(g, lvq_pop(&g->rq));
        flush_compute(g, 0);
        if (!g->rq.count && !g->ncready) break;
    }
}

/* The naive executor: one node at a time, in ready order. */
static void dispatch_fifo(plx_graph_t g)
{
    while (!g->stop && !g->nposted && !g->outstanding && g->fifo_head < g->fifo_tail) {
        uint32_t v = g->fifo[g->fifo_head++];
        if (g->nodes[v].kind != GN_COMPUTE) {
            start_one(g, v);
        } else if (atomic_load_explicit(&g->skip, memory_order_relaxed)) {
            node_done(g, v);
        } else {
            g->state[v] = NS_RUNNING;
            g->outstanding = 1;
            graph_pool_push(g, &v, 1, 1);
        }
    }
}

/* Finished communication requests and compute nodes; 1 if any. */
static int collect(plx_graph_t g)
{
    int any = 0;
    for (uint32_t i = 0; i < g->nposted;) {
        uint32_t v = g->posted[i];
        if (!plx_req_is_done(g->req[v])) {
            i++;
            continue;
        }
        g->posted[i] = g->posted[--g->nposted];
        comm_finished(g, v, plx_req_collect_locked(&g->req[v]));
        any = 1;
    }
    if (atomic_load_explicit(&g->done_head, memory_order_relaxed) >= 0) {
        int32_t h = atomic_exchange_explicit(&g->done_head, -1, memory_order_acquire);
        while (h >= 0) {
            uint32_t v = (uint32_t)h;
            h = g->done_next[v];
            g->outstanding--;
            if (g->rc[v] != 0) compute_failed(g, v, g->rc[v]);
            node_done(g, v);
        }
        any = 1;
    }
    return any;
}

/* Compute nodes of an earlier launch that timed out may still come back. */
static void drain_stale(plx_graph_t g)
{
    int32_t h = atomic_exchange_explicit(&g->done_head, -1, memory_order_acquire);
    while (h >= 0) {
        g->outstanding--;
        h = g->done_next[h];
    }
}

/* ---- the hook ----------------------------------------------------------------------- */
static int graph_advance(void *arg, plx_status_t *st)
{
    plx_graph_t g = arg;
    if (collect(g) || g->dirty) {
        g->dirty = 0;
        if (g->policy == PLX_GRAPH_FIFO) dispatch_fifo(g);
        else dispatch(g);
        if (g->stop && g->outstanding) {
            /* nothing more runs: take back what still waits for a thread */
            g->outstanding -= graph_pool_purge(g);
        } else if (g->helper && g->nposted && atomic_load_explicit(&g->cq_n, memory_order_relaxed)) {
            /* a node queued for plx_graph_run's thread while nothing was in
             * flight must not wait now that communication is */
            graph_pool_kick(g, helper_ok(g, 0));
        }
    }
    if (g->remaining == 0 || (g->stop && !g->nposted && !g->outstanding)) {
        g->active = 0;
        *st = g->status;
        return 1;
    }
    return 0;
}

/* End a launch early (timeout): posted requests are handed to the engine
 * (detached: it frees them when they end), queued compute is taken back;
 * compute nodes running on a worker come back later (drain_stale). */
static void abandon(plx_graph_t g)
{
    for (uint32_t i = 0; i < g->nposted; i++) {
        plx_request_t r = g->req[g->posted[i]];
        if (plx_req_is_done(r)) (void)plx_req_collect_locked(&r);
        else r->detached = 1;
    }
    g->nposted = 0;
    g->stop = 1;
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
    g->outstanding -= graph_pool_purge(g);
    g->active = 0;
}

/* What a stuck launch waits for, for the timeout message. */
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

static int graph_check(void *arg, double elapsed, double limit, plx_status_t *st)
{
    plx_graph_t g = arg;
    if (g->completions != g->chk_completions || elapsed < g->chk_since) {
        g->chk_completions = g->completions;
        g->chk_since = elapsed;
        return 0;
    }
    /* posted collectives time out by themselves, naming the missing ranks:
     * give them the first word */
    double lim = g->nposted ? limit + 1.0 : limit;
    if (elapsed - g->chk_since < lim) return 0;
    char what[600];
    describe_pending(g, what, sizeof what);
    plx_error("plx_graph: launch completed no node for %g s (PLX_TIMEOUT): %s", elapsed - g->chk_since,
              what);
    abandon(g);
    *st = PLX_ERR_TIMEOUT;
    return 1;
}

/* plx_finalize with the launch in flight: the engine frees every request
 * (ours included), so forget them without touching them. */
static void graph_cancel(void *arg)
{
    plx_graph_t g = arg;
    g->nposted = 0;
    g->stop = 1;
    atomic_store_explicit(&g->skip, 1, memory_order_relaxed);
    g->outstanding -= graph_pool_purge(g);
    g->active = 0;
    g->ctx_dead = 1;
}

/* ---- launch ------------------------------------------------------------------------- */
int graph_is_running(plx_graph_t g)
{
    if (!g->compiled || !ctx_alive(g)) return 0;
    plx_ctx_lock(g->ctx);
    int r = g->active;
    plx_ctx_unlock(g->ctx);
    return r;
}

plx_status_t graph_quiesce(const char *fn, plx_graph_t g)
{
    if (!g->compiled) return PLX_SUCCESS;
    int alive = ctx_alive(g);
    if (alive) plx_ctx_lock(g->ctx);
    plx_status_t st = PLX_SUCCESS;
    if (g->active) {
        st = plx_bad_arg(fn, "the graph is running a launch (wait for its request first)");
    } else {
        drain_stale(g);
        if (g->outstanding)
            st = plx_bad_arg(fn, "%u compute node(s) of a launch that timed out are still running",
                             g->outstanding);
    }
    if (alive) plx_ctx_unlock(g->ctx);
    return st;
}

static plx_status_t launch(const char *fn, plx_graph_t g, plx_request_t *req, int helper)
{
    if (!g || g->magic != PLX_GRAPH_MAGIC) return plx_bad_arg(fn, "not a live graph");
    if (!req) return plx_bad_arg(fn, "req is NULL");
    if (!g->compiled) return plx_bad_arg(fn, "the graph is not compiled (plx_graph_compile first)");
    if (!ctx_alive(g)) return plx_bad_arg(fn, "the graph's context was finalized");
    for (uint32_t c = 0; c < g->ncomms; c++)
        if (!plx_comm_ok(g->comms[c].comm))
            return plx_bad_arg(fn, "a communicator of the graph was freed after compile");
    plx_context_t ctx = g->ctx;
    plx_ctx_lock(ctx);
    if (g->active) {
        plx_ctx_unlock(ctx);
        return plx_bad_arg(fn, "the graph is still running an earlier launch (wait for its request first)");
    }
    drain_stale(g);
    if (g->outstanding) {
        plx_ctx_unlock(ctx);
        return plx_bad_arg(fn, "%u compute node(s) of an earlier launch that timed out are still running",
                           g->outstanding);
    }
    /* per-launch reset: O(n) copies of arrays made at compile, no allocation */
    uint32_t n = g->n;
    memcpy(g->pending, g->npred0, (size_t)n * sizeof *g->pending);
    memset(g->state, 0, n);
    if (g->timing) {
        memset(g->t_start, 0, (size_t)n * sizeof *g->t_start);
        memset(g->t_end, 0, (size_t)n * sizeof *g->t_end);
    }
    for (uint32_t c = 0; c < g->ncomms; c++) g->comms[c].next = 0;
    lvq_reset(&g->rq);
    g->ncready = 0;
    g->fifo_head = g->fifo_tail = 0;
    g->nposted = 0;
    g->status = PLX_SUCCESS;
    g->stop = 0;
    atomic_store_explicit(&g->skip, 0, memory_order_relaxed);
    g->failed_node = -1;
    g->remaining = n;
    g->chk_completions = g->completions;
    g->chk_since = 0;
    for (uint32_t i = 0; i < g->nroots; i++) make_ready(g, g->roots[i]);
    g->dirty = 1;
    g->active = 1;
    if (g->pool) graph_pool_helper_set(g, helper);
    plx_req_hook_t hook = { graph_advance, graph_check, graph_cancel, g };
    plx_status_t st = plx_req_start_hook(ctx, &hook, req);   /* runs the first dispatch */
    if (st != PLX_SUCCESS) {
        g->active = 0;
        if (g->pool) graph_pool_helper_set(g, 0);
    }
    plx_ctx_unlock(ctx);
    return st;
}

plx_status_t plx_graph_launch(plx_graph_t g, plx_request_t *req)
{
    return launch("plx_graph_launch", g, req, 0);
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
    while (!plx_req_is_done(req)) {
        int work = 0;
        if (g->pool) {
            int v = graph_pool_helper_take(g);
            if (v >= 0) {
                graph_run_compute(g, (uint32_t)v);
                atomic_store_explicit(&g->helper_idle, 1, memory_order_relaxed);
                work = 1;
            }
        }
        /* with a progress thread, help only when the lock is free */
        if (ctx->pt.running ? plx_ctx_trylock(ctx) : (plx_ctx_lock(ctx), 1)) {
            work += plx_engine_progress(ctx);
            if ((++iter & 63) == 0) plx_engine_check_deadlines(ctx);
            if (g->completions != seen) {   /* the graph moved (the engine counts no event for it) */
                seen = g->completions;
                work = 1;
            }
            plx_ctx_unlock(ctx);
        }
        if (work) plx_backoff_reset(&bo);
        else plx_backoff_idle(&bo);
    }
    plx_ctx_lock(ctx);
    plx_status_t st = plx_req_collect_locked(&req);
    if (g->pool) graph_pool_helper_set(g, 0);
    plx_ctx_unlock(ctx);
    return st;
}
