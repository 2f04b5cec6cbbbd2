/*
 * lib/graph/build.c — building and compiling task graphs: plx_graph_create, the
 * plx_graph_add_* calls, depend / set_priority / set_policy / set_timing,
 * plx_graph_compile, plx_graph_free, and the level queues the executor
 * dispatches from.
 *
 * Everything that costs more than O(1) per node happens here, once: the
 * argument checks of every communication node (the very checks of the
 * public calls), the successor lists (CSR), the cycle check, the matching
 * order of each communicator's collectives (a deterministic topological
 * order: Kahn's algorithm taking the lowest node number first, see
 * include/plexus.h "Matching across ranks"), the ranking of priorities
 * into levels, and every per-launch array.  A launch (lib/graph/exec.c)
 * then only resets counters and walks these arrays.
 */
#include "graph/graph.h"
#include "core/config.h"
#include "api/vcoll.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- level queues ---------------------------------------------------------- */
plx_status_t lvq_init(lvq_t *q, int nlevels, const uint32_t *counts)
{
    memset(q, 0, sizeof *q);
    q->nlevels = nlevels;
    size_t total = 0;
    q->base = calloc((size_t)nlevels, sizeof *q->base);
    q->head = calloc((size_t)nlevels, sizeof *q->head);
    q->tail = calloc((size_t)nlevels, sizeof *q->tail);
    if (!q->base || !q->head || !q->tail) return PLX_ERR_NO_MEMORY;
    for (int l = 0; l < nlevels; l++) {
        q->base[l] = (uint32_t)total;
        total += counts[l];
    }
    q->slots = malloc((total ? total : 1) * sizeof *q->slots);
    return q->slots ? PLX_SUCCESS : PLX_ERR_NO_MEMORY;
}

void lvq_free(lvq_t *q)
{
    free(q->slots);
    free(q->base);
    free(q->head);
    free(q->tail);
    memset(q, 0, sizeof *q);
}

void lvq_reset(lvq_t *q)
{
    /* a level that empties resets itself, so only a queue abandoned with
     * nodes in it (a launch that ended early) needs this */
    if (!q->count) return;
    memset(q->head, 0, (size_t)q->nlevels * sizeof *q->head);
    memset(q->tail, 0, (size_t)q->nlevels * sizeof *q->tail);
    memset(q->bits, 0, sizeof q->bits);
    q->summary = 0;
    q->count = 0;
}

/* ---- checks shared by the calls ------------------------------------------------ */
static plx_status_t graph_ok(const char *fn, plx_graph_t g)
{
    if (!g || g->magic != PLX_GRAPH_MAGIC) return plx_bad_arg(fn, "not a live graph");
    return PLX_SUCCESS;
}

static plx_status_t buildable(const char *fn, plx_graph_t g)
{
    PLX_CHECK(graph_ok(fn, g));
    if (g->compiled)
        return plx_bad_arg(fn, "the graph is compiled: it takes no more nodes or dependencies");
    return PLX_SUCCESS;
}

static plx_status_t node_ok(const char *fn, plx_graph_t g, plx_graph_node_t v, const char *what)
{
    if (v < 0 || (uint32_t)v >= g->n)
        return plx_bad_arg(fn, "%s %d is not a node of this graph (it has %u nodes, 0..%d)", what,
                           v, g->n, (int)g->n - 1);
    return PLX_SUCCESS;
}

static const char *policy_name(int p)
{
    return p == PLX_GRAPH_FIFO ? "fifo" : p == PLX_GRAPH_COMPUTE_FIRST ? "compute_first" : "comm_first";
}

/* The PLX_GRAPH_* settings, parsed and checked by lib/core/config.c (plx_init
 * refuses bad values, so a bad one here means it changed since). */
/* PLX_GRAPH_INLINE_US in seconds (default 10 us); -1 if bad. */
static double inline_env(void)
{
    double us = 10;
    return plx_env_real("PLX_GRAPH_INLINE_US", &us) < 0 ? -1 : us * 1e-6;
}

/* PLX_GRAPH_COMM_WINDOW (default 2); 0 if bad. */
static uint32_t window_env(void)
{
    int w = 2;
    return plx_env_int("PLX_GRAPH_COMM_WINDOW", &w) < 0 ? 0 : (uint32_t)w;
}

