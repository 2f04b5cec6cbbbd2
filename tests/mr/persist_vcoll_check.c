/*
 * tests/mr/persist_vcoll_check.c — the persistent v-collectives and prefix
 * reductions (plx_allgatherv_init, plx_alltoallv_init, plx_gatherv_init,
 * plx_scatterv_init, plx_reduce_scatterv_init, plx_scan_init,
 * plx_exscan_init), launched by plexusrun at 1-5 ranks.
 *
 *  1. each collective x datatypes (int32, float64; for the reductions also
 *     uint32 with a non-commutative user op, a 2x2 matrix product) x in
 *     place and not x roots {0, size-1} (rooted ones): counts drawn at
 *     random per case, the same on every rank, with zero blocks for some
 *     ranks (and whole cases of count 0) and displacements in scrambled
 *     order with gaps; one persistent request, started 3 times with new
 *     input each time and completed by plx_wait or a plx_test loop in turn,
 *     each run checked element by element against a serial reference,
 *     gaps and unwritten blocks included;
 *  2. bad arguments to every new init call are refused with
 *     PLX_ERR_INVALID_ARG and *req left untouched.
 * Final line `persist_vcoll_check: rank R size S: N checks, M failures`;
 * exit 1 on any failure.
 */
#include <plexus.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROG "persist_vcoll_check"
#include "check.h"

enum { C_ALLGATHERV, C_ALLTOALLV, C_GATHERV, C_SCATTERV, C_REDUCE_SCATTERV, C_SCAN, C_EXSCAN, C_N };
static const char *cname[C_N] = { "allgatherv", "alltoallv", "gatherv", "scatterv",
                                  "reduce_scatterv", "scan", "exscan" };
static int is_reduction(int c) { return c >= C_REDUCE_SCATTERV; }
static int is_rooted(int c) { return c == C_GATHERV || c == C_SCATTERV; }

#define SENTINEL 77777     /* in every element nothing may write */
#define MAXP 8

/* ---- values ----------------------------------------------------------------- */
static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Element i of rank r's input in run k of case s, by mode: V_SMALL small
 * integers (sums exact in any order), V_MAT a packed matrix (the user op),
 * V_WIDE nearly unique values (a block in the wrong place shows). */
enum { V_SMALL, V_MAT, V_WIDE };
static int64_t val(int s, int r, size_t i, int k, int mode)
{
    uint32_t h = hash((uint32_t)s * 2654435761U ^ hash((uint32_t)r * 40503U + (uint32_t)i * 7919U + (uint32_t)k));
    return mode == V_MAT ? (int64_t)h : mode == V_WIDE ? (int64_t)(h % 1000003) : (int64_t)(h % 19) - 9;
}
#define MV(s, r, i, k) val(s, r, i, k, V_WIDE)

static void put(plx_dtype_t dt, void *buf, size_t i, int64_t v)
{
    if (dt == PLX_INT32) ((int32_t *)buf)[i] = (int32_t)v;
    else if (dt == PLX_UINT32) ((uint32_t *)buf)[i] = (uint32_t)v;
    else ((double *)buf)[i] = (double)v;
}

static int64_t get(plx_dtype_t dt, const void *buf, size_t i)
{
    if (dt == PLX_INT32) return ((const int32_t *)buf)[i];
    if (dt == PLX_UINT32) return ((const uint32_t *)buf)[i];
    return (int64_t)((const double *)buf)[i];
}

/* inout = in x inout, 2x2 matrices of 8-bit entries packed in 32 bits */
static uint32_t mat_mul(uint32_t x, uint32_t y)
{
    uint32_t a = x & 255, b = x >> 8 & 255, c = x >> 16 & 255, d = x >> 24;
    uint32_t e = y & 255, f = y >> 8 & 255, g = y >> 16 & 255, h = y >> 24;
    return ((a * e + b * g) & 255) | ((a * f + b * h) & 255) << 8 | ((c * e + d * g) & 255) << 16 |
           ((c * f + d * h) & 255) << 24;
}

