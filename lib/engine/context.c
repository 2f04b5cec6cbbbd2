/*
 * lib/engine/context.c — the context: plx_init / plx_finalize, which transport
 * serves each peer, point-to-point dispatch, polling every transport, and
 * the spin-then-yield-then-sleep backoff of every wait loop.
 *
 * Start-up order: settings (PLX_*), bootstrap (plexusrun's rendezvous or
 * the env interface, PMIx, PMI; a process started alone is a 1-rank job),
 * node ids (so each transport knows who shares memory), transports, the
 * world communicator, the selector.
 */
#include "plx_internal.h"
#include "api/local_rank.h"
#include "engine/request.h"
#include "core/config.h"
#include "coll/select.h"
#include "bootstrap/oob.h"
#include "coll/hier.h"
#include "coll/call_record.h"
#include "graph/graph.h"
#include "device/device.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Transports in order of preference: the first one that reaches a peer
 * serves it (shm reaches exactly the ranks of this node, UCX everyone). */
#if PLX_HAVE_UCX
#define BUILT_UCX 1
#else
#define BUILT_UCX 0
#endif
static const plx_tl_ops_t *const builtin_transports[] = {
    &plx_tl_shm_ops,
#if PLX_HAVE_UCX
    &plx_tl_ucx_ops,
#endif
};

/* ---- out-of-band adapters for transports (a 1-rank job has none) ---- */
static plx_status_t ctx_allgather(void *arg, const void *mine, void *all, size_t len)
{
    plx_context_t ctx = arg;
    if (!ctx->oob) {
        memmove(all, mine, len);
        return PLX_SUCCESS;
    }
    return ctx->oob->allgather(ctx->oob_state, mine, all, len);
}

static plx_status_t ctx_barrier(void *arg)
{
    plx_context_t ctx = arg;
    return ctx->oob ? ctx->oob->barrier(ctx->oob_state) : PLX_SUCCESS;
}

/* ---- node identity ------------------------------------------------------ */
#define NODE_KEY_LEN 128

/* hostname + kernel boot id: two containers with one hostname on different
 * machines differ by boot id; PLX_NODE_ID overrides (tests simulate nodes). */
static void node_key(char key[NODE_KEY_LEN])
{
    memset(key, 0, NODE_KEY_LEN);
    const char *env = getenv("PLX_NODE_ID");
    if (env && *env) {
        snprintf(key, NODE_KEY_LEN, "id:%s", env);
        return;
    }
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    char boot_id[40] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f)) boot_id[0] = '\0';
        fclose(f);
        boot_id[strcspn(boot_id, "\n")] = '\0';
    }
    snprintf(key, NODE_KEY_LEN, "host:%s/%s", host, boot_id);
}

static plx_status_t discover_nodes(plx_context_t ctx)
{
    char mine[NODE_KEY_LEN];
    node_key(mine);
    char *all = malloc((size_t)ctx->size * NODE_KEY_LEN);
    ctx->node_of = malloc((size_t)ctx->size * sizeof(int));
    if (!all || !ctx->node_of) {
        free(all);
        return PLX_ERR_NO_MEMORY;
    }
    plx_status_t st = ctx_allgather(ctx, mine, all, NODE_KEY_LEN);
    if (st != PLX_SUCCESS) {
        free(all);
        return st;
    }
    /* node index = order of first appearance, so rank 0 is on node 0 */
    ctx->nnodes = 0;
    for (int r = 0; r < ctx->size; r++) {
        int found = -1;
        for (int q = 0; q < r && found < 0; q++)
            if (memcmp(all + (size_t)q * NODE_KEY_LEN, all + (size_t)r * NODE_KEY_LEN, NODE_KEY_LEN) == 0)
                found = ctx->node_of[q];
        ctx->node_of[r] = found >= 0 ? found : ctx->nnodes++;
    }
    free(all);
    plx_log_show_host(ctx->nnodes > 1);    /* log lines say where each rank runs */
    /* PLX_LOCAL_RANK/SIZE for later code and children, under any launcher */
    plx_local_rank_publish(ctx->node_of, ctx->size, ctx->rank);
    return PLX_SUCCESS;
}

