/*
 * lib/graph/pool.c — the worker threads that run task-graph compute nodes.
 *
 * One pool per context, shared by all its graphs: started by the first
 * plx_graph_compile of a graph with compute nodes, joined when the last
 * such graph is freed or at plx_finalize (refcounted; held by the context
 * as ctx->graph_pool).  Its size
 * is PLX_GRAPH_THREADS, by default the cores this process may use divided
 * by the ranks on its node (at least 1): ranks of one node share the cores.
 *
 * Each graph keeps its own queue of compute nodes waiting for a thread
 * (highest priority first); the pool keeps the list of graphs that have
 * some.  The executor pushes nodes under the pool mutex (lock order:
 * ctx->lock, then the pool mutex; workers take only the pool mutex) and
 * workers report completions through the graph's lock-free stack, so a
 * worker never waits on the engine.
 *
 * Why workers spin briefly, then sleep: a futex wake costs a system call
 * and a few microseconds, the whole budget of a small graph's launch, so a
 * worker that just finished looks for work for ~50 us (pause, then
 * sched_yield: with more threads than cores a pure spin starves the thread
 * it waits for, MACHINE-NOTES) before sleeping on a condition variable.
 * The executor wakes a sleeper only when the queued nodes outnumber the
 * threads already looking for work (spinning workers, workers already
 * signalled, and plx_graph_run's idle thread where it may take the node).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT, pthread_setname_np */
#endif
#include "graph/graph.h"
#include "core/config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POOL_SPIN_POLLS 64       /* pure polls before yielding */
#define POOL_SPIN_S     50e-6    /* then sched_yield this long before sleeping */
#define POOL_MAX_THREADS 1024
/* The slice asked for each worker (PLX_GRAPH_WORKER_SLICE_US): the kernel's
 * minimum.  A worker whose node sleeps (a GPU kernel's wait) wakes on a
 * core where the engine thread spins through a collective; with the
 * default slice (0.7 ms x log2 of the CPUs) the woken worker waits for the
 * rest of the engine thread's slice, up to a tick, before it runs (the
 * compute chain then stalls); a shorter slice lets it preempt at once
 * (perf/RESULTS.md, "graph_bench -m overlap: the workers' slice"). */
#define POOL_SLICE_US 100.0

typedef struct gpool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    plx_context_t ctx;         /* owner; never dereferenced by workers */
    int computing;             /* compute chains running on workers now (atomic;
                                * ctx->compute_beside points here) */
    int refs;
    int nthreads;
    pthread_t *tids;
    int stop;
    double slice_us;           /* PLX_GRAPH_WORKER_SLICE_US, 0: the kernel's default */
    int nsleeping;             /* workers in pthread_cond_wait */
    int nwake;                 /* of those, signalled and not yet awake */
    int nspinning;             /* workers looking for work without sleeping */
    _Atomic uint32_t queued;   /* nodes in all graphs' queues */
    plx_graph_t whead, wtail;  /* graphs with queued nodes */
} gpool_t;


/* ---- settings ---------------------------------------------------------------- */
int graph_threads_env(int *n)
{
    *n = 0;
    return plx_env_int("PLX_GRAPH_THREADS", n) < 0 ? -1 : 0;   /* lib/core/config.c: 1..1024 */
}

/* The cores this process may use and the ranks of its node. */
static void node_share(plx_context_t ctx, int *cores, int *local)
{
    int c = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) c = CPU_COUNT(&set);
    if (c <= 0) c = (int)sysconf(_SC_NPROCESSORS_ONLN);
    *cores = c <= 0 ? 1 : c;
    int l = 1;
    if (ctx->node_of) {
        l = 0;
        for (int r = 0; r < ctx->size; r++) l += ctx->node_of[r] == ctx->node_of[ctx->rank];
    }
    *local = l > 0 ? l : 1;
}