static void umat_fn(const void *in, void *inout, size_t n, plx_dtype_t dt, void *user)
{
    (void)dt;
    (void)user;
    const uint32_t *x = in;
    uint32_t *y = inout;
    for (size_t i = 0; i < n; i++) y[i] = mat_mul(x[i], y[i]);
}

static plx_op_t g_umat;

/* A datatype and op: how a case combines (op unused for the moving ones). */
typedef struct {
    plx_dtype_t dt;
    plx_op_t op;
    int mat;                  /* the user matrix op */
} kind_t;

static int64_t combine(const kind_t *t, int64_t a, int64_t b)
{
    if (t->mat) return mat_mul((uint32_t)a, (uint32_t)b);
    if (t->op == PLX_MAX) return a > b ? a : b;
    return a + b;
}

/* ranks lo..hi (in order) combined at element i */
static int64_t reduced(const kind_t *t, int s, int lo, int hi, size_t i, int k)
{
    int64_t acc = val(s, lo, i, k, t->mat);
    for (int r = lo + 1; r <= hi; r++) acc = combine(t, acc, val(s, r, i, k, t->mat));
    return acc;
}

/* ---- layouts ----------------------------------------------------------------- */
static uint32_t rng;
static size_t draw(size_t n) { rng = hash(rng + 0x9e3779b9U); return rng % n; }

/* A count: often small, sometimes 0, now and then large. */
static size_t draw_count(void)
{
    static const size_t pick[] = { 0, 0, 1, 3, 17, 64, 250, 1500 };
    return pick[draw(sizeof pick / sizeof pick[0])];
}

/* displs for counts[0..n-1]: blocks in a scrambled order with gaps; returns
 * the extent. */
static size_t layout(const size_t *counts, size_t *displs, int n)
{
    int order[MAXP];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)draw((size_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    size_t at = draw(3);
    for (int i = 0; i < n; i++) {
        displs[order[i]] = at;
        at += counts[order[i]] + draw(3);
    }
    return at;
}

/* ---- one case ------------------------------------------------------------------ */
typedef struct {
    int c, in_place, root, s;   /* s: the case number (seeds values) */
    kind_t t;
    int zero;                   /* every count 0 */
    /* layouts, the same on every rank: cnt[i][j] = what i sends j (alltoallv) */
    size_t cnt[MAXP][MAXP];
    size_t counts[MAXP], displs[MAXP];     /* this rank's view, as passed */
    size_t scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
    size_t n;                              /* scan, exscan */
    size_t sext, rext;                     /* buffer extents in elements */
} tcase_t;

static void make_case(tcase_t *tc)
{
    int p = size, r = rank;
    rng = (uint32_t)tc->s * 977U + 1;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) tc->cnt[i][j] = tc->zero ? 0 : draw_count();
    if (tc->c == C_ALLTOALLV && tc->in_place)   /* in place sends back what arrives */
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++) tc->cnt[i][j] = tc->cnt[j][i];
    tc->n = tc->zero ? 0 : draw_count();
    for (int j = 0; j < p; j++) tc->counts[j] = tc->cnt[0][j];
    switch (tc->c) {
    case C_ALLGATHERV:
    case C_GATHERV:
        tc->rext = layout(tc->counts, tc->displs, p);
        tc->sext = tc->counts[r];
        break;
    case C_SCATTERV:
        tc->sext = layout(tc->counts, tc->displs, p);
        tc->rext = tc->counts[r];
        break;
    case C_ALLTOALLV:
        for (int j = 0; j < p; j++) {
            tc->scounts[j] = tc->cnt[r][j];
            tc->rcounts[j] = tc->cnt[j][r];
        }
        tc->sext = layout(tc->scounts, tc->sdispls, p);
        tc->rext = layout(tc->rcounts, tc->rdispls, p);
        break;
    case C_REDUCE_SCATTERV:
        tc->sext = 0;
        for (int j = 0; j < p; j++) tc->sext += tc->counts[j];
        tc->rext = tc->in_place ? tc->sext : tc->counts[r];
        break;
    default:
        tc->sext = tc->rext = tc->n;
        break;
    }
}

