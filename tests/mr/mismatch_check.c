/*
 * tests/mr/mismatch_check.c — ranks that disagree on a collective call get
 * PLX_ERR_MISMATCH, promptly, and no byte outside their buffers changes.
 *
 * `mismatch_check --coll NAME [--sizes 8,4194304] [--graph] [--big B]`, 4 ranks
 * (3 or more), run by tests/mr/run_mismatch.sh once per algorithm of the
 * registry with PLX_TUNE forcing it.  For each base size B (bytes per rank,
 * float32 elements) and collective NAME, one agreeing call first (must
 * succeed: proves the forced algorithm runs and the communicator is
 * healthy), then these disagreements, each followed by an agreeing
 * allreduce that must succeed with the right sum (the communicator stays
 * usable after a mismatch):
 *   count  rank 2 passes half the count
 *   dtype  rank 2 passes float64 (twice the bytes) with the same count
 *   root   rank 3 passes root 1, the others root 0     (rooted collectives)
 *   op     rank 1 reduces with max, the others sum     (reductions)
 *   coll   rank 1 calls another collective of the same count
 *   order  ranks 0 and 1 call NAME then the other collective, ranks 2 and 3
 *          the other one first (one communicator, collectives out of order)
 * --graph: the count case once more as a task-graph allreduce node.
 * --big B: each agreeing allreduce after a mismatch also runs at B bytes
 * (a large one must still work too, e.g. on node-local single-copy phases).
 * Every buffer has guard bytes on both sides, checked after every call.
 *
 * The rules (checked on rank 0 from every rank's results, gathered on a
 * separate communicator):
 *   - every rank's status is PLX_SUCCESS or PLX_ERR_MISMATCH (not a
 *     timeout: nobody may wait to PLX_TIMEOUT once a rank has seen the
 *     mismatch; not INTERNAL/TRUNCATE);
 *   - at least one rank has PLX_ERR_MISMATCH (no disagreement passes as
 *     success on every rank);
 *   - no guard byte changed.
 * The "other collective" is chosen on the same path as NAME (shared slots,
 * single-copy direct, or schedules) so the two sides meet in the same
 * protocol; disagreeing across two paths (different collectives, or sizes
 * on both sides of a path's limit) ends in PLX_ERR_TIMEOUT naming the
 * ranks, which this program does not exercise.
 * Output: one line per case and rank 0's verdicts; last line per rank
 * `mismatch_check: rank R: N checks, F failures`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plexus.h"

#define GUARD 64
#define GUARD_BYTE 0xa5

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL,
       C_GATHER, C_SCATTER, C_COUNT };
static const char *const names[C_COUNT] = { "barrier", "bcast", "reduce", "allreduce", "allgather",
                                            "reduce_scatter", "alltoall", "gather", "scatter" };

typedef struct call {
    int coll;
    size_t count;
    plx_dtype_t dt;
    plx_op_t op;
    int root;
} call_t;

static int me, nranks;
static int checks, fails;
static size_t big;   /* --big */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- guarded buffers -------------------------------------------------------- */
typedef struct gbuf {
    unsigned char *base;
    size_t len;
} gbuf_t;

static void *gbuf_make(gbuf_t *g, size_t len)
{
    g->len = len;
    g->base = malloc(len + 2 * GUARD);
    if (!g->base) {
        fprintf(stderr, "mismatch_check: out of memory\n");
        exit(1);
    }
    memset(g->base, GUARD_BYTE, GUARD);
    memset(g->base + GUARD + len, GUARD_BYTE, GUARD);
    float *f = (float *)(void *)(g->base + GUARD);
    for (size_t i = 0; i < len / sizeof(float); i++) f[i] = (float)(me + 1);
    return g->base + GUARD;
}

/* 1 if both guards are intact; frees. */
static int gbuf_done(gbuf_t *g)
{
    int ok = 1;
    for (size_t i = 0; i < GUARD; i++)
        ok &= g->base[i] == GUARD_BYTE && g->base[GUARD + g->len + i] == GUARD_BYTE;
    free(g->base);
    return ok;
}

/* ---- one call, with the buffers its API needs -------------------------------- */
static int has_root(int c) { return c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_SCATTER; }
static int has_op(int c) { return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER; }