/* ---- transports ----------------------------------------------------------- */
#define NTRANSPORTS (sizeof builtin_transports / sizeof builtin_transports[0])

/* The next name of a comma list: *p moves past it; 0 at the end. */
static int next_name(const char **p, const char **name, size_t *len)
{
    if (!**p) return 0;
    *name = *p;
    *len = strcspn(*p, ",");
    *p += *len + ((*p)[*len] == ',');
    return 1;
}

/* The built-in transport called name[0..len), or NULL. */
static const plx_tl_ops_t *transport_named(const char *name, size_t len)
{
    for (size_t i = 0; i < NTRANSPORTS; i++)
        if (strlen(builtin_transports[i]->name) == len && strncmp(name, builtin_transports[i]->name, len) == 0)
            return builtin_transports[i];
    return NULL;
}

/* PLX_TRANSPORTS as a set of built-in transports (empty list: all of them);
 * a name this build does not have is refused. */
static plx_status_t wanted_transports(const char *list, int wanted[NTRANSPORTS])
{
    for (size_t i = 0; i < NTRANSPORTS; i++) wanted[i] = !list[0];
    const char *p = list, *name;
    size_t len;
    while (next_name(&p, &name, &len)) {
        const plx_tl_ops_t *ops = transport_named(name, len);
        if (!ops) {
            plx_error("plx_init: PLX_TRANSPORTS names '%.*s', which this build does not have "
                      "(built: shm%s)", (int)len, name, BUILT_UCX ? ", ucx" : "; ucx needs --with-ucx");
            return PLX_ERR_INVALID_ARG;
        }
        for (size_t i = 0; i < NTRANSPORTS; i++) wanted[i] |= builtin_transports[i] == ops;
    }
    return PLX_SUCCESS;
}

static plx_status_t start_transports(plx_context_t ctx)
{
    plx_tl_env_t env = {
        .rank = ctx->rank, .size = ctx->size,
        .node_of = ctx->node_of, .nnodes = ctx->nnodes,
        .job_id = ctx->job_id, .timeout_s = ctx->cfg.timeout_s,
        .log_level = ctx->cfg.log_level,
        .boot = ctx, .allgather = ctx_allgather, .barrier = ctx_barrier,
    };
    int wanted[NTRANSPORTS];
    PLX_CHECK(wanted_transports(ctx->cfg.transports, wanted));
    int shm_on = wanted[0];   /* builtin_transports[0] is shm */
    for (size_t i = 0; i < NTRANSPORTS && ctx->ntl < PLX_MAX_TRANSPORTS; i++) {
        const plx_tl_ops_t *ops = builtin_transports[i];
        if (!wanted[i]) continue;
        /* all ranks on one node with shm: the network transport would serve
         * nobody (every rank sees the same nnodes, so all skip it alike) */
        if (ops != &plx_tl_shm_ops && shm_on && ctx->nnodes == 1) continue;
        void *state = NULL;
        plx_status_t st = ops->init(&env, &state);
        if (st != PLX_SUCCESS) {
            plx_error("transport %s failed to start: %s", ops->name, plx_strerror(st));
            return st;
        }
        ctx->tl[ctx->ntl].ops = ops;
        ctx->tl[ctx->ntl].state = state;
        ctx->ntl++;
    }
    ctx->peer_tl = malloc((size_t)ctx->size);
    if (!ctx->peer_tl) return PLX_ERR_NO_MEMORY;
    for (int p = 0; p < ctx->size; p++) {
        int t = 0;
        while (t < ctx->ntl && !ctx->tl[t].ops->reachable(ctx->tl[t].state, p)) t++;
        if (t == ctx->ntl) {
            plx_error("no transport reaches rank %d (node %d)%s", p, ctx->node_of[p],
                      BUILT_UCX ? "; PLX_TRANSPORTS excludes ucx?"
                                   : "; this build has only shared memory (rebuild with --with-ucx for several nodes)");
            return PLX_ERR_NOT_SUPPORTED;
        }
        ctx->peer_tl[p] = (uint8_t)t;
        plx_trace("rank %d reached through %s", p, ctx->tl[t].ops->name);
    }
    return PLX_SUCCESS;
}