static plx_status_t init_case(tcase_t *tc, void *sb, void *rb, plx_comm_t comm, plx_request_t *req)
{
    int r = rank, ip = tc->in_place, root_ip = ip && r == tc->root;
    plx_dtype_t dt = tc->t.dt;
    switch (tc->c) {
    case C_ALLGATHERV:
        return plx_allgatherv_init(ip ? PLX_IN_PLACE : sb, tc->counts[r], rb, tc->counts, tc->displs,
                                   dt, comm, req);
    case C_ALLTOALLV:
        return plx_alltoallv_init(ip ? PLX_IN_PLACE : sb, tc->scounts, tc->sdispls, rb, tc->rcounts,
                                  tc->rdispls, dt, comm, req);
    case C_GATHERV:
        return plx_gatherv_init(root_ip ? PLX_IN_PLACE : sb, tc->counts[r], rb, tc->counts,
                                tc->displs, dt, tc->root, comm, req);
    case C_SCATTERV:
        return plx_scatterv_init(sb, tc->counts, tc->displs, root_ip ? PLX_IN_PLACE : rb,
                                 tc->counts[r], dt, tc->root, comm, req);
    case C_REDUCE_SCATTERV:
        return plx_reduce_scatterv_init(ip ? PLX_IN_PLACE : sb, rb, tc->counts, dt, tc->t.op, comm,
                                        req);
    case C_SCAN:
        return plx_scan_init(ip ? PLX_IN_PLACE : sb, rb, tc->n, dt, tc->t.op, comm, req);
    default:
        return plx_exscan_init(ip ? PLX_IN_PLACE : sb, rb, tc->n, dt, tc->t.op, comm, req);
    }
}

/* Run k's input: sentinels everywhere, then what this rank contributes. */
static void fill(const tcase_t *tc, void *sb, void *rb, int k)
{
    int r = rank, s = tc->s, mat = tc->t.mat;
    plx_dtype_t dt = tc->t.dt;
    for (size_t i = 0; i < tc->sext; i++) put(dt, sb, i, SENTINEL);
    for (size_t i = 0; i < tc->rext; i++) put(dt, rb, i, SENTINEL);
    switch (tc->c) {
    case C_ALLGATHERV:
    case C_GATHERV: {
        int own_ip = tc->in_place && (tc->c == C_ALLGATHERV || r == tc->root);
        for (size_t i = 0; i < tc->counts[r]; i++) {
            if (own_ip) put(dt, rb, tc->displs[r] + i, MV(s, r, i, k));
            else put(dt, sb, i, MV(s, r, i, k));
        }
        break;
    }
    case C_SCATTERV:
        if (r == tc->root)
            for (int j = 0; j < size; j++)
                for (size_t i = 0; i < tc->counts[j]; i++) put(dt, sb, tc->displs[j] + i, MV(s, j, i, k));
        break;
    case C_ALLTOALLV:
        /* element i of what r sends j: MV(s, r, j * 4096 + i, k) */
        for (int j = 0; j < size; j++)
            for (size_t i = 0; i < tc->scounts[j]; i++) {
                if (tc->in_place) put(dt, rb, tc->rdispls[j] + i, MV(s, r, (size_t)j * 4096 + i, k));
                else put(dt, sb, tc->sdispls[j] + i, MV(s, r, (size_t)j * 4096 + i, k));
            }
        break;
    case C_REDUCE_SCATTERV: {
        size_t tot = 0;
        for (int j = 0; j < size; j++) tot += tc->counts[j];
        for (size_t i = 0; i < tot; i++) put(dt, tc->in_place ? rb : sb, i, val(s, r, i, k, mat));
        break;
    }
    default:
        for (size_t i = 0; i < tc->n; i++) put(dt, tc->in_place ? rb : sb, i, val(s, r, i, k, mat));
        break;
    }
}

