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
 *   count  rank 2 passes half the count (v-forms: see below)
 *   more   (alltoallv, gatherv, scatterv) a sender passes twice the count
 *          its receiver expects
 *   dtype  rank 2 passes float64 (twice the bytes) with the same count
 *   root   rank 3 passes root 1, the others root 0     (rooted collectives)
 *   op     rank 1 reduces with max, the others sum     (reductions)
 *   userop rank 1 reduces with a user op (a commutative float sum), the
 *          others with PLX_SUM                        (reductions)
 *   coll   rank 1 calls another collective of the same count
 *   order  ranks 0 and 1 call NAME then the other collective, ranks 2 and 3
 *          the other one first (one communicator, collectives out of order)
 * The v-forms' count case: allgatherv, reduce_scatterv: rank 2's count
 * array says rank 0 has half (the totals differ: the signatures do);
 * alltoallv: rank 0 sends rank 1 half what rank 1 expects from it;
 * gatherv: rank 2 sends half what the root expects; scatterv: the root
 * sends rank 2 half what it expects.  Those three agree on every signature
 * (their counts differ by design), so the receiver sees a message of the
 * wrong size: that must be PLX_ERR_MISMATCH too, never TRUNCATE/INTERNAL.
 * --graph: the count case once more as a task-graph allreduce node.
 * --big B: each agreeing allreduce after a mismatch also runs at B bytes
 * (a large one must still work too, e.g. on node-local single-copy phases).
 *
 * `mismatch_check --cross`: ranks that disagree so that they take
 * DIFFERENT paths (shared slots, single-copy direct, a schedule), with the
 * default selector table: an allreduce whose count on rank 2 is on the
 * other side of the slots limit (slots vs direct, slots vs schedule,
 * direct vs schedule), another collective on another path on rank 1 (an
 * alltoall vs slots, a scatter schedule vs direct), and two blocking collectives of
 * two paths called in opposite orders by the two halves of the ranks (each
 * half waits in its first call; NOT covered: started without waiting, such
 * calls complete correctly, as each path matches by its own numbers, and
 * pass unnoticed unless a wait reaches its slow path).  Each runs as the first call of a fresh
 * communicator (after such a mismatch the paths' windows are out of step,
 * so it is freed, not reused), and every rank must end with
 * PLX_ERR_MISMATCH (lib/coll/call_record.c: the call records compared by
 * the slow path of every wait), well before PLX_TIMEOUT.  Each case checks
 * with plx_query_algorithm that its two sides do take different paths.
 * Every buffer has guard bytes on both sides, checked after every call.
 *
 * The rules (checked on rank 0 from every rank's results, gathered on a
 * separate communicator):
 *   - every rank's status is PLX_SUCCESS or PLX_ERR_MISMATCH (--cross:
 *     PLX_ERR_MISMATCH) -- not a timeout: nobody may wait to PLX_TIMEOUT
 *     once a rank has seen the mismatch; not INTERNAL/TRUNCATE;
 *   - at least one rank has PLX_ERR_MISMATCH (no disagreement passes as
 *     success on every rank);
 *   - no guard byte changed.
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
       C_GATHER, C_SCATTER, C_ALLGATHERV, C_REDUCE_SCATTERV, C_ALLTOALLV, C_GATHERV, C_SCATTERV,
       C_SCAN, C_EXSCAN, C_COUNT };
static const char *const names[C_COUNT] = { "barrier", "bcast", "reduce", "allreduce", "allgather",
                                            "reduce_scatter", "alltoall", "gather", "scatter",
                                            "allgatherv", "reduce_scatterv", "alltoallv", "gatherv",
                                            "scatterv", "scan", "exscan" };
#define MAXR 64

/* One call; the v-forms' per-rank counts are sc[] (what this rank sends to
 * / contributes for each rank) and rc[] (what it expects from / for each);
 * count is their common value unless a case changes one entry. */
typedef struct call {
    int coll;
    size_t count;
    plx_dtype_t dt;
    plx_op_t op;
    int root;
    size_t sc[MAXR], rc[MAXR];
} call_t;