/* PLX_GRAPH_POLICY; -1 if bad. */
static int policy_env(void)
{
    static const int policy[] = { PLX_GRAPH_COMM_FIRST, PLX_GRAPH_COMPUTE_FIRST, PLX_GRAPH_FIFO };
    int i = 0;
    return plx_env_choice("PLX_GRAPH_POLICY", &i) < 0 ? -1 : policy[i];
}

/* ---- create ------------------------------------------------------------------- */
plx_status_t plx_graph_create(plx_context_t ctx, plx_graph_t *graph)
{
    const char *fn = "plx_graph_create";
    if (!graph) return plx_bad_arg(fn, "graph is NULL");
    *graph = NULL;
    if (!ctx || ctx->magic != PLX_CTX_MAGIC) return plx_bad_arg(fn, "not an initialised context");
    int policy = policy_env();
    if (policy < 0)
        return plx_bad_arg(fn, "PLX_GRAPH_POLICY='%s' is not one of comm_first|compute_first|fifo",
                           getenv("PLX_GRAPH_POLICY"));
    int nthreads;
    if (graph_threads_env(&nthreads) < 0)
        return plx_bad_arg(fn, "PLX_GRAPH_THREADS='%s' is not a thread count (1..1024)",
                           getenv("PLX_GRAPH_THREADS"));
    double inl = inline_env();
    if (inl < 0)
        return plx_bad_arg(fn, "PLX_GRAPH_INLINE_US='%s' is not a number of microseconds (0-1000000)",
                           getenv("PLX_GRAPH_INLINE_US"));
    uint32_t window = window_env();
    if (!window)
        return plx_bad_arg(fn, "PLX_GRAPH_COMM_WINDOW='%s' is not a count of collectives (1-1000000)",
                           getenv("PLX_GRAPH_COMM_WINDOW"));
    plx_graph_t g = calloc(1, sizeof *g);
    if (!g) return PLX_ERR_NO_MEMORY;
    g->magic = PLX_GRAPH_MAGIC;
    g->inline_s = inl;
    g->window = window;
    g->ctx = ctx;
    g->oversub = graph_ranks_outnumber_cores(ctx);
    g->policy = policy;
    g->failed_node = -1;
    if (pthread_mutex_init(&g->lk, NULL) != 0) {
        free(g);
        return PLX_ERR_NO_MEMORY;
    }
    *graph = g;
    return PLX_SUCCESS;
}

/* ---- nodes ---------------------------------------------------------------------- */
static plx_status_t new_node(plx_graph_t g, int kind, gnode_t **out, plx_graph_node_t *id)
{
    if (g->n == g->cap) {
        if (g->cap >= (uint32_t)INT_MAX / 2) return PLX_ERR_NO_MEMORY;
        uint32_t cap = g->cap ? 2 * g->cap : 16;
        gnode_t *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return PLX_ERR_NO_MEMORY;
        g->nodes = nn;
        g->cap = cap;
    }
    gnode_t *x = &g->nodes[g->n];
    memset(x, 0, sizeof *x);
    x->kind = (uint8_t)kind;
    *out = x;
    *id = (plx_graph_node_t)g->n++;
    return PLX_SUCCESS;
}