/* Count the wrong elements of run k (the first few reported). */
static long verify(const tcase_t *tc, const void *sb, const void *rb, int k)
{
    int r = rank, s = tc->s, mat = tc->t.mat;
    plx_dtype_t dt = tc->t.dt;
    long bad = 0;
    /* expected: SENTINEL where nothing may write, INT64_MIN where anything may be */
    int64_t *want = malloc((tc->rext + 1) * sizeof *want);
    for (size_t i = 0; i < tc->rext; i++) want[i] = SENTINEL;
    switch (tc->c) {
    case C_ALLGATHERV:
    case C_GATHERV:
        if (tc->c == C_GATHERV && r != tc->root) break;   /* recvbuf untouched off root */
        for (int j = 0; j < size; j++)
            for (size_t i = 0; i < tc->counts[j]; i++) want[tc->displs[j] + i] = MV(s, j, i, k);
        break;
    case C_SCATTERV:
        if (!(tc->in_place && r == tc->root))
            for (size_t i = 0; i < tc->counts[r]; i++) want[i] = MV(s, r, i, k);
        break;
    case C_ALLTOALLV:
        for (int j = 0; j < size; j++)
            for (size_t i = 0; i < tc->rcounts[j]; i++)
                want[tc->rdispls[j] + i] = MV(s, j, (size_t)r * 4096 + i, k);
        break;
    case C_REDUCE_SCATTERV: {
        size_t off = 0;
        for (int j = 0; j < r; j++) off += tc->counts[j];
        for (size_t i = 0; i < tc->counts[r]; i++) want[i] = reduced(&tc->t, s, 0, size - 1, off + i, k);
        /* in place the rest of recvbuf is unspecified after the call */
        if (tc->in_place)
            for (size_t i = tc->counts[r]; i < tc->rext; i++) want[i] = INT64_MIN;
        break;
    }
    case C_SCAN:
        for (size_t i = 0; i < tc->n; i++) want[i] = reduced(&tc->t, s, 0, r, i, k);
        break;
    default:   /* exscan: rank 0 not written (in place it keeps its input) */
        for (size_t i = 0; i < tc->n; i++)
            want[i] = r ? reduced(&tc->t, s, 0, r - 1, i, k) : tc->in_place ? val(s, 0, i, k, mat) : SENTINEL;
        break;
    }
    for (size_t i = 0; i < tc->rext; i++) {
        if (want[i] == INT64_MIN) continue;
        int64_t got = get(dt, rb, i), w = want[i];
        if (dt == PLX_UINT32) w = (uint32_t)w;
        if (got != w && bad++ < 3)
            fprintf(stderr, "persist_vcoll_check rank %d: %s case %d run %d: recvbuf[%zu] = %lld, want %lld\n",
                    rank, cname[tc->c], s, k, i, (long long)got, (long long)w);
    }
    /* the send side is only read (scatterv in place at root: its blocks stay) */
    if (!tc->in_place && tc->c == C_SCATTERV && r != tc->root)
        for (size_t i = 0; i < tc->sext; i++)
            if (get(dt, sb, i) != SENTINEL && bad++ < 3)
                fprintf(stderr, "persist_vcoll_check rank %d: %s case %d: sendbuf written\n", rank,
                        cname[tc->c], s);
    free(want);
    return bad;
}

static plx_status_t complete(plx_request_t *req, int k)
{
    if (k % 2 == 0) return plx_wait(req);
    int done = 0;
    plx_status_t st;
    while ((st = plx_test(req, &done)) == PLX_SUCCESS && !done) {}
    return st;
}