/* ---- the world communicator ------------------------------------------------ */
static plx_status_t make_world(plx_context_t ctx)
{
    plx_comm_t w = calloc(1, sizeof *w);
    if (!w) return PLX_ERR_NO_MEMORY;
    w->world_rank = malloc((size_t)ctx->size * sizeof(int));
    if (!w->world_rank) {
        free(w);
        return PLX_ERR_NO_MEMORY;
    }
    for (int r = 0; r < ctx->size; r++) w->world_rank[r] = r;
    w->magic = PLX_COMM_MAGIC;
    w->ctx = ctx;
    w->id = 0;
    w->rank = ctx->rank;
    w->size = ctx->size;
    ctx->world = w;
    ctx->comm_ids_used[0] = 1;   /* id 0: world */
    return PLX_SUCCESS;
}

/* ---- context objects ---------------------------------------------------------
 * A finalized context object is kept, marked dead, so that a stale copy of
 * its handle is reported as invalid instead of read after free; it is
 * reused by a later plx_init only once CTX_QUARANTINE dead ones wait.  The
 * list is reachable from this static, so leak checkers see no leak, and
 * its memory is bounded (process-wide state, guarded by its own lock). */
#define CTX_QUARANTINE 16
static pthread_mutex_t dead_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static plx_context_t dead_ctx[CTX_QUARANTINE + 1];   /* oldest first */
static int ndead_ctx;

static plx_context_t context_obj_get(void)
{
    plx_context_t ctx = NULL;
    pthread_mutex_lock(&dead_ctx_lock);
    if (ndead_ctx > CTX_QUARANTINE) {
        ctx = dead_ctx[0];
        memmove(dead_ctx, dead_ctx + 1, (size_t)--ndead_ctx * sizeof dead_ctx[0]);
    }
    pthread_mutex_unlock(&dead_ctx_lock);
    if (ctx) memset(ctx, 0, sizeof *ctx);
    else ctx = calloc(1, sizeof *ctx);
    return ctx;
}

static void context_obj_put(plx_context_t ctx)
{
    pthread_mutex_lock(&dead_ctx_lock);
    if (ndead_ctx == CTX_QUARANTINE + 1) {   /* many contexts ended at once: the oldest goes */
        free(dead_ctx[0]);
        memmove(dead_ctx, dead_ctx + 1, (size_t)--ndead_ctx * sizeof dead_ctx[0]);
    }
    dead_ctx[ndead_ctx++] = ctx;
    pthread_mutex_unlock(&dead_ctx_lock);
}

/* Release everything the context holds.  keep_handle: leave the struct
 * itself in the dead-context quarantine (above), so a stale copy of a
 * finalized handle is reported as invalid instead of read after free. */
