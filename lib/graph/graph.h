/*
 * lib/graph/graph.h — the task-graph executor's private types, shared by its
 * three files:
 *   lib/graph/build.c       building and compiling a graph (the public add /
 *                     depend / compile / free calls and their checks);
 *   lib/graph/exec.c  running a compiled graph: launch, the engine hook
 *                     that dispatches ready nodes, plx_graph_run;
 *   lib/graph/pool.c  the worker threads that run compute nodes.
 *
 * Locking, in this order: ctx->lock (the engine), g->lk (a launch's
 * state), pool->mu (the queues of compute nodes waiting for a thread).
 * The engine hook holds ctx->lock and takes g->lk; a worker that finished
 * a node takes g->lk alone, releases the successors itself and hands the
 * ready compute nodes out at once, and posts ready communication only if
 * ctx->lock is free (trylock): a worker never waits on the engine
 * (the task-graph lesson in README), and the chain of compute nodes never
 * waits for a progress pass, which can take milliseconds while large
 * reductions run.
 */
#ifndef PLX_GRAPH_H
#define PLX_GRAPH_H

#include "plx_internal.h"
#include "engine/request.h"
#include "coll/coll.h"

#define PLX_GRAPH_MAGIC 0x504c5847u   /* "PLXG" */

enum { GN_COMPUTE = 0, GN_COLL, GN_SEND, GN_RECV };

/* A node's state in the current launch (for the gating of collectives and
 * for naming what a stuck launch waits for). */
enum { NS_WAIT = 0, NS_PARKED, NS_RUNNING, NS_POSTED, NS_DONE };

/* Priority levels: distinct priorities are ranked at compile; a two-level
 * bitmap finds the highest non-empty level in O(1) (64 x 64 levels; more
 * distinct values than that share levels). */
#define GRAPH_MAX_LEVELS 4096

typedef struct gnode {
    uint8_t kind;              /* GN_* */
    uint16_t level;            /* priority level (compile) */
    int prio;
    uint32_t cslot;            /* communication nodes: index into g->comms */
    uint32_t corder;           /* collective nodes: position among its communicator's */
    uint32_t succ_off, nsucc;  /* successors: g->succ[succ_off .. +nsucc) (compile) */
    union {
        struct { plx_graph_fn_t fn; void *arg; } c;
        coll_args_t coll;
        struct { void *buf; size_t count; plx_dtype_t dt; int peer, tag; size_t *received; } p2p;
    } u;
} gnode_t;

/* One communicator used by the graph. */
typedef struct gcomm {
    plx_comm_t comm;
    uint32_t comm_gen;         /* comm->gen when added: a freed and reused object differs */
    uint32_t ncoll;            /* collective nodes on it */
    uint32_t *order;           /* their node ids in the compiled (matching) order */
    uint32_t next;             /* launch: position of the next one to post */
    uint32_t inflight;         /* launch: of its collectives, posted and not complete */
} gcomm_t;

/* A priority queue of node ids with few distinct priorities: one FIFO
 * segment per level (each node enters at most once per launch, so a
 * segment never wraps and is reset per launch). */
typedef struct lvq {
    uint32_t *slots;           /* nodes, level segments back to back */
    uint32_t *base;            /* [nlevels] first slot of each level */
    uint32_t *head, *tail;     /* [nlevels] */
    uint64_t bits[GRAPH_MAX_LEVELS / 64];
    uint64_t summary;          /* bit w: bits[w] != 0 */
    int nlevels;
    uint32_t count;
} lvq_t;

struct gpool;

/* Add a collective node (checks as the public call; the v-forms' count
 * arrays are copied into the node): every plx_graph_add_<collective>. */
plx_status_t plx_graph_add_coll(const char *fn, plx_graph_t g, plx_comm_t comm, const coll_args_t *a,
                                plx_graph_node_t *node);

struct plx_graph {
    uint32_t magic;
    plx_context_t ctx;
    int compiled;
    int policy;                /* plx_graph_policy_t */
    int timing;