/* The graph's slot for comm (added on first use); comm already checked live. */
static plx_status_t comm_slot(const char *fn, plx_graph_t g, plx_comm_t comm, uint32_t *slot)
{
    if (comm->ctx != g->ctx)
        return plx_bad_arg(fn, "the communicator belongs to another context than the graph");
    for (uint32_t i = 0; i < g->ncomms; i++)
        if (g->comms[i].comm == comm && g->comms[i].comm_gen == comm->gen) {
            *slot = i;
            return PLX_SUCCESS;
        }
    if (g->ncomms == g->ccap) {
        uint32_t cap = g->ccap ? 2 * g->ccap : 4;
        gcomm_t *nc = realloc(g->comms, (size_t)cap * sizeof *nc);
        if (!nc) return PLX_ERR_NO_MEMORY;
        g->comms = nc;
        g->ccap = cap;
    }
    memset(&g->comms[g->ncomms], 0, sizeof g->comms[0]);
    g->comms[g->ncomms].comm = comm;
    g->comms[g->ncomms].comm_gen = comm->gen;
    *slot = g->ncomms++;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_add_compute(plx_graph_t g, plx_graph_fn_t fn, void *arg,
                                   plx_graph_node_t *node)
{
    const char *name = "plx_graph_add_compute";
    if (node) *node = -1;       /* no node added */
    PLX_CHECK(buildable(name, g));
    if (!fn) return plx_bad_arg(name, "fn is NULL");
    if (!node) return plx_bad_arg(name, "node is NULL");
    gnode_t *x;
    PLX_CHECK(new_node(g, GN_COMPUTE, &x, node));
    x->u.c.fn = fn;
    x->u.c.arg = arg;
    return PLX_SUCCESS;
}

static plx_status_t add_coll(const char *fn, plx_graph_t g, plx_comm_t comm, const coll_args_t *a,
                             plx_graph_node_t *node)
{
    if (node) *node = -1;       /* no node added */
    PLX_CHECK(buildable(fn, g));
    if (!node) return plx_bad_arg(fn, "node is NULL");
    PLX_CHECK(plx_coll_check_args(fn, comm, a));
    uint32_t slot;
    PLX_CHECK(comm_slot(fn, g, comm, &slot));
    coll_args_t own = *a;
    /* the v-forms' count arrays: the node keeps copies (the user's may go) */
    PLX_CHECK(plx_coll_args_own_arrays(&own, comm->size));
    gnode_t *x;
    plx_status_t st = new_node(g, GN_COLL, &x, node);
    if (st != PLX_SUCCESS) {
        free(own.owned);
        return st;
    }
    x->u.coll = own;
    x->cslot = slot;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_add_coll(const char *fn, plx_graph_t g, plx_comm_t comm, const coll_args_t *a,
                                plx_graph_node_t *node)
{
    return add_coll(fn, g, comm, a, node);
}

plx_status_t plx_graph_add_barrier(plx_graph_t g, plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_BARRIER, .dt = PLX_UINT8 };
    return add_coll("plx_graph_add_barrier", g, comm, &a, node);
}

plx_status_t plx_graph_add_bcast(plx_graph_t g, void *buf, size_t count, plx_dtype_t dt, int root,
                                 plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_BCAST, .sbuf = buf, .rbuf = buf, .count = count, .dt = dt,
                      .root = root };
    return add_coll("plx_graph_add_bcast", g, comm, &a, node);
}

plx_status_t plx_graph_add_reduce(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dt, plx_op_t op, int root, plx_comm_t comm,
                                  plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op, .root = root };
    return add_coll("plx_graph_add_reduce", g, comm, &a, node);
}

plx_status_t plx_graph_add_allreduce(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                     size_t count, plx_dtype_t dt, plx_op_t op, plx_comm_t comm,
                                     plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return add_coll("plx_graph_add_allreduce", g, comm, &a, node);
}

plx_status_t plx_graph_add_allgather(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                     size_t count, plx_dtype_t dt, plx_comm_t comm,
                                     plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return add_coll("plx_graph_add_allgather", g, comm, &a, node);
}

plx_status_t plx_graph_add_reduce_scatter(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                          size_t recvcount, plx_dtype_t dt, plx_op_t op,
                                          plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = recvcount, .dt = dt, .op = op };
    return add_coll("plx_graph_add_reduce_scatter", g, comm, &a, node);
}

plx_status_t plx_graph_add_alltoall(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                    size_t count, plx_dtype_t dt, plx_comm_t comm,
                                    plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_ALLTOALL, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return add_coll("plx_graph_add_alltoall", g, comm, &a, node);
}

plx_status_t plx_graph_add_gather(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dt, int root, plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_GATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return add_coll("plx_graph_add_gather", g, comm, &a, node);
}

plx_status_t plx_graph_add_scatter(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                   size_t count, plx_dtype_t dt, int root, plx_comm_t comm,
                                   plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return add_coll("plx_graph_add_scatter", g, comm, &a, node);
}