static plx_op_t user_sum;   /* a user op: float32 sum */

static void user_sum_fn(const void *in, void *inout, size_t count, plx_dtype_t dt, void *user)
{
    (void)user;
    if (dt == PLX_FLOAT32)
        for (size_t i = 0; i < count; i++) ((float *)inout)[i] += ((const float *)in)[i];
    else if (dt == PLX_FLOAT64)
        for (size_t i = 0; i < count; i++) ((double *)inout)[i] += ((const double *)in)[i];
}

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
static int has_root(int c)
{
    return c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_SCATTER || c == C_GATHERV ||
           c == C_SCATTERV;
}
static int has_op(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER || c == C_REDUCE_SCATTERV ||
           c == C_SCAN || c == C_EXSCAN;
}
static size_t sum(const size_t *v)
{
    size_t t = 0;
    for (int r = 0; r < nranks; r++) t += v[r];
    return t;
}
/* displacements: packed in rank order */
static void displs(const size_t *cnt, size_t *d)
{
    size_t o = 0;
    for (int r = 0; r < nranks; r++) {
        d[r] = o;
        o += cnt[r];
    }
}

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
    case C_SCATTER: return plx_iscatter(sb, rb, c->count, c->dt, c->root, comm, rq);
    case C_SCAN: return plx_iscan(sb, rb, c->count, c->dt, c->op, comm, rq);
    case C_EXSCAN: return plx_iexscan(sb, rb, c->count, c->dt, c->op, comm, rq);
    default: break;
    }
    /* the v-forms: the arrays must live as long as the request (static:
     * one v-form in flight at a time here) */
    static size_t sd[MAXR], rd[MAXR];
    displs(c->sc, sd);
    displs(c->rc, rd);
    switch (c->coll) {
    case C_ALLGATHERV: return plx_iallgatherv(sb, c->sc[me], rb, c->rc, rd, c->dt, comm, rq);
    case C_REDUCE_SCATTERV: return plx_ireduce_scatterv(sb, rb, c->rc, c->dt, c->op, comm, rq);
    case C_ALLTOALLV: return plx_ialltoallv(sb, c->sc, sd, rb, c->rc, rd, c->dt, comm, rq);
    case C_GATHERV: return plx_igatherv(sb, c->sc[me], rb, c->rc, rd, c->dt, c->root, comm, rq);
    default: return plx_iscatterv(sb, c->sc, sd, rb, c->rc[me], c->dt, c->root, comm, rq);
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
    switch (c->coll) {   /* v-forms: exactly what this rank's arrays say */
    case C_ALLGATHERV: sl = c->sc[me] * es; rl = sum(c->rc) * es; break;
    case C_REDUCE_SCATTERV: sl = sum(c->rc) * es; rl = c->rc[me] * es; break;
    case C_ALLTOALLV: sl = sum(c->sc) * es; rl = sum(c->rc) * es; break;
    case C_GATHERV: sl = c->sc[me] * es; rl = me == c->root ? sum(c->rc) * es : 0; break;
    case C_SCATTERV: sl = me == c->root ? sum(c->sc) * es : 0; rl = c->rc[me] * es; break;
    default: break;
    }
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
 * ranks disagreed (2: every rank must return PLX_ERR_MISMATCH).  Returns the number of failures found (on rank 0). */
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
        } else if (all[r].status != PLX_SUCCESS || expect_mismatch == 2) {
            /* 2: every rank must have seen it */
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
static int path_of(int coll, const char *algo)
{
    int v = coll == C_ALLGATHERV || coll == C_ALLTOALLV || coll == C_GATHERV || coll == C_SCATTERV ||
            coll == C_REDUCE_SCATTERV;
    if (!strcmp(algo, "shm_slots")) return 0;
    if (!strcmp(algo, "direct")) return v ? 0 : 1;   /* the v-forms' direct runs on the slots */
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
        if (path_of(cand[i], a) == path_of(c, algo)) return cand[i];
    }
    return -1;
}