static plx_status_t start_call(const call_t *c, plx_comm_t comm, void *sb, void *rb, plx_request_t *rq)
{
    switch (c->coll) {
    case C_BARRIER: return plx_ibarrier(comm, rq);
    case C_BCAST: return plx_ibcast(rb, c->count, c->dt, c->root, comm, rq);
    case C_REDUCE: return plx_ireduce(sb, rb, c->count, c->dt, c->op, c->root, comm, rq);
    case C_ALLREDUCE: return plx_iallreduce(sb, rb, c->count, c->dt, c->op, comm, rq);
    case C_ALLGATHER: return plx_iallgather(sb, rb, c->count, c->dt, comm, rq);
    case C_REDUCE_SCATTER: return plx_ireduce_scatter(sb, rb, c->count, c->dt, c->op, comm, rq);
    case C_ALLTOALL: return plx_ialltoall(sb, rb, c->count, c->dt, comm, rq);
    case C_GATHER: return plx_igather(sb, rb, c->count, c->dt, c->root, comm, rq);
    default: return plx_iscatter(sb, rb, c->count, c->dt, c->root, comm, rq);
    }
}

typedef struct pending {
    gbuf_t s, r;
    plx_request_t rq;
    plx_status_t st;
} pending_t;

static void post(const call_t *c, plx_comm_t comm, pending_t *p)
{
    size_t es = plx_dtype_size(c->dt), n = (size_t)nranks;
    size_t sl = c->count * es, rl = c->count * es;
    if (c->coll == C_ALLTOALL || c->coll == C_SCATTER || c->coll == C_REDUCE_SCATTER) sl *= n;
    if (c->coll == C_ALLGATHER || c->coll == C_ALLTOALL || c->coll == C_GATHER) rl *= n;
    void *sb = gbuf_make(&p->s, sl), *rb = gbuf_make(&p->r, rl);
    p->rq = NULL;
    p->st = start_call(c, comm, sb, rb, &p->rq);
}

/* Wait for p; returns its status, counting a guard failure. */
static plx_status_t finish(pending_t *p, const char *what)
{
    if (p->st == PLX_SUCCESS) p->st = plx_wait(&p->rq);
    int ok = gbuf_done(&p->s) & gbuf_done(&p->r);
    checks++;
    if (!ok) {
        printf("mismatch_check: rank %d: FAIL %s: a guard byte next to a buffer changed\n", me, what);
        fails++;
    }
    return p->st;
}

static plx_status_t run_call(const call_t *c, plx_comm_t comm, const char *what)
{
    pending_t p;
    post(c, comm, &p);
    return finish(&p, what);
}

/* ---- verdicts ------------------------------------------------------------------ */
typedef struct result {
    int32_t status;
    float secs;
} result_t;

/* Gather every rank's result on ctl; rank 0 judges.  expect_mismatch: the
 * ranks disagreed.  Returns the number of failures found (on rank 0). */
static void judge(plx_comm_t ctl, const char *what, plx_status_t st, double secs, int expect_mismatch)
{
    result_t mine = { (int32_t)st, (float)secs }, all[64];
    printf("mismatch_check: rank %d: %s: %s (%.3f s)\n", me, what, plx_strerror(st), secs);
    plx_status_t gs = plx_allgather(&mine, all, sizeof mine, PLX_UINT8, ctl);
    checks++;
    if (gs != PLX_SUCCESS) {
        printf("mismatch_check: rank %d: FAIL %s: gathering the results: %s\n", me, what,
               plx_strerror(gs));
        fails++;
        return;
    }
    if (me != 0) return;
    int nmis = 0, bad = 0;
    for (int r = 0; r < nranks; r++) {
        if (all[r].status == PLX_ERR_MISMATCH && expect_mismatch) {
            nmis++;
        } else if (all[r].status != PLX_SUCCESS) {
            printf("mismatch_check: FAIL %s: rank %d returned %s after %.2f s\n", what, r,
                   plx_strerror((plx_status_t)all[r].status), all[r].secs);
            bad++;
        }
    }
    if (expect_mismatch && nmis == 0) {
        printf("mismatch_check: FAIL %s: the ranks disagreed and every rank returned PLX_SUCCESS\n", what);
        bad++;
    }
    if (bad) fails++;
}