    /* building */
    gnode_t *nodes;
    uint32_t n, cap;
    uint32_t (*edges)[2];      /* before, after */
    uint32_t nedges, ecap;
    gcomm_t *comms;
    uint32_t ncomms, ccap;

    /* compiled */
    uint32_t *succ;            /* CSR successor lists */
    uint32_t *npred0;          /* [n] predecessors of each node */
    uint32_t *roots;           /* nodes without predecessors, in index order */
    uint32_t nroots;
    uint32_t ncompute;
    int nlevels;

    /* launch state: g->lk (taken after ctx->lock by the engine hook, alone
     * by workers).  What touches the engine's requests (posting, req[],
     * posted[], nposted) also needs ctx->lock: workers only trylock it. */
    pthread_mutex_t lk;
    int active;                /* a launch is in flight */
    int ctx_dead;              /* the context was finalized during a launch */
    plx_status_t status;       /* first error of this launch */
    int stop;                  /* a communication error: dispatch nothing more */
    uint32_t remaining;        /* nodes not yet completed this launch */
    uint32_t *pending;         /* [n] predecessors not yet completed */
    uint8_t *state;            /* [n] NS_*: where each node is in this launch */
    plx_request_t *req;        /* [n] communication nodes in flight */
    uint32_t *posted;          /* ids of communication nodes in flight */
    uint32_t nposted;
    uint32_t ncoll_posted;     /* of those, collectives (FIFO waits for these, not for send/recv) */
    _Atomic uint32_t outstanding;   /* compute nodes handed to the pool and not finished (written
                                       under g->lk; read unlocked as a hint by plx_graph_run) */
    lvq_t rq;                  /* ready communication nodes not yet posted */
    lvq_t crq;                 /* ready compute nodes not yet handed out */
    uint32_t *batch;           /* [n] scratch: compute nodes handed to the pool in one go */
    uint32_t *defer;           /* [n] small compute nodes to run inline, in priority order */
    uint32_t defer_head, defer_tail;
    double inline_s;           /* PLX_GRAPH_INLINE_US: run nodes shorter than this inline (0: never) */
    uint32_t window;           /* PLX_GRAPH_COMM_WINDOW: collectives in flight per communicator */
    int oversub;               /* ranks outnumber cores: plx_graph_run naps when its core is its own */
    double pass_left;          /* inline budget left in this engine pass */
    uint64_t launches;
    int measure;               /* this launch times its inline nodes */
    uint32_t *fifo;            /* PLX_GRAPH_FIFO: every ready node, in ready order */
    uint32_t fifo_head, fifo_tail;
    _Atomic uint64_t completions;   /* nodes completed, ever (no-progress timeout, run loop) */
    uint64_t chk_completions;
    double chk_since;
    int failed_node;           /* first compute node that failed, -1 (and its return code) */
    int failed_rc;
    /* set when the engine hook has work: ready communication a worker
     * could not post, the launch's end, an inline budget used up */
    _Atomic int wake;

    /* shared with the workers */
    _Atomic int skip;          /* do not run compute nodes any more (failure or stop) */
    float *last;               /* [n] compute nodes' duration at their last run, s (-1: never ran) */
    double *t_start, *t_end;   /* [n] when timing is on */

    /* worker pool (pool->mu) */
    struct gpool *pool;
    lvq_t cq;                  /* compute nodes waiting for a thread */
    _Atomic uint32_t cq_n;     /* cq.count, readable without the mutex */
    struct plx_graph *wnext;   /* pool work list */
    int in_work;
    int helper;                /* plx_graph_run's thread is waiting on this graph */
    _Atomic int helper_idle;   /* ... and is not running a node */
    int helper_ok;             /* ... and may take one now (set by each dispatch step) */
};