static void run_case(tcase_t *tc, plx_comm_t comm)
{
    make_case(tc);
    void *sb = malloc(tc->sext * 8 + 8), *rb = malloc(tc->rext * 8 + 8);
    plx_request_t req = NULL;
    plx_status_t st = init_case(tc, sb, rb, comm, &req);
    CHECK(st == PLX_SUCCESS && req, "%s case %d init: %s", cname[tc->c], tc->s, plx_strerror(st));
    if (st != PLX_SUCCESS || !req) goto out;
    for (int k = 0; k < 3; k++) {
        fill(tc, sb, rb, k);
        st = plx_start(&req);
        CHECK(st == PLX_SUCCESS, "%s case %d start %d: %s", cname[tc->c], tc->s, k, plx_strerror(st));
        if (st != PLX_SUCCESS) break;
        st = complete(&req, k);
        CHECK(st == PLX_SUCCESS, "%s case %d run %d: %s", cname[tc->c], tc->s, k, plx_strerror(st));
        CHECK(req != NULL, "%s case %d: the request is gone after run %d", cname[tc->c], tc->s, k);
        long bad = verify(tc, sb, rb, k);
        CHECK(bad == 0, "%s case %d (%s, %s, root %d, in place %d) run %d: %ld wrong elements",
              cname[tc->c], tc->s, plx_dtype_name(tc->t.dt), tc->t.mat ? "user_matmul" : plx_op_name(tc->t.op),
              tc->root, tc->in_place, k, bad);
    }
    CHECK(plx_request_free(&req) == PLX_SUCCESS && req == NULL, "%s case %d: free", cname[tc->c], tc->s);
out:
    free(sb);
    free(rb);
}

static void sweep(plx_comm_t comm)
{
    const kind_t moving[] = { { PLX_INT32, PLX_SUM, 0 }, { PLX_FLOAT64, PLX_SUM, 0 } };
    const kind_t reducing[] = { { PLX_INT32, PLX_SUM, 0 }, { PLX_FLOAT64, PLX_MAX, 0 },
                                { PLX_UINT32, 0, 1 } };
    int s = 0;
    for (int c = 0; c < C_N; c++) {
        const kind_t *kinds = is_reduction(c) ? reducing : moving;
        int nk = is_reduction(c) ? 3 : 2;
        for (int ki = 0; ki < nk; ki++)
            for (int ip = 0; ip < 2; ip++)
                for (int ri = 0; ri < (is_rooted(c) ? 2 : 1); ri++)
                    for (int zero = 0; zero < 2; zero++) {
                        /* the count-0 case once per collective */
                        if (zero && (ki || ip || ri)) continue;
                        tcase_t *tc = calloc(1, sizeof *tc);
                        tc->c = c;
                        tc->t = kinds[ki];
                        if (tc->t.mat) tc->t.op = g_umat;
                        tc->in_place = ip;
                        tc->root = ri ? size - 1 : 0;
                        tc->zero = zero;
                        tc->s = ++s;
                        run_case(tc, comm);
                        free(tc);
                    }
    }
}

/* ---- bad arguments --------------------------------------------------------------- */
static void expect_bad(plx_status_t st, plx_request_t req, const char *what)
{
    CHECK(st == PLX_ERR_INVALID_ARG, "%s: got %s, want PLX_ERR_INVALID_ARG", what, plx_strerror(st));
    CHECK(req == NULL, "%s: *req was written", what);
}

