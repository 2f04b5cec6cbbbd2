/*
 * tests/mr/persist_check.c — persistent collectives and send/recv
 * (plx_*_init, plx_start, plx_startall), launched by plexusrun at 1-5 ranks.
 *
 *  1. every collective x {int32, float32} x counts {0, 1, 7, 1000, 70000} x
 *     ops {sum, max, min} (reductions) x roots {0, size-1} (rooted) x in
 *     place and not: one persistent request, started 3 times with new input
 *     each time (a persistent request reads its buffers at every run), and
 *     a plain allreduce on the same communicator between runs (sequence
 *     numbers of starts and plain calls interleave); each run checked
 *     element by element against a serial reference; the runs are
 *     completed in rotation by plx_wait, a plx_test loop, plx_waitall and
 *     plx_waitany, and must leave the request allocated and inactive;
 *  2. several persistent collectives (allreduce, bcast, allgather, barrier)
 *     on a dup'ed communicator started together by plx_startall and
 *     completed by plx_waitall, 50 times;
 *  3. plx_send_init / plx_recv_init around a ring, 20 runs;
 *  4. the MPI-4 rules: starting an active request, a non-persistent one,
 *     duplicates in startall: PLX_ERR_INVALID_ARG; waiting or testing an
 *     inactive request returns at once; waitany over inactive entries
 *     gives index -1; plx_request_free of an active request (its run still
 *     completes: the next collective matches); bad arguments to the init
 *     calls (counts that are negative numbers cast to size_t, bad roots,
 *     NULL req, unknown datatype) are refused with *req untouched.
 * Final line `persist_check: rank R size S: N checks, M failures`; exit 1 on
 * any failure.  --peer-dies: see peer_dies() below.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <plexus.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_PROG "persist_check"
#include "check.h"

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL,
       C_GATHER, C_SCATTER, C_N };
static const char *cname[C_N] = { "barrier", "bcast", "reduce", "allreduce", "allgather",
                                  "reduce_scatter", "alltoall", "gather", "scatter" };

/* Input element i of rank r in run k: a small integer, exact in float32
 * sums and in every order. */
static int val(int r, size_t i, int k) { return (int)((r * 7 + (int)(i % 1009) * 3 + k * 5) % 7) - 3; }

static void put(plx_dtype_t dt, void *buf, size_t i, int v)
{
    if (dt == PLX_INT32) ((int32_t *)buf)[i] = v;
    else ((float *)buf)[i] = (float)v;
}
static int get(plx_dtype_t dt, const void *buf, size_t i)
{
    return dt == PLX_INT32 ? ((const int32_t *)buf)[i] : (int)((const float *)buf)[i];
}

static int combine(plx_op_t op, int a, int b)
{
    if (op == PLX_MAX) return a > b ? a : b;
    if (op == PLX_MIN) return a < b ? a : b;
    return a + b;
}
/* Reduction of val(r, i, k) over every rank. */
static int reduced(plx_op_t op, size_t i, int k)
{
    int acc = val(0, i, k);
    for (int r = 1; r < size; r++) acc = combine(op, acc, val(r, i, k));
    return acc;
}

/* Complete *req by path (0 wait, 1 test loop, 2 waitall, 3 waitany); the
 * request must stay allocated (persistent). */
static plx_status_t complete(plx_request_t *req, int path)
{
    plx_status_t st = PLX_SUCCESS;
    plx_request_t keep = *req;
    if (path == 0) {
        st = plx_wait(req);
    } else if (path == 1) {
        int done = 0;
        while (!done && st == PLX_SUCCESS) st = plx_test(req, &done);
    } else if (path == 2) {
        plx_request_t arr[2] = { NULL, *req };
        plx_status_t sts[2];
        st = plx_waitall(2, arr, sts);
        *req = arr[1];
    } else {
        plx_request_t arr[2] = { *req, NULL };
        int idx = -7;
        st = plx_waitany(2, arr, &idx);
        CHECK(idx == 0, "waitany index %d, expected 0", idx);
        *req = arr[0];
    }
    CHECK(*req == keep, "a completed persistent request changed its handle (path %d)", path);
    return st;
}