static void run_size(plx_context_t ctx, plx_comm_t world, plx_comm_t ctl, int coll, size_t bytes,
                     int graph)
{
    char what[160];
    call_t base = { coll, bytes / sizeof(float), PLX_FLOAT32, PLX_SUM, 0, { 0 }, { 0 } };
    for (int r = 0; r < nranks; r++) base.sc[r] = base.rc[r] = base.count;
    const char *algo = "?";
    if (plx_query_algorithm(world, names[coll], coll == C_BARRIER ? 0 : bytes, &algo, NULL) != PLX_SUCCESS)
        algo = "?";
    int partner = other_coll(world, coll, coll == C_BARRIER ? 0 : bytes, algo);

    snprintf(what, sizeof what, "%s/%s %zu B agree", names[coll], algo, bytes);
    double t0 = now();
    plx_status_t st = run_call(&base, world, what);
    judge(ctl, what, st, now() - t0, 0);

    enum { K_COUNT, K_MORE, K_DTYPE, K_ROOT, K_OP, K_USEROP, K_COLL, K_ORDER, K_N };
    static const char *const kind[K_N] = { "count", "more", "dtype", "root", "op", "userop", "coll", "order" };
    int sized_v = coll == C_ALLTOALLV || coll == C_GATHERV || coll == C_SCATTERV;
    size_t half = base.count / 2;
    for (int k = 0; k < K_N; k++) {
        if (coll == C_BARRIER && k < K_COLL) continue;
        if (k == K_MORE && !sized_v) continue;
        if (k == K_ROOT && !has_root(coll)) continue;
        if ((k == K_OP || k == K_USEROP) && !has_op(coll)) continue;
        if (k >= K_COLL && partner < 0) {
            if (me == 0)
                printf("mismatch_check: %s/%s %zu B: coll and order cases skipped: no other collective "
                       "runs on the same path at this size\n", names[coll], algo, bytes);
            break;
        }
        call_t c = base;
        if (k == K_COUNT || k == K_MORE) {
            size_t n = k == K_COUNT ? half : 2 * base.count;
            switch (coll) {
            case C_ALLGATHERV:
            case C_REDUCE_SCATTERV:     /* rank 2 thinks rank 0 has n: the totals differ */
                if (me == 2) c.rc[0] = n;
                break;
            case C_ALLTOALLV:           /* rank 0 sends rank 1 n; rank 1 expects count */
                if (me == 0) c.sc[1] = n;
                break;
            case C_GATHERV:             /* rank 2 sends n; the root expects count */
                if (me == 2) c.sc[2] = n;
                break;
            case C_SCATTERV:            /* the root sends rank 2 n; it expects count */
                if (me == 0) c.sc[2] = n;
                break;
            default:
                if (me == 2) c.count = n;
            }
        }
        if (k == K_DTYPE && me == 2) c.dt = PLX_FLOAT64;
        if (k == K_ROOT && me == 3) c.root = 1;
        if (k == K_OP && me == 1) c.op = PLX_MAX;
        if (k == K_USEROP && me == 1) c.op = user_sum;
        if (k == K_COLL && me == 1) c.coll = partner;
        snprintf(what, sizeof what, "%s/%s %zu B %s", names[coll], algo, bytes, kind[k]);
        t0 = now();
        if (k != K_ORDER) {
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

/* ---- --cross: the two sides of a disagreement take different paths ---------- */
static const char *path_name(int p) { return p == 0 ? "shm_slots" : p == 1 ? "direct" : "a schedule"; }

static int path_of_call(plx_comm_t comm, const call_t *c)
{
    const char *a = "?";
    size_t b = c->coll == C_BARRIER ? 0 : c->count * plx_dtype_size(c->dt);
    if (plx_query_algorithm(comm, names[c->coll], b, &a, NULL) != PLX_SUCCESS) return -1;
    return path_of(c->coll, a);
}

/* One case: every rank calls mine on a fresh communicator dup'ed from ctl
 * but rank odd_rank (order: the upper half of the ranks) calls other; with
 * order, the other half would call the other one next. */
static void cross_case(plx_comm_t ctl, const char *what, const call_t *mine, const call_t *other,
                       int odd_rank, int order)
{
    plx_comm_t comm = NULL;
    plx_status_t st = plx_comm_dup(ctl, &comm);
    checks++;
    if (st != PLX_SUCCESS) {
        printf("mismatch_check: rank %d: FAIL %s: plx_comm_dup: %s\n", me, what, plx_strerror(st));
        fails++;
        return;
    }
    int pa = path_of_call(comm, mine), pb = path_of_call(comm, other);
    if (me == 0)
        printf("mismatch_check: %s: paths %s vs %s\n", what, path_name(pa), path_name(pb));
    checks++;
    if (pa == pb || pa < 0 || pb < 0) {
        /* the selector table changed: this case no longer tests what it says */
        printf("mismatch_check: rank %d: FAIL %s: both sides run on %s\n", me, what, path_name(pa));
        fails++;
    }
    int odd = order ? me >= nranks / 2 : me == odd_rank;
    double t0 = now();
    /* order: blocking calls, so each half waits in its first call for the
     * other half (started without waiting, two calls on two paths complete
     * correctly in any order: each path matches by its own numbers) */
    st = run_call(odd ? other : mine, comm, what);
    judge(ctl, what, st, now() - t0, 2);
    /* the paths' windows of comm are out of step now: not reused */
    plx_comm_free(&comm);
}

static void run_cross(plx_comm_t ctl)
{
    const size_t small = 8, big = 4u << 20, mid = 48u << 10;   /* slots / direct / schedule */
    call_t a = { C_ALLREDUCE, small / 4, PLX_FLOAT32, PLX_SUM, 0, { 0 }, { 0 } }, b = a;
    b.count = big / 4;
    cross_case(ctl, "cross allreduce 8 B vs 4 MiB on rank 2", &a, &b, 2, 0);
    b.count = mid / 4;
    cross_case(ctl, "cross allreduce 8 B vs 48 KiB on rank 2", &a, &b, 2, 0);
    a.count = big / 4;
    cross_case(ctl, "cross allreduce 4 MiB vs 48 KiB on rank 2", &a, &b, 2, 0);
    a.count = small / 4;
    b = a;
    b.coll = C_ALLTOALL;
    cross_case(ctl, "cross allreduce vs alltoall 8 B on rank 1", &a, &b, 1, 0);
    /* allreduce of 128 KiB runs direct, a scatter of 32 KiB blocks a
     * schedule (scatter runs direct from 256 KiB blocks at 2 ranks, 64 KiB
     * at 4; at 4 ranks allreduce of 64 KiB runs the ring) */
    a.count = (128u << 10) / 4;
    b.count = (32u << 10) / 4;
    b.coll = C_SCATTER;
    cross_case(ctl, "cross allreduce 128 KiB vs scatter 32 KiB on rank 1", &a, &b, 1, 0);
    a.count = b.count = small / 4;
    b.coll = C_ALLTOALL;
    cross_case(ctl, "cross order allreduce+alltoall 8 B", &a, &b, -1, 1);
}

int main(int argc, char **argv)
{
    const char *cname = NULL, *sizes = "8,4194304";
    int graph = 0, cross = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--coll") && i + 1 < argc) cname = argv[++i];
        else if (!strcmp(argv[i], "--cross")) cross = 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--graph")) graph = 1;
        else if (!strcmp(argv[i], "--big") && i + 1 < argc) big = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: mismatch_check --coll NAME [--sizes B,B...] [--graph] [--big B] | --cross\n");
            return 2;
        }
    }
    int coll = -1;
    for (int c = 0; cname && c < C_COUNT; c++)
        if (!strcmp(cname, names[c])) coll = c;
    if (coll < 0 && !cross) {
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
    if (plx_op_create(user_sum_fn, 1, NULL, &user_sum) != PLX_SUCCESS) {
        fprintf(stderr, "mismatch_check: plx_op_create failed\n");
        return 1;
    }
    if (cross) run_cross(ctl);
    for (const char *p = sizes; !cross && *p;) {
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