/* ---- level queues (graph.c) ---- */
/* counts[l]: how many nodes may enter level l per launch. */
plx_status_t lvq_init(lvq_t *q, int nlevels, const uint32_t *counts);
void lvq_free(lvq_t *q);
void lvq_reset(lvq_t *q);
static inline void lvq_push(lvq_t *q, uint32_t level, uint32_t v)
{
    q->slots[q->base[level] + q->tail[level]++] = v;
    q->bits[level >> 6] |= 1ull << (level & 63);
    q->summary |= 1ull << (level >> 6);
    q->count++;
}
/* Highest level first, FIFO within a level; q must not be empty. */
static inline uint32_t lvq_pop(lvq_t *q)
{
    int w = 63 - __builtin_clzll(q->summary);
    int l = (w << 6) + 63 - __builtin_clzll(q->bits[w]);
    uint32_t v = q->slots[q->base[l] + q->head[l]++];
    if (q->head[l] == q->tail[l]) {
        q->head[l] = q->tail[l] = 0;
        q->bits[w] &= ~(1ull << (l & 63));
        if (!q->bits[w]) q->summary &= ~(1ull << w);
    }
    q->count--;
    return v;
}

/* ---- executor (graph_exec.c) ---- */
/* A launch is in flight (takes g->lk). */
int graph_is_running(plx_graph_t g);
/* For plx_graph_free: PLX_ERR_INVALID_ARG (logged under fn) while a
 * launch or one of its compute nodes is still running. */
plx_status_t graph_quiesce(const char *fn, plx_graph_t g);

/* ---- worker pool (graph_pool.c) ---- */
/* The pool of g's context (created with its threads at the first call;
 * shared by every graph of the context, refcounted). */
plx_status_t graph_pool_attach(plx_graph_t g);
/* Drop g's reference; the last one joins the threads. */
void graph_pool_detach(plx_graph_t g);
/* plx_finalize: stop and join the context's workers even if graphs were
 * not freed (their handles are dead from then on). */
void plx_graph_pool_release(plx_context_t ctx);
/* Queue compute nodes (g->lk held): the n ids in v go to g->cq; self: 1
 * when the caller is a worker that will take one itself, 2 when it is
 * plx_graph_run's thread (which takes one if helper_ok), else 0. */
void graph_pool_push(plx_graph_t g, const uint32_t *v, uint32_t n, int helper_ok, int self);
/* Wake as many sleeping workers as queued nodes lack a taker; helper_ok
 * says whether plx_graph_run's thread may take one of g's now (push does
 * this too). */
void graph_pool_kick(plx_graph_t g, int helper_ok);
/* Remove g's queued nodes (a launch that ends early); returns how many. */
uint32_t graph_pool_purge(plx_graph_t g);
/* plx_graph_run's thread: take one of g's queued nodes if allowed (-1 if
 * none); mark the helper idle otherwise. */
int graph_pool_helper_take(plx_graph_t g);
void graph_pool_helper_set(plx_graph_t g, int on);
/* Run compute node v of g (self 1: on a pool worker; 2: plx_graph_run's
 * thread) and report it done; then the nodes it hands back (continuations). */
void graph_run_compute(plx_graph_t g, uint32_t v, int self);
/* A worker (self 1) or plx_graph_run's thread (self 2) finished compute
 * node v with return code rc: release its successors and dispatch what
 * became ready (graph_exec.c).  Returns a ready compute node the caller
 * keeps and runs next (-1: none). */
int graph_worker_done(plx_graph_t g, uint32_t v, int rc, int self);
/* Run compute node v unless the launch skips compute; times it (last[],
 * t_start/t_end) and returns its return code (0 when skipped). */
int graph_call_compute(plx_graph_t g, uint32_t v);
/* Parse PLX_GRAPH_THREADS (0 and *n unset when absent); -1 if bad. */
int graph_threads_env(int *n);
/* More ranks on this node than it has CPUs (plx_graph_run naps, exec.c). */
int graph_ranks_outnumber_cores(plx_context_t ctx);

#endif /* PLX_GRAPH_H */