typedef struct tcase {
    int coll;
    plx_dtype_t dt;
    size_t n;
    plx_op_t op;
    int root, inplace;
} tcase_t;

/* Fill this rank's input for run k (into the send buffer, or where the
 * in-place rule of the collective takes it from). */
static void fill(const tcase_t *t, void *sb, void *rb, int k)
{
    size_t n = t->n, P = (size_t)size;
    switch (t->coll) {
    case C_BCAST:
        for (size_t i = 0; i < n; i++) put(t->dt, rb, i, rank == t->root ? val(t->root, i, k) : 99);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        for (size_t i = 0; i < n; i++) put(t->dt, t->inplace && (t->coll == C_ALLREDUCE || rank == t->root) ? rb : sb, i, val(rank, i, k));
        break;
    case C_ALLGATHER:
    case C_GATHER:
        if (t->inplace && (t->coll == C_ALLGATHER || rank == t->root))
            for (size_t i = 0; i < n; i++) put(t->dt, rb, (size_t)rank * n + i, val(rank, i, k));
        else
            for (size_t i = 0; i < n; i++) put(t->dt, sb, i, val(rank, i, k));
        break;
    case C_REDUCE_SCATTER:
    case C_ALLTOALL:
        for (size_t i = 0; i < P * n; i++) put(t->dt, t->inplace ? rb : sb, i, val(rank, i, k));
        break;
    case C_SCATTER:
        if (rank == t->root)
            for (size_t i = 0; i < P * n; i++) put(t->dt, sb, i, val(rank, i, k));
        break;
    default:
        break;
    }
}

/* Check run k's result element by element; returns the wrong count. */
static long verify(const tcase_t *t, const void *rb, int k)
{
    size_t n = t->n, P = (size_t)size;
    long bad = 0;
    long first = -1;
    int fgot = 0, fexp = 0;
#define EXPECT(idx, v)                                                   \
    do {                                                                 \
        int g_ = get(t->dt, rb, (idx)), e_ = (v);                        \
        if (g_ != e_ && bad++ == 0) {                                    \
            first = (long)(idx);                                         \
            fgot = g_;                                                   \
            fexp = e_;                                                   \
        }                                                                \
    } while (0)
    switch (t->coll) {
    case C_BCAST:
        for (size_t i = 0; i < n; i++) EXPECT(i, val(t->root, i, k));
        break;
    case C_REDUCE:
        if (rank != t->root) break;
        /* fall through */
    case C_ALLREDUCE:
        for (size_t i = 0; i < n; i++) EXPECT(i, reduced(t->op, i, k));
        break;
    case C_ALLGATHER:
        for (size_t r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++) EXPECT(r * n + i, val((int)r, i, k));
        break;
    case C_GATHER:
        if (rank != t->root) break;
        for (size_t r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++) EXPECT(r * n + i, val((int)r, i, k));
        break;
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++) EXPECT(i, reduced(t->op, (size_t)rank * n + i, k));
        break;
    case C_ALLTOALL:
        for (size_t s = 0; s < P; s++)
            for (size_t i = 0; i < n; i++) EXPECT(s * n + i, val((int)s, (size_t)rank * n + i, k));
        break;
    case C_SCATTER:
        if (rank == t->root && t->inplace) {
            /* the root's block stays in sendbuf: nothing is written */
            break;
        }
        for (size_t i = 0; i < n; i++) EXPECT(i, val(t->root, (size_t)rank * n + i, k));
        break;
    default:
        break;
    }
#undef EXPECT
    if (bad)
        fprintf(stderr, "persist_check rank %d: %s %s n=%zu op=%d root=%d inplace=%d run %d: %ld wrong, "
                "first at %ld (got %d, expected %d)\n", rank, cname[t->coll],
                t->dt == PLX_INT32 ? "int32" : "float32", n, (int)t->op, t->root, t->inplace, k, bad,
                first, fgot, fexp);
    return bad;
}