/* An agreeing allreduce on comm must still work after a mismatch. */
static void healthy(plx_comm_t comm, const char *what)
{
    float v = (float)(me + 1), sum = 0;
    plx_status_t st = plx_allreduce(&v, &sum, 1, PLX_FLOAT32, PLX_SUM, comm);
    float want = (float)nranks * (float)(nranks + 1) / 2;
    checks++;
    if (st != PLX_SUCCESS || sum != want) {
        printf("mismatch_check: rank %d: FAIL after %s: an agreeing allreduce gave %s, sum %g (want %g)\n",
               me, what, plx_strerror(st), (double)sum, (double)want);
        fails++;
    }
    if (!big) return;
    size_t n = big / sizeof(float);
    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    if (!in || !out) {
        fprintf(stderr, "mismatch_check: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) in[i] = (float)(me + 1);
    st = plx_allreduce(in, out, n, PLX_FLOAT32, PLX_SUM, comm);
    size_t bad = 0;
    for (size_t i = 0; st == PLX_SUCCESS && i < n; i++) bad += out[i] != want;
    checks++;
    if (st != PLX_SUCCESS || bad) {
        printf("mismatch_check: rank %d: FAIL after %s: an agreeing allreduce of %zu bytes gave %s, "
               "%zu wrong elements\n", me, what, big, plx_strerror(st), bad);
        fails++;
    }
    free(in);
    free(out);
}

/* Which protocol an algorithm speaks: node-local slots, node-local
 * single-copy (direct) or a schedule of messages.  Two ranks can only see
 * each other's signature when their calls run on the same one. */
static int path_of(const char *algo)
{
    if (!strcmp(algo, "shm_slots")) return 0;
    if (!strcmp(algo, "direct")) return 1;
    return 2;
}

/* The other collective for the coll and order cases: one whose call of
 * the same size runs on the same path as c's (the selector decides, with
 * PLX_TUNE as run_mismatch.sh sets it); -1 if there is none. */
static int other_coll(plx_comm_t world, int c, size_t bytes, const char *algo)
{
    static const int cand[] = { C_ALLREDUCE, C_ALLGATHER, C_GATHER, C_SCATTER, C_BCAST, C_REDUCE,
                                C_ALLTOALL };
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        if (cand[i] == c) continue;
        const char *a = "?";
        if (plx_query_algorithm(world, names[cand[i]], bytes, &a, NULL) != PLX_SUCCESS) continue;
        if (path_of(a) == path_of(algo)) return cand[i];
    }
    return -1;
}

static void run_size(plx_context_t ctx, plx_comm_t world, plx_comm_t ctl, int coll, size_t bytes,
                     int graph)
{
    char what[160];
    call_t base = { coll, bytes / sizeof(float), PLX_FLOAT32, PLX_SUM, 0 };
    const char *algo = "?";
    if (plx_query_algorithm(world, names[coll], coll == C_BARRIER ? 0 : bytes, &algo, NULL) != PLX_SUCCESS)
        algo = "?";
    int partner = other_coll(world, coll, coll == C_BARRIER ? 0 : bytes, algo);

    snprintf(what, sizeof what, "%s/%s %zu B agree", names[coll], algo, bytes);
    double t0 = now();
    plx_status_t st = run_call(&base, world, what);
    judge(ctl, what, st, now() - t0, 0);

    for (int k = 0; k < 6; k++) {
        static const char *const kind[] = { "count", "dtype", "root", "op", "coll", "order" };
        if (coll == C_BARRIER && k < 4) continue;
        if (k == 2 && !has_root(coll)) continue;
        if (k == 3 && !has_op(coll)) continue;
        if (k >= 4 && partner < 0) {
            if (me == 0)
                printf("mismatch_check: %s/%s %zu B: coll and order cases skipped: no other collective "
                       "runs on the same path at this size\n", names[coll], algo, bytes);
            break;
        }
        call_t c = base;
        if (k == 0 && me == 2) c.count = base.count / 2;
        if (k == 1 && me == 2) c.dt = PLX_FLOAT64;
        if (k == 2 && me == 3) c.root = 1;
        if (k == 3 && me == 1) c.op = PLX_MAX;
        if (k == 4 && me == 1) c.coll = partner;
        snprintf(what, sizeof what, "%s/%s %zu B %s", names[coll], algo, bytes, kind[k]);
        t0 = now();
        if (k < 5) {
            st = run_call(&c, world, what);
        } else {
            /* order: two collectives, started in opposite orders */
            call_t d = base;
            d.coll = partner;
            pending_t p[2];
            post(me < 2 ? &c : &d, world, &p[0]);
            post(me < 2 ? &d : &c, world, &p[1]);
            plx_status_t s0 = finish(&p[0], what), s1 = finish(&p[1], what);
            st = s0 != PLX_SUCCESS ? s0 : s1;
        }
        judge(ctl, what, st, now() - t0, 1);
        healthy(world, what);
    }

    if (graph && coll == C_ALLREDUCE) {
        /* a task-graph allreduce node whose ranks disagree on the count */
        snprintf(what, sizeof what, "graph allreduce %zu B count", bytes);
        gbuf_t s, r;
        size_t n = me == 2 ? base.count / 2 : base.count;
        void *sb = gbuf_make(&s, n * sizeof(float)), *rb = gbuf_make(&r, n * sizeof(float));
        plx_graph_t g = NULL;
        plx_graph_node_t node;
        t0 = now();
        st = plx_graph_create(ctx, &g);
        if (st == PLX_SUCCESS) st = plx_graph_add_allreduce(g, sb, rb, n, PLX_FLOAT32, PLX_SUM, world, &node);
        if (st == PLX_SUCCESS) st = plx_graph_compile(g);
        if (st == PLX_SUCCESS) st = plx_graph_run(g);
        double dt = now() - t0;
        if (g) plx_graph_free(&g);
        checks++;
        if (!(gbuf_done(&s) & gbuf_done(&r))) {
            printf("mismatch_check: rank %d: FAIL %s: a guard byte changed\n", me, what);
            fails++;
        }
        judge(ctl, what, st, dt, 1);
        healthy(world, what);
    }
}

int main(int argc, char **argv)
{
    const char *cname = NULL, *sizes = "8,4194304";
    int graph = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--coll") && i + 1 < argc) cname = argv[++i];
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--graph")) graph = 1;
        else if (!strcmp(argv[i], "--big") && i + 1 < argc) big = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: mismatch_check --coll NAME [--sizes B,B...] [--graph] [--big B]\n");
            return 2;
        }
    }
    int coll = -1;
    for (int c = 0; cname && c < C_COUNT; c++)
        if (!strcmp(cname, names[c])) coll = c;
    if (coll < 0) {
        fprintf(stderr, "mismatch_check: --coll names no collective\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    plx_context_t ctx;
    plx_comm_t world, ctl;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "mismatch_check: plx_init: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &me);
    plx_comm_size(world, &nranks);
    if (nranks < 3 || nranks > 64) {
        fprintf(stderr, "mismatch_check: needs 3..64 ranks (got %d)\n", nranks);
        plx_finalize(&ctx);
        return 2;
    }
    st = plx_comm_dup(world, &ctl);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "mismatch_check: plx_comm_dup: %s\n", plx_strerror(st));
        return 1;
    }
    for (const char *p = sizes; *p;) {
        size_t b = strtoull(p, (char **)&p, 10);
        if (b >= 2 * sizeof(float)) run_size(ctx, world, ctl, coll, b, graph);
        if (coll == C_BARRIER) break;   /* no size of its own: once is enough */
        if (*p == ',') p++;
        else if (*p) break;
    }
    plx_comm_free(&ctl);
    /* the context saw mismatches: finalize must not wait for anybody */
    double t0 = now();
    st = plx_finalize(&ctx);
    printf("mismatch_check: rank %d: plx_finalize %s after %.3f s\n", me, plx_strerror(st), now() - t0);
    printf("mismatch_check: rank %d: %d checks, %d failures\n", me, checks, fails);
    return fails ? 1 : 0;
}