static void bad_args(plx_comm_t comm)
{
    int p = size, r = rank;
    size_t counts[MAXP], displs[MAXP], over[MAXP];
    for (int i = 0; i < p; i++) {
        counts[i] = 2;
        displs[i] = 2 * (size_t)i;
        over[i] = 0;            /* every block at 0: they overlap when p > 1 */
    }
    int32_t sb[2 * MAXP] = { 0 }, rb[2 * MAXP];   /* sb only read (never: all refused) */
    plx_request_t req = NULL;
    const size_t neg = (size_t)-3;   /* a negative count cast to size_t */

    expect_bad(plx_allgatherv_init(sb, 2, rb, counts, displs, PLX_INT32, comm, NULL), req,
               "allgatherv_init NULL req");
    expect_bad(plx_allgatherv_init(sb, 3, rb, counts, displs, PLX_INT32, comm, &req), req,
               "allgatherv_init sendcount != recvcounts[rank]");
    expect_bad(plx_allgatherv_init(sb, 2, rb, NULL, displs, PLX_INT32, comm, &req), req,
               "allgatherv_init NULL recvcounts");
    if (p > 1)
        expect_bad(plx_allgatherv_init(sb, 2, rb, counts, over, PLX_INT32, comm, &req), req,
                   "allgatherv_init overlapping blocks");
    expect_bad(plx_alltoallv_init(sb, counts, NULL, rb, counts, displs, PLX_INT32, comm, &req), req,
               "alltoallv_init NULL sdispls");
    counts[r] = neg;
    expect_bad(plx_alltoallv_init(PLX_IN_PLACE, NULL, NULL, rb, counts, displs, PLX_INT32, comm, &req),
               req, "alltoallv_init negative recvcount");
    counts[r] = 2;
    expect_bad(plx_gatherv_init(sb, 2, rb, counts, displs, PLX_INT32, p, comm, &req), req,
               "gatherv_init root = size");
    expect_bad(plx_gatherv_init(sb, 2, rb, counts, displs, PLX_INT32, -1, comm, &req), req,
               "gatherv_init root -1");
    if (p > 1 && r != 0)
        expect_bad(plx_gatherv_init(PLX_IN_PLACE, 2, rb, counts, displs, PLX_INT32, 0, comm, &req), req,
                   "gatherv_init in place off root");
    if (r == 0)
        expect_bad(plx_scatterv_init(sb, counts, displs, rb, 1, PLX_INT32, 0, comm, &req), req,
                   "scatterv_init recvcount != sendcounts[root]");
    expect_bad(plx_scatterv_init(sb, counts, displs, rb, neg, PLX_INT32, 0, comm, &req), req,
               "scatterv_init negative recvcount");
    expect_bad(plx_reduce_scatterv_init(sb, rb, counts, PLX_INT32, (plx_op_t)999, comm, &req), req,
               "reduce_scatterv_init unknown op");
    expect_bad(plx_reduce_scatterv_init(sb, NULL, counts, PLX_INT32, PLX_SUM, comm, &req), req,
               "reduce_scatterv_init NULL recvbuf");
    expect_bad(plx_scan_init(sb, rb, neg, PLX_INT32, PLX_SUM, comm, &req), req,
               "scan_init negative count");
    expect_bad(plx_scan_init(sb, rb, 2, (plx_dtype_t)99, PLX_SUM, comm, &req), req,
               "scan_init unknown datatype");
    expect_bad(plx_exscan_init(sb, rb, 2, PLX_INT32, PLX_SUM, NULL, &req), req,
               "exscan_init NULL communicator");
    expect_bad(plx_exscan_init(sb, rb, 2, PLX_FLOAT64, PLX_BAND, comm, &req), req,
               "exscan_init op not defined on the type");
}

int main(void)
{
    plx_context_t ctx;
    plx_comm_t world;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    if (size > MAXP) {
        fprintf(stderr, "persist_vcoll_check: at most %d ranks\n", MAXP);
        return 1;
    }
    if (plx_op_create(umat_fn, 0, NULL, &g_umat) != PLX_SUCCESS) {
        fprintf(stderr, "persist_vcoll_check: plx_op_create failed\n");
        return 1;
    }
    sweep(world);
    bad_args(world);
    plx_op_free(&g_umat);
    printf("persist_vcoll_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks,
           failures);
    plx_finalize(&ctx);
    return failures ? 1 : 0;
}