static plx_status_t add_p2p(const char *fn, int kind, plx_graph_t g, void *buf, size_t count,
                            plx_dtype_t dt, int peer, int tag, plx_comm_t comm, size_t *received,
                            plx_graph_node_t *node)
{
    if (node) *node = -1;       /* no node added */
    PLX_CHECK(buildable(fn, g));
    if (!node) return plx_bad_arg(fn, "node is NULL");
    PLX_CHECK(plx_p2p_check_args(fn, buf, count, dt, peer, tag, comm));
    uint32_t slot;
    PLX_CHECK(comm_slot(fn, g, comm, &slot));
    gnode_t *x;
    PLX_CHECK(new_node(g, kind, &x, node));
    x->cslot = slot;
    x->u.p2p.buf = buf;
    x->u.p2p.count = count;
    x->u.p2p.dt = dt;
    x->u.p2p.peer = peer;
    x->u.p2p.tag = tag;
    x->u.p2p.received = received;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_add_send(plx_graph_t g, const void *buf, size_t count, plx_dtype_t dt,
                                int peer, int tag, plx_comm_t comm, plx_graph_node_t *node)
{
    /* the transport only reads a send buffer */
    return add_p2p("plx_graph_add_send", GN_SEND, g, (void *)(uintptr_t)buf, count, dt, peer, tag,
                   comm, NULL, node);
}

plx_status_t plx_graph_add_recv(plx_graph_t g, void *buf, size_t count, plx_dtype_t dt, int peer,
                                int tag, plx_comm_t comm, size_t *received, plx_graph_node_t *node)
{
    return add_p2p("plx_graph_add_recv", GN_RECV, g, buf, count, dt, peer, tag, comm, received,
                   node);
}

/* ---- dependencies, priorities, policy, timing ------------------------------------ */
plx_status_t plx_graph_depend(plx_graph_t g, plx_graph_node_t before, plx_graph_node_t after)
{
    const char *fn = "plx_graph_depend";
    PLX_CHECK(buildable(fn, g));
    PLX_CHECK(node_ok(fn, g, before, "before"));
    PLX_CHECK(node_ok(fn, g, after, "after"));
    if (before == after) return plx_bad_arg(fn, "node %d cannot depend on itself", before);
    if (g->nedges == g->ecap) {
        if (g->ecap >= UINT32_MAX / 2) return PLX_ERR_NO_MEMORY;
        uint32_t cap = g->ecap ? 2 * g->ecap : 16;
        uint32_t(*ne)[2] = realloc(g->edges, (size_t)cap * sizeof *ne);
        if (!ne) return PLX_ERR_NO_MEMORY;
        g->edges = ne;
        g->ecap = cap;
    }
    g->edges[g->nedges][0] = (uint32_t)before;
    g->edges[g->nedges][1] = (uint32_t)after;
    g->nedges++;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_set_priority(plx_graph_t g, plx_graph_node_t node, int priority)
{
    const char *fn = "plx_graph_set_priority";
    PLX_CHECK(buildable(fn, g));
    PLX_CHECK(node_ok(fn, g, node, "node"));
    g->nodes[node].prio = priority;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_set_policy(plx_graph_t g, plx_graph_policy_t policy)
{
    const char *fn = "plx_graph_set_policy";
    PLX_CHECK(graph_ok(fn, g));
    if ((int)policy < PLX_GRAPH_COMM_FIRST || policy > PLX_GRAPH_FIFO)
        return plx_bad_arg(fn, "unknown policy %d", (int)policy);
    if (graph_is_running(g)) return plx_bad_arg(fn, "the graph is running a launch");
    g->policy = policy;
    return PLX_SUCCESS;
}

static plx_status_t alloc_times(plx_graph_t g)
{
    if (g->t_start || !g->compiled) return PLX_SUCCESS;
    g->t_start = calloc(g->n ? g->n : 1, sizeof *g->t_start);
    g->t_end = calloc(g->n ? g->n : 1, sizeof *g->t_end);
    return g->t_start && g->t_end ? PLX_SUCCESS : PLX_ERR_NO_MEMORY;
}

plx_status_t plx_graph_set_timing(plx_graph_t g, int on)
{
    const char *fn = "plx_graph_set_timing";
    PLX_CHECK(graph_ok(fn, g));
    if (graph_is_running(g)) return plx_bad_arg(fn, "the graph is running a launch");
    if (on) PLX_CHECK(alloc_times(g));
    g->timing = on != 0;
    return PLX_SUCCESS;
}

plx_status_t plx_graph_node_times(plx_graph_t g, plx_graph_node_t node, double *start, double *end)
{
    const char *fn = "plx_graph_node_times";
    if (start) *start = 0;
    if (end) *end = 0;
    PLX_CHECK(graph_ok(fn, g));
    PLX_CHECK(node_ok(fn, g, node, "node"));
    if (!start || !end) return plx_bad_arg(fn, "start or end is NULL");
    if (!g->timing || !g->t_start)
        return plx_bad_arg(fn, "timing is off (plx_graph_set_timing before the launch)");
    *start = g->t_start[node];
    *end = g->t_end[node];
    return PLX_SUCCESS;
}

/* ---- compile ---------------------------------------------------------------------- */
/* Min-heap of node ids: Kahn's algorithm takes the lowest ready number. */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
    uint32_t i = (*n)++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (h[p] <= v) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n)
{
    uint32_t top = h[0], v = h[--(*n)], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) c++;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = v;
    return top;
}

/* After Kahn stopped short: every node left has a predecessor left, so
 * walking predecessors from one of them must come back to a node seen. */
static plx_status_t report_cycle(plx_graph_t g, const uint32_t *left_pending)
{
    const char *fn = "plx_graph_compile";
    uint32_t n = g->n, start = 0;
    uint32_t *pred = malloc((size_t)n * sizeof *pred), *seen = calloc(n, sizeof *seen);
    if (!pred || !seen) {
        free(pred);
        free(seen);
        return plx_bad_arg(fn, "the dependencies form a cycle");
    }
    for (uint32_t v = 0; v < n; v++) pred[v] = UINT32_MAX;
    for (uint32_t e = 0; e < g->nedges; e++) {
        uint32_t a = g->edges[e][0], b = g->edges[e][1];
        if (left_pending[a] && left_pending[b]) pred[b] = a;
    }
    while (start < n && !left_pending[start]) start++;
    uint32_t v = start, step = 1;
    while (!seen[v] && pred[v] != UINT32_MAX) {
        seen[v] = step++;
        v = pred[v];
    }
    /* v is on the cycle: list it forwards (following successors = reversed preds) */
    uint32_t len = 0, u = v;
    do {
        seen[len++] = u;                 /* reuse seen[] as the path, backwards */
        u = pred[u];
    } while (u != v && len < n);
    char msg[400];
    size_t off = 0;
    for (uint32_t i = len; i-- > 0 && off < sizeof msg - 40;) {
        off += (size_t)snprintf(msg + off, sizeof msg - off, "%u -> ", seen[i]);
        if (len - i >= 16 && i > 0) {
            off += (size_t)snprintf(msg + off, sizeof msg - off, "... -> ");
            break;
        }
    }
    snprintf(msg + off, sizeof msg - off, "%u", seen[len - 1]);
    free(pred);
    free(seen);
    return plx_bad_arg(fn, "the dependencies form a cycle: node %s", msg);
}

/* Priorities ranked into levels 0..nlevels-1 (higher priority, higher level). */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static plx_status_t rank_priorities(plx_graph_t g)
{
    uint32_t n = g->n;
    int all_zero = 1;
    for (uint32_t v = 0; v < n && all_zero; v++) all_zero = g->nodes[v].prio == 0;
    if (all_zero) {
        g->nlevels = 1;
        return PLX_SUCCESS;
    }
    int *p = malloc((size_t)n * sizeof *p);
    if (!p) return PLX_ERR_NO_MEMORY;
    for (uint32_t v = 0; v < n; v++) p[v] = g->nodes[v].prio;
    qsort(p, n, sizeof *p, cmp_int);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++)
        if (nd == 0 || p[nd - 1] != p[i]) p[nd++] = p[i];
    for (uint32_t v = 0; v < n; v++) {
        uint32_t lo = 0, hi = nd - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (p[mid] < g->nodes[v].prio) lo = mid + 1;
            else hi = mid;
        }
        /* beyond GRAPH_MAX_LEVELS distinct values, neighbours share a level */
        g->nodes[v].level = (uint16_t)(nd <= GRAPH_MAX_LEVELS ? lo : (uint64_t)lo * GRAPH_MAX_LEVELS / nd);
    }
    g->nlevels = nd <= GRAPH_MAX_LEVELS ? (int)nd : GRAPH_MAX_LEVELS;
    free(p);
    return PLX_SUCCESS;
}