static int default_threads(plx_context_t ctx)
{
    int cores, local;
    node_share(ctx, &cores, &local);
    int n = cores / local;
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

int graph_ranks_outnumber_cores(plx_context_t ctx)
{
    /* the node's CPUs, not this process's mask: a rank bound to one core
     * of its own (plexusrun when the ranks fit) shares it with nobody, and
     * nobody could be pulled there (lib/coll/node_direct.c counts alike) */
    int cores, local;
    node_share(ctx, &cores, &local);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 && local > online;
}

/* ---- the work list ------------------------------------------------------------ */
static void work_remove(gpool_t *p, plx_graph_t g)
{
    plx_graph_t prev = NULL;
    for (plx_graph_t h = p->whead; h; prev = h, h = h->wnext) {
        if (h != g) continue;
        if (prev) prev->wnext = g->wnext;
        else p->whead = g->wnext;
        if (p->wtail == g) p->wtail = prev;
        break;
    }
    g->wnext = NULL;
    g->in_work = 0;
}

static void work_append(gpool_t *p, plx_graph_t g)
{
    g->wnext = NULL;
    if (p->wtail) p->wtail->wnext = g;
    else p->whead = g;
    p->wtail = g;
    g->in_work = 1;
}

/* Pop g's best node (mu held, g has some). */
static uint32_t take_locked(gpool_t *p, plx_graph_t g)
{
    uint32_t v = lvq_pop(&g->cq);
    atomic_store_explicit(&g->cq_n, g->cq.count, memory_order_relaxed);
    atomic_fetch_sub_explicit(&p->queued, 1, memory_order_relaxed);
    if (!g->cq.count) {
        work_remove(p, g);
    } else if (p->whead == g && g->wnext) {
        /* several graphs running: take turns */
        work_remove(p, g);
        work_append(p, g);
    }
    return v;
}

/* Wake sleepers for the queued nodes nobody is about to take (mu held). */
static void kick_locked(gpool_t *p, plx_graph_t g, int helper_ok, int self)
{
    g->helper_ok = helper_ok;
    int queued = (int)atomic_load_explicit(&p->queued, memory_order_relaxed);
    if (!queued) return;
    /* the caller itself: a worker takes the next node; plx_graph_run's
     * thread only if it may */
    int takers = p->nspinning + p->nwake + (self == 1 || (self == 2 && helper_ok));
    for (plx_graph_t h = p->whead; h; h = h->wnext)
        if (h->helper && h->helper_ok && atomic_load_explicit(&h->helper_idle, memory_order_relaxed))
            takers++;
    for (int lack = queued - takers; lack > 0 && p->nsleeping > p->nwake; lack--) {
        pthread_cond_signal(&p->cv);
        p->nwake++;
    }
}

/* ---- running a node ------------------------------------------------------------- */
int graph_call_compute(plx_graph_t g, uint32_t v)
{
    if (atomic_load_explicit(&g->skip, memory_order_relaxed)) return 0;
    const gnode_t *x = &g->nodes[v];
    double t0 = plx_now();
    int rc = x->u.c.fn(x->u.c.arg);
    double t1 = plx_now();
    g->last[v] = (float)(t1 - t0);   /* the executor runs it inline next time if short */
    if (g->timing) {
        g->t_start[v] = t0;
        g->t_end[v] = t1;
    }
    return rc;
}

void graph_run_compute(plx_graph_t g, uint32_t v, int self)
{
    /* the best successor that became ready is run here at once: a chain of
     * compute nodes stays on one thread */
    for (int next = (int)v; next >= 0;)
        next = graph_worker_done(g, (uint32_t)next, graph_call_compute(g, (uint32_t)next), self);
}

/* Look for work without sleeping: 1 when some is queued, 0 after the budget. */
static int spin_for_work(gpool_t *p)
{
    double t0 = 0;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(&p->queued, memory_order_relaxed)) return 1;
        if (i < POOL_SPIN_POLLS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        if (i == POOL_SPIN_POLLS) t0 = plx_now();
        else if ((i & 15) == 0 && plx_now() - t0 > POOL_SPIN_S) return 0;
        sched_yield();
    }
}

/* PLX_GRAPH_WORKER_SLICE_US: ask the kernel for a shorter slice on this
 * thread (EEVDF, Linux 6.12+: sched_attr.sched_runtime of a SCHED_OTHER
 * thread is its slice; older kernels ignore it). */
static void set_slice(double us)
{
#if defined(__linux__) && defined(SYS_sched_setattr)
    struct {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
    } at;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.policy = 0;   /* SCHED_OTHER */
    at.nice = getpriority(PRIO_PROCESS, 0);
    at.runtime = (uint64_t)(us * 1e3);
    if (syscall(SYS_sched_setattr, 0, &at, 0) != 0)
        plx_debug("plx_graph: worker slice %g us refused: %s", us, strerror(errno));
#else
    (void)us;
#endif
}