static plx_status_t init_case(const tcase_t *t, void *sb, void *rb, plx_comm_t comm,
                              plx_request_t *req)
{
    const void *s = t->inplace ? PLX_IN_PLACE : sb;
    switch (t->coll) {
    case C_BARRIER: return plx_barrier_init(comm, req);
    case C_BCAST: return plx_bcast_init(rb, t->n, t->dt, t->root, comm, req);
    case C_REDUCE:
        return plx_reduce_init(t->inplace && rank == t->root ? PLX_IN_PLACE : sb, rb, t->n, t->dt,
                               t->op, t->root, comm, req);
    case C_ALLREDUCE: return plx_allreduce_init(s, rb, t->n, t->dt, t->op, comm, req);
    case C_ALLGATHER: return plx_allgather_init(s, rb, t->n, t->dt, comm, req);
    case C_REDUCE_SCATTER: return plx_reduce_scatter_init(s, rb, t->n, t->dt, t->op, comm, req);
    case C_ALLTOALL: return plx_alltoall_init(s, rb, t->n, t->dt, comm, req);
    case C_GATHER:
        return plx_gather_init(t->inplace && rank == t->root ? PLX_IN_PLACE : sb, rb, t->n, t->dt,
                               t->root, comm, req);
    case C_SCATTER:
        return plx_scatter_init(sb, t->inplace && rank == t->root ? PLX_IN_PLACE : rb, t->n, t->dt,
                                t->root, comm, req);
    default: return PLX_ERR_INTERNAL;
    }
}

static int has_op(int c) { return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER; }
static int has_root(int c) { return c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_SCATTER; }
static int has_inplace(int c) { return c != C_BARRIER && c != C_BCAST; }

/* Part 1: every collective, persistent, three runs each. */
static void sweep(plx_comm_t comm, void *sb, void *rb)
{
    static const size_t counts[] = { 0, 1, 7, 1000, 70000 };
    static const plx_op_t ops[] = { PLX_SUM, PLX_MAX, PLX_MIN };
    static const plx_dtype_t dts[] = { PLX_INT32, PLX_FLOAT32 };
    int path = 0;
    long cases = 0;
    for (int c = 0; c < C_N; c++)
        for (int d = 0; d < 2; d++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int o = 0; o < (has_op(c) ? 3 : 1); o++)
                    for (int ro = 0; ro < (has_root(c) && size > 1 ? 2 : 1); ro++)
                        for (int ip = 0; ip < (has_inplace(c) ? 2 : 1); ip++) {
                            if (c == C_BARRIER && (d || ci)) continue;
                            /* large counts: one op, both dtypes, bounded time at 5 ranks */
                            if (counts[ci] > 1000 && o) continue;
                            tcase_t t = { c, dts[d], counts[ci], ops[o], ro ? size - 1 : 0, ip };
                            plx_request_t req = NULL;
                            plx_status_t st = init_case(&t, sb, rb, comm, &req);
                            CHECK(st == PLX_SUCCESS && req, "%s init: %s", cname[c], plx_strerror(st));
                            if (st != PLX_SUCCESS) continue;
                            cases++;
                            for (int k = 0; k < 3; k++) {
                                fill(&t, sb, rb, k + (int)ci);
                                st = plx_start(&req);
                                CHECK(st == PLX_SUCCESS, "%s start run %d: %s", cname[c], k, plx_strerror(st));
                                if (st != PLX_SUCCESS) break;
                                st = complete(&req, path++ % 4);
                                CHECK(st == PLX_SUCCESS, "%s run %d: %s", cname[c], k, plx_strerror(st));
                                CHECK(verify(&t, rb, k + (int)ci) == 0, "%s run %d result", cname[c], k);
                                if (k == 1) {
                                    /* a plain collective between two starts */
                                    int32_t x = rank + 1, y = 0;
                                    st = plx_allreduce(&x, &y, 1, PLX_INT32, PLX_SUM, comm);
                                    CHECK(st == PLX_SUCCESS && y == size * (size + 1) / 2,
                                          "plain allreduce between starts: %s, %d", plx_strerror(st), y);
                                }
                            }
                            /* inactive: a wait returns at once, the handle stays */
                            plx_request_t keep = req;
                            CHECK(plx_wait(&req) == PLX_SUCCESS && req == keep, "wait on inactive");
                            CHECK(plx_request_free(&req) == PLX_SUCCESS && req == NULL, "free");
                        }
    if (rank == 0) printf("persist_check: %ld persistent cases, 3 runs each\n", cases);
}