static plx_status_t compile(plx_graph_t g)
{
    const char *fn = "plx_graph_compile";
    uint32_t n = g->n, m = g->nedges;
    if (g->ctx->magic != PLX_CTX_MAGIC) return plx_bad_arg(fn, "the graph's context was finalized");

    for (uint32_t v = 0; v < n; v++) {
        gnode_t *x = &g->nodes[v];
        if (x->kind != GN_COMPUTE && !(plx_comm_ok(g->comms[x->cslot].comm) &&
                                       g->comms[x->cslot].comm->gen == g->comms[x->cslot].comm_gen))
            return plx_bad_arg(fn, "the communicator of node %u was freed after the node was added", v);
    }

    /* successor lists in the order the dependencies were declared */
    g->succ = malloc((m ? m : 1) * sizeof *g->succ);
    g->pending = calloc(n ? n : 1, sizeof *g->pending);
    g->npred0 = calloc(n ? n : 1, sizeof *g->npred0);
    if (!g->succ || !g->pending || !g->npred0) return PLX_ERR_NO_MEMORY;
    for (uint32_t e = 0; e < m; e++) {
        g->nodes[g->edges[e][0]].nsucc++;
        g->npred0[g->edges[e][1]]++;
    }
    uint32_t off = 0;
    for (uint32_t v = 0; v < n; v++) {
        g->nodes[v].succ_off = off;
        off += g->nodes[v].nsucc;
        g->nodes[v].nsucc = 0;
    }
    for (uint32_t e = 0; e < m; e++) {
        gnode_t *x = &g->nodes[g->edges[e][0]];
        g->succ[x->succ_off + x->nsucc++] = g->edges[e][1];
    }

    /* the matching order: Kahn, lowest number first */
    uint32_t *heap = malloc((n ? n : 1) * sizeof *heap), *order = malloc((n ? n : 1) * sizeof *order);
    if (!heap || !order) {
        free(heap);
        free(order);
        return PLX_ERR_NO_MEMORY;
    }
    uint32_t hn = 0, done = 0;
    memcpy(g->pending, g->npred0, (size_t)n * sizeof *g->pending);
    g->nroots = 0;
    for (uint32_t v = 0; v < n; v++)
        if (!g->pending[v]) {
            heap_push(heap, &hn, v);
            g->nroots++;
        }
    while (hn) {
        uint32_t v = heap_pop(heap, &hn);
        order[done++] = v;
        gnode_t *x = &g->nodes[v];
        for (uint32_t i = 0; i < x->nsucc; i++)
            if (--g->pending[g->succ[x->succ_off + i]] == 0) heap_push(heap, &hn, g->succ[x->succ_off + i]);
    }
    free(heap);
    if (done < n) {
        free(order);
        return report_cycle(g, g->pending);
    }

    g->roots = malloc((g->nroots ? g->nroots : 1) * sizeof *g->roots);
    if (!g->roots) {
        free(order);
        return PLX_ERR_NO_MEMORY;
    }
    g->nroots = 0;
    for (uint32_t v = 0; v < n; v++)
        if (!g->npred0[v]) g->roots[g->nroots++] = v;

    /* each communicator's collectives in that order */
    for (uint32_t v = 0; v < n; v++)
        if (g->nodes[v].kind == GN_COLL) g->comms[g->nodes[v].cslot].ncoll++;
    for (uint32_t c = 0; c < g->ncomms; c++) {
        g->comms[c].order = malloc((g->comms[c].ncoll ? g->comms[c].ncoll : 1) * sizeof(uint32_t));
        if (!g->comms[c].order) {
            free(order);
            return PLX_ERR_NO_MEMORY;
        }
        g->comms[c].ncoll = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        gnode_t *x = &g->nodes[order[i]];
        if (x->kind != GN_COLL) continue;
        gcomm_t *gc = &g->comms[x->cslot];
        x->corder = gc->ncoll;
        gc->order[gc->ncoll++] = order[i];
    }
    free(order);

    /* priority levels and the queues sized for them */
    PLX_CHECK(rank_priorities(g));
    uint32_t *cnt_c = calloc((size_t)g->nlevels, sizeof *cnt_c);
    uint32_t *cnt_m = calloc((size_t)g->nlevels, sizeof *cnt_m);
    if (!cnt_c || !cnt_m) {
        free(cnt_c);
        free(cnt_m);
        return PLX_ERR_NO_MEMORY;
    }
    g->ncompute = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (g->nodes[v].kind == GN_COMPUTE) {
            cnt_c[g->nodes[v].level]++;
            g->ncompute++;
        } else {
            cnt_m[g->nodes[v].level]++;
        }
    }
    plx_status_t st = lvq_init(&g->cq, g->nlevels, cnt_c);
    if (st == PLX_SUCCESS) st = lvq_init(&g->crq, g->nlevels, cnt_c);
    if (st == PLX_SUCCESS) st = lvq_init(&g->rq, g->nlevels, cnt_m);
    free(cnt_c);
    free(cnt_m);
    PLX_CHECK(st);

    size_t nn = n ? n : 1;
    g->state = calloc(nn, 1);
    g->req = calloc(nn, sizeof *g->req);
    g->posted = malloc(nn * sizeof *g->posted);
    g->batch = malloc(nn * sizeof *g->batch);
    g->defer = malloc(nn * sizeof *g->defer);
    g->last = malloc(nn * sizeof *g->last);
    g->fifo = malloc(nn * sizeof *g->fifo);
    if (!g->state || !g->req || !g->posted || !g->batch || !g->defer || !g->last || !g->fifo)
        return PLX_ERR_NO_MEMORY;
    for (uint32_t v = 0; v < n; v++) g->last[v] = -1.0f;   /* unknown: the first run goes to a worker */
    g->compiled = 1;
    if (g->timing) PLX_CHECK(alloc_times(g));
    if (g->ncompute) PLX_CHECK(graph_pool_attach(g));
    plx_debug("plx_graph_compile: %u nodes (%u compute), %u dependencies, %u communicators, "
              "%d priority levels, policy %s", n, g->ncompute, m, g->ncomms, g->nlevels,
              policy_name(g->policy));
    return PLX_SUCCESS;
}