static void context_destroy(plx_context_t ctx, int keep_handle)
{
    plx_requests_release(ctx);   /* before the transports: it cancels their requests */
    sched_notices_release(ctx);  /* the same for mismatch notices still in flight */
    plx_dev_finalize(ctx);       /* NCCL communicators, streams, pinned memory (lib/device/device.c) */
    for (int t = ctx->ntl - 1; t >= 0; t--) ctx->tl[t].ops->finalize(ctx->tl[t].state);
    if (ctx->oob) ctx->oob->close(ctx->oob_state);
    plx_comms_release_all(ctx);   /* lib/api/comm.c: live and freed ones */
    if (ctx->world) {
        plx_slots_release(ctx->world);
        plx_direct_release(ctx->world);
        plx_callrec_release(ctx->world);   /* the world's call records (LeakSanitizer found them kept) */
        plx_hier_release(ctx->world);
        ctx->world->magic = PLX_DEAD_MAGIC;
        free(ctx->world->world_rank);
        free(ctx->world);
    }
    sched_scratch_release(ctx);
    plx_select_free(ctx->select);
    free(ctx->peer_tl);
    free(ctx->node_of);
    ctx->select = NULL;
    ctx->peer_tl = NULL;
    ctx->node_of = NULL;
    ctx->comms = NULL;
    ctx->world = NULL;
    ctx->oob = NULL;
    ctx->oob_state = NULL;
    ctx->ntl = 0;
    pthread_mutex_destroy(&ctx->lock);
    /* volatile: the store must happen even though nothing reads it here */
    *(volatile uint32_t *)&ctx->magic = PLX_DEAD_MAGIC;
    if (keep_handle) context_obj_put(ctx);
    else free(ctx);
}

/* Everything of init after the ranks have found each other. */
static plx_status_t init_common(plx_context_t *out, const plx_oob_t *user)
{
    *out = NULL;
    plx_log_init(-1);

    plx_context_t ctx = context_obj_get();
    if (!ctx) return PLX_ERR_NO_MEMORY;
    ctx->magic = PLX_CTX_MAGIC;
    pthread_mutex_init(&ctx->lock, NULL);

    char err[512] = "";
    plx_status_t st = plx_config_load(&ctx->cfg, err, sizeof err);
    if (st == PLX_SUCCESS) {
        plx_log_level = ctx->cfg.log_level;
        st = plx_select_create(ctx->cfg.tune, &ctx->select, err, sizeof err);
    }
    if (st != PLX_SUCCESS) {
        plx_error("plx_init: %s", err);
        context_destroy(ctx, 0);
        return st;
    }

    /* Find the other ranks: the application's channel, else the env
     * interface, else PMIx, else PMI, else alone (lib/bootstrap/oob.h). */
    plx_oob_info_t info = { 0, 1, "" };
    if (user) {
        st = plx_oob_user_open(user, &info, &ctx->oob, &ctx->oob_state);
    } else {
        st = plx_oob_tcp_open(ctx->cfg.timeout_s, &info, &ctx->oob, &ctx->oob_state);
        if (st == PLX_ERR_NOT_SUPPORTED)
            st = plx_oob_pmix_open(ctx->cfg.timeout_s, &info, &ctx->oob, &ctx->oob_state);
        if (st == PLX_ERR_NOT_SUPPORTED)
            st = plx_oob_pmi_open(ctx->cfg.timeout_s, &info, &ctx->oob, &ctx->oob_state);
        /* alone, unless a launcher started several of us and we could not join it */
        if (st == PLX_ERR_NOT_SUPPORTED && (st = plx_launch_env_check()) == PLX_SUCCESS) {
            ctx->oob = NULL;   /* a 1-rank job, like an MPI program run without mpirun */
            info.rank = 0;
            info.size = 1;
            snprintf(info.job_id, sizeof info.job_id, "s%ld", (long)getpid());
            st = PLX_SUCCESS;
        }
    }
    if (st != PLX_SUCCESS) {
        ctx->oob = NULL;
        context_destroy(ctx, 0);
        return st;
    }
    ctx->rank = info.rank;
    ctx->size = info.size;
    snprintf(ctx->job_id, sizeof ctx->job_id, "%s", info.job_id);
    plx_log_set_rank(ctx->rank);
    if (plx_log_file_open(err, sizeof err) != 0) {
        plx_error("plx_init: %s", err);
        context_destroy(ctx, 0);
        return PLX_ERR_INVALID_ARG;
    }

    if ((st = discover_nodes(ctx)) != PLX_SUCCESS || (st = start_transports(ctx)) != PLX_SUCCESS ||
        (st = make_world(ctx)) != PLX_SUCCESS || (st = plx_dev_init(ctx)) != PLX_SUCCESS ||
        (ctx->cfg.progress_thread && (st = plx_progress_thread_start(ctx)) != PLX_SUCCESS)) {
        plx_error("plx_init failed: %s", plx_strerror(st));
        context_destroy(ctx, 0);
        return st;
    }
    plx_debug("initialised: rank %d of %d, %d node(s), job %s, found through %s", ctx->rank,
              ctx->size, ctx->nnodes, ctx->job_id, ctx->oob ? ctx->oob->name : "nothing (alone)");
    *out = ctx;
    return PLX_SUCCESS;
}