/* Part 2: several persistent requests started and completed together. */
static void together(plx_comm_t world)
{
    plx_comm_t comm;
    CHECK(plx_comm_dup(world, &comm) == PLX_SUCCESS, "dup");
    enum { N = 300 };
    int32_t ar[N], bc[N], *ag = malloc((size_t)size * N * sizeof(int32_t));
    plx_request_t reqs[4];
    CHECK(plx_allreduce_init(PLX_IN_PLACE, ar, N, PLX_INT32, PLX_SUM, comm, &reqs[0]) == PLX_SUCCESS, "init ar");
    CHECK(plx_bcast_init(bc, N, PLX_INT32, size - 1, comm, &reqs[1]) == PLX_SUCCESS, "init bc");
    CHECK(plx_allgather_init(PLX_IN_PLACE, ag, N, PLX_INT32, comm, &reqs[2]) == PLX_SUCCESS, "init ag");
    CHECK(plx_barrier_init(comm, &reqs[3]) == PLX_SUCCESS, "init barrier");
    for (int k = 0; k < 50; k++) {
        for (int i = 0; i < N; i++) {
            ar[i] = val(rank, (size_t)i, k);
            bc[i] = rank == size - 1 ? val(size - 1, (size_t)i, k + 1) : -99;
            ag[rank * N + i] = val(rank, (size_t)i, k + 2);
        }
        CHECK(plx_startall(4, reqs) == PLX_SUCCESS, "startall %d", k);
        plx_status_t sts[4] = { PLX_ERR_INTERNAL, PLX_ERR_INTERNAL, PLX_ERR_INTERNAL, PLX_ERR_INTERNAL };
        CHECK(plx_waitall(4, reqs, sts) == PLX_SUCCESS, "waitall %d", k);
        long bad = 0;
        for (int i = 0; i < N; i++) {
            bad += ar[i] != reduced(PLX_SUM, (size_t)i, k);
            bad += bc[i] != val(size - 1, (size_t)i, k + 1);
            for (int r = 0; r < size; r++) bad += ag[r * N + i] != val(r, (size_t)i, k + 2);
        }
        CHECK(bad == 0 && reqs[0] && reqs[3], "startall run %d: %ld wrong elements", k, bad);
    }
    for (int i = 0; i < 4; i++) plx_request_free(&reqs[i]);
    free(ag);
    plx_comm_free(&comm);
}

/* Part 3: persistent send/recv around a ring. */
static void ring(plx_comm_t comm)
{
    enum { N = 5000 };
    int32_t *out = malloc(N * sizeof(int32_t)), *in = malloc(N * sizeof(int32_t));
    size_t got = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    plx_request_t rq[2];
    CHECK(plx_recv_init(in, N, PLX_INT32, left, 7, comm, &got, &rq[0]) == PLX_SUCCESS, "recv_init");
    CHECK(plx_send_init(out, N, PLX_INT32, right, 7, comm, &rq[1]) == PLX_SUCCESS, "send_init");
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < N; i++) out[i] = val(rank, (size_t)i, k);
        got = 0;
        CHECK(plx_startall(2, rq) == PLX_SUCCESS, "ring startall %d", k);
        CHECK(plx_waitall(2, rq, NULL) == PLX_SUCCESS, "ring waitall %d", k);
        long bad = 0;
        for (int i = 0; i < N; i++) bad += in[i] != val(left, (size_t)i, k);
        CHECK(bad == 0 && got == N, "ring run %d: %ld wrong, received %zu", k, bad, got);
    }
    plx_request_free(&rq[0]);
    plx_request_free(&rq[1]);
    free(out);
    free(in);
}