/* Undo a failed compile: the graph stays buildable. */
static void uncompile(plx_graph_t g)
{
    if (g->pool) graph_pool_detach(g);
    g->compiled = 0;
    free(g->succ);
    free(g->pending);
    free(g->npred0);
    free(g->roots);
    free(g->state);
    free(g->req);
    free(g->posted);
    free(g->batch);
    free(g->defer);
    free(g->last);
    free(g->fifo);
    free(g->t_start);
    free(g->t_end);
    g->succ = g->pending = g->npred0 = g->roots = g->posted = g->batch = g->defer = g->fifo = NULL;
    g->last = NULL;
    g->state = NULL;
    g->req = NULL;
    g->t_start = g->t_end = NULL;
    lvq_free(&g->cq);
    lvq_free(&g->crq);
    lvq_free(&g->rq);
    for (uint32_t c = 0; c < g->ncomms; c++) {
        free(g->comms[c].order);
        g->comms[c].order = NULL;
        g->comms[c].ncoll = 0;
    }
    for (uint32_t v = 0; v < g->n; v++) g->nodes[v].nsucc = 0;
}

plx_status_t plx_graph_compile(plx_graph_t g)
{
    PLX_CHECK(graph_ok("plx_graph_compile", g));
    if (g->compiled) return PLX_SUCCESS;
    plx_status_t st = compile(g);
    if (st != PLX_SUCCESS) uncompile(g);
    return st;
}

plx_status_t plx_graph_free(plx_graph_t *pg)
{
    const char *fn = "plx_graph_free";
    if (!pg) return plx_bad_arg(fn, "graph is NULL");
    plx_graph_t g = *pg;
    PLX_CHECK(graph_ok(fn, g));
    PLX_CHECK(graph_quiesce(fn, g));
    uncompile(g);
    for (uint32_t v = 0; v < g->n; v++)
        if (g->nodes[v].kind == GN_COLL) free(g->nodes[v].u.coll.owned);
    free(g->nodes);
    free(g->edges);
    free(g->comms);
    g->magic = PLX_DEAD_MAGIC;
    pthread_mutex_destroy(&g->lk);
    free(g);
    *pg = NULL;
    return PLX_SUCCESS;
}