plx_status_t plx_init(plx_context_t *out)
{
    if (!out) return plx_bad_arg("plx_init", "ctx is NULL");
    return init_common(out, NULL);
}

plx_status_t plx_init_oob(const plx_oob_t *oob, plx_context_t *out)
{
    if (!out) return plx_bad_arg("plx_init_oob", "ctx is NULL");
    *out = NULL;
    if (!oob || !oob->allgather || oob->size < 1 || oob->rank < 0 || oob->rank >= oob->size)
        return plx_bad_arg("plx_init_oob", "oob is NULL, has no allgather, or rank/size are bad");
    return init_common(out, oob);
}

plx_status_t plx_finalize(plx_context_t *pctx)
{
    if (!pctx || !*pctx || (*pctx)->magic != PLX_CTX_MAGIC)
        return plx_bad_arg("plx_finalize", "not an initialised context");
    plx_context_t ctx = *pctx;
    plx_progress_thread_stop(ctx);   /* before anything it could be touching goes */
    plx_graph_pool_release(ctx);     /* graph workers too */
    /* what really carried this rank's traffic (tests assert on it) */
    for (int t = 0; t < ctx->ntl; t++)
        plx_debug("transport %s: %llu messages, %llu bytes sent", ctx->tl[t].ops->name,
                  (unsigned long long)ctx->tl[t].sends, (unsigned long long)ctx->tl[t].bytes);
    /* A barrier on world first: it keeps polling the transports while it
     * waits, so bytes a transport still holds for a peer (a UCX eager send
     * that completed locally) get out.  Then everyone stops polling only
     * when nobody can still be reading our memory or rings.
     * After a timeout, a dead peer or a mismatch (ctx->failed) the job is
     * broken: a barrier would only wait PLX_TIMEOUT for the stuck or dead
     * rank (twice: world, then bootstrap), so both are skipped and this
     * rank just releases what it holds (segments are unlinked since init:
     * nothing is left in /dev/shm).  A peer still waiting for us sees us
     * gone through its own bounded waits. */
    plx_status_t st = PLX_SUCCESS;
    if (!ctx->failed && ctx->size > 1) {
        plx_status_t wst = plx_barrier(ctx->world);
        if (wst != PLX_SUCCESS) plx_warn("plx_finalize: barrier on world failed: %s", plx_strerror(wst));
    }
    if (!ctx->failed) {
        st = ctx_barrier(ctx);
        if (st != PLX_SUCCESS) plx_warn("plx_finalize: final barrier failed: %s", plx_strerror(st));
    } else {
        plx_info("plx_finalize: this context saw a timeout, a dead peer or a mismatch: "
                 "leaving without the final barriers");
    }
    context_destroy(ctx, 1);
    *pctx = NULL;
    return st;
}

/* ---- point to point dispatch ----------------------------------------------- */
plx_status_t plx_p2p_isend(plx_comm_t comm, int peer, uint64_t tag, const void *buf, size_t len,
                           plx_tl_req_t *req)
{
    plx_context_t ctx = comm->ctx;
    int w = comm->world_rank[peer];
    int t = ctx->peer_tl[w];
    req->done = 0;
    req->status = PLX_SUCCESS;
    req->bytes = 0;
    ctx->tl[t].sends++;
    ctx->tl[t].bytes += len;
    return ctx->tl[t].ops->isend(ctx->tl[t].state, w, tag, buf, len, req);
}