static void *worker_main(void *arg)
{
    gpool_t *p = arg;
    if (p->slice_us > 0) set_slice(p->slice_us);
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        if (p->whead) {
            plx_graph_t g = p->whead;
            uint32_t v = take_locked(p, g);
            pthread_mutex_unlock(&p->mu);
            __atomic_add_fetch(&p->computing, 1, __ATOMIC_RELAXED);
            graph_run_compute(g, v, 1);
            __atomic_sub_fetch(&p->computing, 1, __ATOMIC_RELAXED);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        p->nspinning++;
        pthread_mutex_unlock(&p->mu);
        spin_for_work(p);
        pthread_mutex_lock(&p->mu);
        p->nspinning--;
        if (p->whead || p->stop) continue;
        p->nsleeping++;
        pthread_cond_wait(&p->cv, &p->mu);
        p->nsleeping--;
        if (p->nwake) p->nwake--;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the executor's side ------------------------------------------------------------ */
void graph_pool_push(plx_graph_t g, const uint32_t *v, uint32_t n, int helper_ok, int self)
{
    gpool_t *p = g->pool;
    pthread_mutex_lock(&p->mu);
    for (uint32_t i = 0; i < n; i++) lvq_push(&g->cq, g->nodes[v[i]].level, v[i]);
    atomic_store_explicit(&g->cq_n, g->cq.count, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->queued, n, memory_order_relaxed);
    if (!g->in_work) work_append(p, g);
    kick_locked(p, g, helper_ok, self);
    pthread_mutex_unlock(&p->mu);
}

void graph_pool_kick(plx_graph_t g, int helper_ok)
{
    gpool_t *p = g->pool;
    pthread_mutex_lock(&p->mu);
    kick_locked(p, g, helper_ok, 0);
    pthread_mutex_unlock(&p->mu);
}

uint32_t graph_pool_purge(plx_graph_t g)
{
    gpool_t *p = g->pool;
    if (!p) return 0;
    pthread_mutex_lock(&p->mu);
    uint32_t k = g->cq.count;
    lvq_reset(&g->cq);
    atomic_store_explicit(&g->cq_n, 0, memory_order_relaxed);
    atomic_fetch_sub_explicit(&p->queued, k, memory_order_relaxed);
    if (g->in_work) work_remove(p, g);
    pthread_mutex_unlock(&p->mu);
    return k;
}

int graph_pool_helper_take(plx_graph_t g)
{
    if (!atomic_load_explicit(&g->cq_n, memory_order_relaxed)) {
        atomic_store_explicit(&g->helper_idle, 1, memory_order_relaxed);
        return -1;
    }
    gpool_t *p = g->pool;
    int v = -1;
    pthread_mutex_lock(&p->mu);
    if (g->helper_ok && g->cq.count) {
        v = (int)take_locked(p, g);
        atomic_store_explicit(&g->helper_idle, 0, memory_order_relaxed);
    } else {
        atomic_store_explicit(&g->helper_idle, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&p->mu);
    return v;
}

void graph_pool_helper_set(plx_graph_t g, int on)
{
    gpool_t *p = g->pool;
    pthread_mutex_lock(&p->mu);
    g->helper = on;
    atomic_store_explicit(&g->helper_idle, on, memory_order_relaxed);
    pthread_mutex_unlock(&p->mu);
}

/* ---- lifetime ------------------------------------------------------------------------ */
static void pool_destroy(gpool_t *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->tids[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->tids);
    free(p);
}

static gpool_t *pool_create(plx_context_t ctx, plx_status_t *st)
{
    int n;
    if (graph_threads_env(&n) < 0) {
        *st = plx_bad_arg("plx_graph_compile", "PLX_GRAPH_THREADS='%s' is not a thread count (1..%d)",
                          getenv("PLX_GRAPH_THREADS"), POOL_MAX_THREADS);
        return NULL;
    }
    if (n == 0) n = default_threads(ctx);
    gpool_t *p = calloc(1, sizeof *p);
    if (p) p->tids = calloc((size_t)n, sizeof *p->tids);
    if (!p || !p->tids || pthread_mutex_init(&p->mu, NULL) != 0) {
        if (p) free(p->tids);
        free(p);
        *st = PLX_ERR_NO_MEMORY;
        return NULL;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p->tids);
        free(p);
        *st = PLX_ERR_NO_MEMORY;
        return NULL;
    }
    p->ctx = ctx;
    p->slice_us = POOL_SLICE_US;
    if (plx_env_real("PLX_GRAPH_WORKER_SLICE_US", &p->slice_us) < 0) p->slice_us = POOL_SLICE_US;
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&p->tids[i], NULL, worker_main, p);
        if (rc != 0) {
            plx_warn("plx_graph: started %d of %d worker threads: %s", i, n, strerror(rc));
            break;
        }
        char name[16];
        snprintf(name, sizeof name, "plx-graph-%d", i % 1000);
        pthread_setname_np(p->tids[i], name);
        p->nthreads++;
    }
    if (!p->nthreads) {
        pool_destroy(p);
        *st = PLX_ERR_NO_MEMORY;
        return NULL;
    }
    plx_debug("plx_graph: %d worker thread(s)", p->nthreads);
    *st = PLX_SUCCESS;
    return p;
}

/* The context owns its pool (ctx->graph_pool, under ctx->lock): made by
 * the first compiled graph with compute nodes, destroyed with the last such
 * graph or at plx_finalize. */
plx_status_t graph_pool_attach(plx_graph_t g)
{
    plx_status_t st = PLX_SUCCESS;
    plx_context_t ctx = g->ctx;
    plx_ctx_lock(ctx);
    gpool_t *p = ctx->graph_pool;
    if (!p && (p = pool_create(ctx, &st))) {
        ctx->graph_pool = p;
        ctx->compute_beside = &p->computing;
    }
    if (p) {
        p->refs++;
        g->pool = p;
    }
    plx_ctx_unlock(ctx);
    return st;
}

void graph_pool_detach(plx_graph_t g)
{
    gpool_t *p = g->pool;
    if (!p) return;
    g->pool = NULL;
    plx_context_t ctx = g->ctx;
    plx_ctx_lock(ctx);
    int last = --p->refs == 0;
    if (last) {
        ctx->graph_pool = NULL;
        ctx->compute_beside = NULL;
    }
    plx_ctx_unlock(ctx);
    if (last) pool_destroy(p);   /* joins the workers: outside the lock */
}

void plx_graph_pool_release(plx_context_t ctx)
{
    gpool_t *p = ctx->graph_pool;
    ctx->graph_pool = NULL;
    ctx->compute_beside = NULL;
    if (p) pool_destroy(p);
}