/* Part 4: the rules and the argument checks. */
static void rules(plx_comm_t comm)
{
    int32_t x[4] = { 1, 2, 3, 4 }, y[4 * 8];
    plx_request_t req = NULL, plain = NULL;
    CHECK(plx_allreduce_init(x, y, 4, PLX_INT32, PLX_SUM, comm, &req) == PLX_SUCCESS, "init");
    /* inactive: test says done, waitany ignores it */
    int done = 0, idx = 7;
    CHECK(plx_test(&req, &done) == PLX_SUCCESS && done == 1 && req, "test inactive");
    plx_request_t arr[2] = { req, NULL };
    CHECK(plx_waitany(2, arr, &idx) == PLX_SUCCESS && idx == -1 && arr[0] == req, "waitany inactive: %d", idx);
    CHECK(plx_start(&req) == PLX_SUCCESS, "start");
    CHECK(plx_start(&req) == PLX_ERR_INVALID_ARG, "start of an active request accepted");
    plx_request_t two[2] = { req, req };
    CHECK(plx_startall(2, two) == PLX_ERR_INVALID_ARG, "startall of an active request accepted");
    CHECK(plx_wait(&req) == PLX_SUCCESS && y[0] == size && y[3] == 4 * size, "run result %d", y[0]);
    two[1] = req;
    CHECK(plx_startall(2, two) == PLX_ERR_INVALID_ARG, "startall with duplicates accepted");
    CHECK(plx_startall(-1, two) == PLX_ERR_INVALID_ARG, "startall n=-1 accepted");
    CHECK(plx_start(NULL) == PLX_ERR_INVALID_ARG, "start(NULL) accepted");
    plx_request_t nul = NULL;
    CHECK(plx_start(&nul) == PLX_ERR_INVALID_ARG, "start of a NULL request accepted");
    CHECK(plx_iallreduce(x, y, 4, PLX_INT32, PLX_SUM, comm, &plain) == PLX_SUCCESS, "iallreduce");
    CHECK(plx_start(&plain) == PLX_ERR_INVALID_ARG, "start of a non-persistent request accepted");
    CHECK(plx_wait(&plain) == PLX_SUCCESS, "wait plain");
    /* free while active: the run still completes, the next collective matches */
    CHECK(plx_start(&req) == PLX_SUCCESS, "start 2");
    CHECK(plx_request_free(&req) == PLX_SUCCESS && req == NULL, "free active");
    int32_t a = 1, b = 0;
    CHECK(plx_allreduce(&a, &b, 1, PLX_INT32, PLX_SUM, comm) == PLX_SUCCESS && b == size,
          "allreduce after freeing an active persistent request: %d", b);

    /* bad arguments: refused, *req untouched */
    plx_request_t mark = (plx_request_t)(uintptr_t)0x5eed, r = mark;
    CHECK(plx_allreduce_init(x, y, (size_t)-1, PLX_INT32, PLX_SUM, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "allreduce_init count -1");
    CHECK(plx_allgather_init(x, y, (size_t)-5, PLX_INT32, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "allgather_init count -5");
    CHECK(plx_bcast_init(x, 4, PLX_INT32, size, comm, &r) == PLX_ERR_INVALID_ARG && r == mark, "bcast_init root");
    CHECK(plx_reduce_init(x, y, 4, PLX_INT32, PLX_SUM, -1, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "reduce_init root -1");
    CHECK(plx_gather_init(x, y, 4, (plx_dtype_t)99, 0, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "gather_init dtype");
    CHECK(plx_scatter_init(x, NULL, 4, PLX_INT32, 0, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "scatter_init NULL recvbuf");
    CHECK(plx_reduce_scatter_init(x, y, 1, PLX_FLOAT32, PLX_BXOR, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "reduce_scatter_init bxor on float");
    CHECK(plx_alltoall_init(x, y, 1, PLX_INT32, NULL, &r) == PLX_ERR_INVALID_ARG && r == mark, "alltoall_init comm");
    CHECK(plx_barrier_init(comm, NULL) == PLX_ERR_INVALID_ARG, "barrier_init NULL req");
    CHECK(plx_send_init(x, 4, PLX_INT32, size, 0, comm, &r) == PLX_ERR_INVALID_ARG && r == mark, "send_init peer");
    CHECK(plx_recv_init(y, 4, PLX_INT32, 0, -2, comm, NULL, &r) == PLX_ERR_INVALID_ARG && r == mark, "recv_init tag");
    CHECK(plx_send_init(x, (size_t)-1, PLX_INT32, 0, 0, comm, &r) == PLX_ERR_INVALID_ARG && r == mark,
          "send_init count -1");
    /* started on a freed communicator */
    plx_comm_t d;
    CHECK(plx_comm_dup(comm, &d) == PLX_SUCCESS, "dup");
    CHECK(plx_barrier_init(d, &req) == PLX_SUCCESS, "barrier_init on dup");
    plx_comm_free(&d);
    CHECK(plx_start(&req) == PLX_ERR_INVALID_ARG, "start on a freed communicator accepted");
    plx_request_free(&req);
}

/* --peer-dies (2 ranks): after one good run of two persistent allreduces
 * (8 B: node-local slots; 4 MiB: a schedule), rank 1 leaves with status 0
 * (so plexusrun lets rank 0 go on); rank 0's next runs must end with
 * PLX_ERR_PEER_FAILED, not hang. */
static int peer_dies(plx_comm_t world)
{
    enum { BIG = 1 << 20 };
    float small[2] = { 1, 1 }, *big = calloc(BIG, sizeof(float));
    plx_request_t rq[2];
    CHECK(plx_allreduce_init(PLX_IN_PLACE, small, 2, PLX_FLOAT32, PLX_SUM, world, &rq[0]) == PLX_SUCCESS, "init small");
    CHECK(plx_allreduce_init(PLX_IN_PLACE, big, BIG, PLX_FLOAT32, PLX_SUM, world, &rq[1]) == PLX_SUCCESS, "init big");
    CHECK(plx_startall(2, rq) == PLX_SUCCESS && plx_waitall(2, rq, NULL) == PLX_SUCCESS, "good run");
    CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier");
    if (rank == 1) _exit(0);
    for (int i = 0; i < 2; i++) {
        plx_status_t st = plx_start(&rq[i]);
        if (st == PLX_SUCCESS) st = plx_wait(&rq[i]);
        CHECK(st == PLX_ERR_PEER_FAILED, "persistent allreduce %d after the peer died: %s", i, plx_strerror(st));
    }
    printf("persist_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
    fflush(stdout);
    _exit(failures ? 1 : 0);   /* no finalize: its barrier would wait for the dead rank */
}

int main(int argc, char **argv)
{
    plx_context_t ctx;
    plx_comm_t world;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    if (argc > 1 && !strcmp(argv[1], "--peer-dies")) return peer_dies(world);
    size_t cap = (size_t)size * 70000 * 4 + 64;
    void *sb = malloc(cap), *rb = malloc(cap);
    sweep(world, sb, rb);
    together(world);
    ring(world);
    rules(world);
    /* a persistent request left for plx_finalize to free */
    plx_request_t left;
    CHECK(plx_barrier_init(world, &left) == PLX_SUCCESS, "left for finalize");
    free(sb);
    free(rb);
    printf("persist_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
    plx_finalize(&ctx);
    return failures ? 1 : 0;
}