plx_status_t plx_p2p_irecv(plx_comm_t comm, int peer, uint64_t tag, void *buf, size_t len,
                           plx_tl_req_t *req)
{
    plx_context_t ctx = comm->ctx;
    int w = comm->world_rank[peer];
    int t = ctx->peer_tl[w];
    req->done = 0;
    req->status = PLX_SUCCESS;
    req->bytes = 0;
    return ctx->tl[t].ops->irecv(ctx->tl[t].state, w, tag, buf, len, req);
}

void plx_p2p_cancel(plx_comm_t comm, int peer, plx_tl_req_t *req)
{
    plx_context_t ctx = comm->ctx;
    int w = comm->world_rank[peer];
    int t = ctx->peer_tl[w];
    if (!req->done) ctx->tl[t].ops->cancel(ctx->tl[t].state, req);
}

const char *plx_comm_transports(plx_comm_t comm)
{
    if (comm->transports[0]) return comm->transports;
    plx_context_t ctx = comm->ctx;
    unsigned used = 0;
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank || comm->size == 1) used |= 1u << ctx->peer_tl[comm->world_rank[r]];
    comm->tmask = used;
    size_t len = 0;
    for (int t = 0; t < ctx->ntl; t++)
        if (used & (1u << t))
            len += (size_t)snprintf(comm->transports + len, sizeof comm->transports - len, "%s%s",
                                    len ? "+" : "", ctx->tl[t].ops->name);
    return comm->transports;
}

int plx_progress(plx_context_t ctx)
{
    int events = 0;
    for (int t = 0; t < ctx->ntl; t++) events += ctx->tl[t].ops->progress(ctx->tl[t].state);
    return events;
}

plx_status_t plx_peer_status(plx_context_t ctx, int world_rank)
{
    int t = ctx->peer_tl[world_rank];
    return ctx->tl[t].ops->peer_status(ctx->tl[t].state, world_rank);
}

/* ---- backoff ------------------------------------------------------------------ */
#define BACKOFF_SPIN_POLLS  64        /* pure polls before yielding: the 2-rank fast case */
#define BACKOFF_YIELD_S     2e-3      /* then sched_yield until idle this long */
#define BACKOFF_SLEEP_NS    20000     /* then sleep 20 us per poll: an idle wait costs ~nothing */

void plx_backoff_reset(plx_backoff_t *b)
{
    b->idle_polls = 0;
    b->sleeping = 0;
    b->lone_since = 0;
}

#define YIELD_SWITCHED_S 5e-6   /* a yield this long ran another thread */
int plx_yield_alone(double *lone_since, double lone_s)
{
    double t0 = plx_now();
    sched_yield();
    double t1 = plx_now();
    if (t1 - t0 > YIELD_SWITCHED_S) {
        *lone_since = 0;
        return 0;
    }
    if (*lone_since == 0) {
        *lone_since = t1;
    } else if (t1 - *lone_since > lone_s) {
        *lone_since = 0;
        return 1;
    }
    return 0;
}

void plx_backoff_idle(plx_backoff_t *b)
{
    if (b->idle_polls++ < BACKOFF_SPIN_POLLS) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (!b->sleeping) {
        if (b->idle_polls == BACKOFF_SPIN_POLLS + 1)
            b->idle_since = plx_now();
        else if ((b->idle_polls & 15) == 0 && plx_now() - b->idle_since > BACKOFF_YIELD_S)
            b->sleeping = 1;
        sched_yield();
        return;
    }
    struct timespec ts = { 0, BACKOFF_SLEEP_NS };
    nanosleep(&ts, NULL);
}
