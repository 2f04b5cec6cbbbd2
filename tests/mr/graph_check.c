/*
 * tests/mr/graph_check.c — the task-graph executor (plx_graph_*), through
 * the public API, at any number of ranks.  Sections (all by default, or one
 * with --only NAME):
 *   valid     argument and validation errors: NULL/unknown nodes, self and
 *             cyclic dependencies (compile names the cycle), bad collective
 *             arguments, freed communicators, adding after compile,
 *             launching uncompiled / running graphs, freeing a running
 *             graph, a bad PLX_GRAPH_POLICY; the empty graph;
 *   colls     every collective, send and recv as a graph node (prepare ->
 *             communicate -> check chains, all in one graph), under each
 *             policy, results checked at every launch; beside them a
 *             compute node that sleeps 2 ms (the large collectives then
 *             move in short steps: node_direct.c, "Short steps beside
 *             compute");
 *   many      1,000 launches of one compiled graph (run, launch + wait,
 *             launch + test loop in turn), results checked every time;
 *   comms     two graphs on two communicators launched at once; one graph
 *             spanning two communicators; collectives of one communicator
 *             that become ready in a different order on different ranks
 *             (the compiled matching order keeps them matched);
 *   fail      a failing compute node: PLX_ERR_COMPUTE_FAILED on that rank,
 *             later compute skipped, no hang on any rank, and the graph and
 *             its communicator work again at the next launch;
 *   prio      priorities order the compute nodes waiting for a worker
 *             (strict order checked only with PLX_GRAPH_THREADS=1);
 *   sched     the scheduling test that cannot pass by luck (the failing shape
 *             of a FIFO executor): after X, an allreduce A that is slow (the last
 *             rank's X sleeps D) and an independent compute node R become
 *             ready; R must start before A completes (timestamps recorded by
 *             the nodes and by plx_graph_node_times) under comm_first and
 *             compute_first, while FIFO must serialise them (R starts after A
 *             ends), --reps times each (default 100), launch + wait and
 *             plx_graph_run in turn.  Load-tolerant without losing the point:
 *             a scheduler that holds R behind A (what FIFO does) misses in
 *             every launch, while on a loaded machine a correct one can miss
 *             some when the OS runs R's worker late (4-5 of 20 at load 35
 *             under the sanitizer); so up to half the slow launches may
 *             miss, each miss printed with its times, and FIFO's
 *             serialisation stays strict;
 *   timeout   (only with --only timeout and PLX_TIMEOUT=1) a compute node
 *             that outlives PLX_TIMEOUT: the launch ends with PLX_ERR_TIMEOUT,
 *             the graph refuses launches until the node returns, then runs.
 * Final line `graph_check: rank R: N checks, M failures`; exit 1 on failure.
 */
#include <plexus.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size, checks, failures;
static plx_context_t ctx;
static plx_comm_t world;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        checks++;                                                             \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "graph_check rank %d line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)
#define OK(call) CHECK((call) == PLX_SUCCESS, "%s failed", #call)
#define BAD(call) CHECK((call) == PLX_ERR_INVALID_ARG, "%s should be PLX_ERR_INVALID_ARG", #call)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int32_t val(int r, size_t i, int k) { return (int32_t)((r * 31 + (int)(i % 100003) * 7 + k * 13) % 101) - 50; }

static int nop(void *arg) { (void)arg; return 0; }
static int doze(void *arg) { (void)arg; sleep_s(2e-3); return 0; }

/* ======================================================================== valid */
static atomic_int gate;
static int wait_gate(void *arg)
{
    (void)arg;
    while (!atomic_load(&gate)) sleep_s(1e-4);
    return 0;
}

static void section_valid(void)
{
    plx_graph_t g = NULL;
    plx_graph_node_t a, b, c, d;
    int32_t buf[4] = { 0 }, out[4];

    BAD(plx_graph_create(NULL, &g));
    BAD(plx_graph_create(ctx, NULL));
    OK(plx_graph_create(ctx, &g));
    BAD(plx_graph_add_compute(g, NULL, NULL, &a));
    BAD(plx_graph_add_compute(g, nop, NULL, NULL));
    BAD(plx_graph_add_compute(NULL, nop, NULL, &a));
    OK(plx_graph_add_compute(g, nop, NULL, &a));
    CHECK(a == 0, "first node is 0, got %d", a);
    OK(plx_graph_add_compute(g, nop, NULL, &b));
    CHECK(b == 1, "second node is 1, got %d", b);
    /* the public calls' checks */
    BAD(plx_graph_add_allreduce(g, buf, NULL, 4, PLX_INT32, PLX_SUM, world, &c));
    BAD(plx_graph_add_allreduce(g, buf, out, 4, PLX_FLOAT32, PLX_BXOR, world, &c));
    BAD(plx_graph_add_bcast(g, buf, 4, PLX_INT32, size, world, &c));
    BAD(plx_graph_add_reduce(g, buf, out, 4, PLX_INT32, PLX_SUM, -1, world, &c));
    BAD(plx_graph_add_send(g, buf, 4, PLX_INT32, size, 0, world, &c));
    BAD(plx_graph_add_recv(g, buf, 4, PLX_INT32, 0, -3, world, NULL, &c));
    BAD(plx_graph_add_allreduce(g, buf, out, 4, PLX_INT32, PLX_SUM, NULL, &c));
    BAD(plx_graph_add_barrier(g, world, NULL));
    BAD(plx_graph_add_allgather(g, buf, out, 4, (plx_dtype_t)99, world, &c));
    /* dependencies */
    BAD(plx_graph_depend(g, a, 7));
    BAD(plx_graph_depend(g, -1, b));
    BAD(plx_graph_depend(g, a, a));
    BAD(plx_graph_set_priority(g, 9, 1));
    BAD(plx_graph_set_policy(g, (plx_graph_policy_t)7));
    OK(plx_graph_add_compute(g, nop, NULL, &c));
    OK(plx_graph_add_compute(g, nop, NULL, &d));
    OK(plx_graph_depend(g, a, b));
    OK(plx_graph_depend(g, b, c));
    OK(plx_graph_depend(g, c, a));        /* a cycle a -> b -> c -> a */
    OK(plx_graph_depend(g, a, d));
    plx_request_t req = NULL;
    BAD(plx_graph_launch(g, &req));       /* not compiled */
    BAD(plx_graph_compile(g));            /* the cycle */
    BAD(plx_graph_run(g));                /* still not compiled */
    OK(plx_graph_free(&g));
    CHECK(g == NULL, "free sets NULL");
    BAD(plx_graph_free(&g));
    BAD(plx_graph_free(NULL));

    /* a communicator freed between add and compile, and add on a freed one */
    plx_comm_t dup;
    OK(plx_comm_dup(world, &dup));
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_allreduce(g, buf, out, 4, PLX_INT32, PLX_SUM, dup, &a));
    plx_comm_t stale = dup;
    OK(plx_comm_free(&dup));
    BAD(plx_graph_compile(g));
    BAD(plx_graph_add_barrier(g, stale, &b));
    OK(plx_graph_free(&g));

    /* after compile: no more nodes; launch while running; free while running */
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, wait_gate, NULL, &a));
    OK(plx_graph_add_compute(g, nop, NULL, &b));
    OK(plx_graph_depend(g, a, b));
    double t0, t1;
    BAD(plx_graph_node_times(g, a, &t0, &t1));     /* timing off */
    OK(plx_graph_set_timing(g, 1));
    OK(plx_graph_compile(g));
    OK(plx_graph_compile(g));                      /* again: nothing to do */
    BAD(plx_graph_add_compute(g, nop, NULL, &c));
    BAD(plx_graph_depend(g, b, a));
    BAD(plx_graph_set_priority(g, a, 3));
    BAD(plx_graph_launch(g, NULL));
    atomic_store(&gate, 0);
    OK(plx_graph_launch(g, &req));
    plx_request_t req2 = NULL;
    BAD(plx_graph_launch(g, &req2));
    BAD(plx_graph_run(g));
    BAD(plx_graph_free(&g));
    BAD(plx_graph_set_policy(g, PLX_GRAPH_FIFO));
    BAD(plx_graph_set_timing(g, 0));
    int done = 1;
    OK(plx_test(&req, &done));
    CHECK(!done, "a gated launch cannot be done");
    atomic_store(&gate, 1);
    OK(plx_wait(&req));
    OK(plx_graph_node_times(g, b, &t0, &t1));
    CHECK(t0 > 0 && t1 >= t0, "node times %g %g", t0, t1);
    double a0, a1;
    OK(plx_graph_node_times(g, a, &a0, &a1));
    CHECK(a1 <= t0, "b started (%f) before a ended (%f)", t0, a1);
    BAD(plx_graph_node_times(g, 5, &t0, &t1));
    OK(plx_graph_free(&g));

    /* bad PLX_GRAPH_POLICY */
    setenv("PLX_GRAPH_POLICY", "lifo", 1);
    BAD(plx_graph_create(ctx, &g));
    setenv("PLX_GRAPH_POLICY", "fifo", 1);
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_free(&g));
    unsetenv("PLX_GRAPH_POLICY");

    /* the empty graph, and a graph of communication only */
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_compile(g));
    OK(plx_graph_run(g));
    OK(plx_graph_launch(g, &req));
    OK(plx_wait(&req));
    OK(plx_graph_free(&g));
    int32_t one = rank + 1, sum = 0;
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_allreduce(g, &one, &sum, 1, PLX_INT32, PLX_SUM, world, &a));
    OK(plx_graph_add_barrier(g, world, &b));
    OK(plx_graph_depend(g, a, b));
    OK(plx_graph_compile(g));
    for (int i = 0; i < 3; i++) {
        sum = 0;
        OK(plx_graph_run(g));
        CHECK(sum == size * (size + 1) / 2, "comm-only graph: sum %d", sum);
    }
    OK(plx_graph_free(&g));
}

/* ======================================================================== colls */
enum { J_BARRIER, J_BCAST, J_REDUCE, J_ALLREDUCE, J_ALLREDUCE_BIG, J_ALLGATHER, J_REDUCE_SCATTER,
       J_ALLTOALL, J_GATHER, J_SCATTER, J_SENDRECV, J_COUNT };
static const char *jname[J_COUNT] = { "barrier", "bcast", "reduce", "allreduce", "allreduce(big, in place)",
                                      "allgather", "reduce_scatter", "alltoall", "gather", "scatter",
                                      "send/recv" };

typedef struct job {
    int kind, root;
    size_t n;
    int32_t *s, *r;
    double *big;
    size_t received;
    const int *k;              /* the launch number */
    atomic_int bad, checked;
} job_t;

static int job_prep(void *arg)
{
    job_t *j = arg;
    int k = *j->k;
    size_t n = j->n, all = n * (size_t)size;
    switch (j->kind) {
    case J_BCAST:
        for (size_t i = 0; i < n; i++) j->r[i] = rank == j->root ? val(rank, i, k) : -999;
        break;
    case J_ALLREDUCE_BIG:
        for (size_t i = 0; i < n; i++) j->big[i] = (double)val(rank, i, k);
        break;
    case J_REDUCE_SCATTER:
    case J_ALLTOALL:
    case J_SCATTER:
        for (size_t i = 0; i < all; i++) j->s[i] = val(rank, i, k);
        for (size_t i = 0; i < all; i++) j->r[i] = -999;
        break;
    default:
        for (size_t i = 0; i < n; i++) j->s[i] = val(rank, i, k);
        for (size_t i = 0; i < all; i++) j->r[i] = -999;
        break;
    }
    return 0;
}

static int job_check(void *arg)
{
    job_t *j = arg;
    int k = *j->k, bad = 0;
    size_t n = j->n;
    switch (j->kind) {
    case J_BCAST:
        for (size_t i = 0; i < n; i++) bad += j->r[i] != val(j->root, i, k);
        break;
    case J_REDUCE:
    case J_ALLREDUCE:
        if (j->kind == J_REDUCE && rank != j->root) break;
        for (size_t i = 0; i < n; i++) {
            int32_t ref = 0;
            for (int q = 0; q < size; q++) ref += val(q, i, k);
            bad += j->r[i] != ref;
        }
        break;
    case J_ALLREDUCE_BIG:
        for (size_t i = 0; i < n; i++) {
            int32_t ref = val(0, i, k);
            for (int q = 1; q < size; q++) ref = val(q, i, k) > ref ? val(q, i, k) : ref;
            bad += j->big[i] != (double)ref;
        }
        break;
    case J_ALLGATHER:
    case J_GATHER:
        if (j->kind == J_GATHER && rank != j->root) break;
        for (int q = 0; q < size; q++)
            for (size_t i = 0; i < n; i++) bad += j->r[(size_t)q * n + i] != val(q, i, k);
        break;
    case J_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++) {
            int32_t ref = 0;
            for (int q = 0; q < size; q++) ref += val(q, (size_t)rank * n + i, k);
            bad += j->r[i] != ref;
        }
        break;
    case J_ALLTOALL:
        for (int q = 0; q < size; q++)
            for (size_t i = 0; i < n; i++) bad += j->r[(size_t)q * n + i] != val(q, (size_t)rank * n + i, k);
        break;
    case J_SCATTER:
        for (size_t i = 0; i < n; i++) bad += j->r[i] != val(j->root, (size_t)rank * n + i, k);
        break;
    case J_SENDRECV: {
        int from = (rank - 1 + size) % size;
        for (size_t i = 0; i < n; i++) bad += j->r[i] != val(from, i, k);
        bad += j->received != n;
        break;
    }
    default:
        break;
    }
    atomic_fetch_add(&j->bad, bad);
    atomic_fetch_add(&j->checked, 1);
    return 0;
}

static void section_colls(void)
{
    static int k;
    enum { NJ = J_COUNT + 8 };
    job_t *jobs = calloc(NJ, sizeof *jobs);
    int nj = 0;
    plx_graph_t g;
    OK(plx_graph_create(ctx, &g));
    for (int kind = 0; kind < J_COUNT; kind++) {
        /* bcast from every root (up to 4) */
        int nroots = kind == J_BCAST ? (size < 4 ? size : 4) : 1;
        for (int ro = 0; ro < nroots; ro++) {
            job_t *j = &jobs[nj++];
            j->kind = kind;
            j->k = &k;
            j->n = kind == J_ALLREDUCE_BIG ? 300000 : 1003;
            j->root = kind == J_BCAST ? ro : kind == J_REDUCE ? size - 1 : kind == J_SCATTER ? (size > 1) : 0;
            size_t all = j->n * (size_t)size;
            j->s = malloc(all * sizeof(int32_t));
            j->r = malloc(all * sizeof(int32_t));
            if (kind == J_ALLREDUCE_BIG) j->big = malloc(j->n * sizeof(double));
            plx_graph_node_t p, c, x, c2 = -1;
            OK(plx_graph_add_compute(g, job_prep, j, &p));
            switch (kind) {
            case J_BARRIER: OK(plx_graph_add_barrier(g, world, &c)); break;
            case J_BCAST: OK(plx_graph_add_bcast(g, j->r, j->n, PLX_INT32, j->root, world, &c)); break;
            case J_REDUCE: OK(plx_graph_add_reduce(g, j->s, j->r, j->n, PLX_INT32, PLX_SUM, j->root, world, &c)); break;
            case J_ALLREDUCE: OK(plx_graph_add_allreduce(g, j->s, j->r, j->n, PLX_INT32, PLX_SUM, world, &c)); break;
            case J_ALLREDUCE_BIG:
                OK(plx_graph_add_allreduce(g, PLX_IN_PLACE, j->big, j->n, PLX_FLOAT64, PLX_MAX, world, &c));
                break;
            case J_ALLGATHER: OK(plx_graph_add_allgather(g, j->s, j->r, j->n, PLX_INT32, world, &c)); break;
            case J_REDUCE_SCATTER:
                OK(plx_graph_add_reduce_scatter(g, j->s, j->r, j->n, PLX_INT32, PLX_SUM, world, &c));
                break;
            case J_ALLTOALL: OK(plx_graph_add_alltoall(g, j->s, j->r, j->n, PLX_INT32, world, &c)); break;
            case J_GATHER: OK(plx_graph_add_gather(g, j->s, j->r, j->n, PLX_INT32, j->root, world, &c)); break;
            case J_SCATTER: OK(plx_graph_add_scatter(g, j->s, j->r, j->n, PLX_INT32, j->root, world, &c)); break;
            default: /* J_SENDRECV: a ring; the receive is its own node */
                OK(plx_graph_add_send(g, j->s, j->n, PLX_INT32, (rank + 1) % size, 7, world, &c));
                OK(plx_graph_add_recv(g, j->r, j->n, PLX_INT32, (rank - 1 + size) % size, 7, world,
                                      &j->received, &c2));
                OK(plx_graph_depend(g, p, c2));
                break;
            }
            OK(plx_graph_add_compute(g, job_check, j, &x));
            OK(plx_graph_depend(g, p, c));
            OK(plx_graph_depend(g, c, x));
            if (c2 >= 0) OK(plx_graph_depend(g, c2, x));
        }
    }
    plx_graph_node_t dz;
    OK(plx_graph_add_compute(g, doze, NULL, &dz));   /* depends on nothing: runs beside the others */
    OK(plx_graph_compile(g));
    const plx_graph_policy_t pol[3] = { PLX_GRAPH_COMM_FIRST, PLX_GRAPH_COMPUTE_FIRST, PLX_GRAPH_FIFO };
    int launches = 0;
    for (int p = 0; p < 3; p++) {
        OK(plx_graph_set_policy(g, pol[p]));
        for (int it = 0; it < 4; it++, k++, launches++) {
            if (it % 2) {
                OK(plx_graph_run(g));
            } else {
                plx_request_t req;
                OK(plx_graph_launch(g, &req));
                OK(plx_wait(&req));
            }
        }
    }
    for (int i = 0; i < nj; i++) {
        CHECK(atomic_load(&jobs[i].bad) == 0, "%s (root %d): %d wrong elements over %d launches",
              jname[jobs[i].kind], jobs[i].root, atomic_load(&jobs[i].bad), launches);
        CHECK(atomic_load(&jobs[i].checked) == launches, "%s: checked %d times, launched %d",
              jname[jobs[i].kind], atomic_load(&jobs[i].checked), launches);
        free(jobs[i].s);
        free(jobs[i].r);
        free(jobs[i].big);
    }
    OK(plx_graph_free(&g));
    free(jobs);
}

/* ======================================================================== many */
typedef struct small {
    int k;
    int64_t a[64], ar[64];
    int32_t b[257];
    atomic_int bad, runs;
} small_t;

static int small_prep(void *arg)
{
    small_t *s = arg;
    for (int i = 0; i < 64; i++) s->a[i] = (int64_t)val(rank, (size_t)i, s->k) * 1000003 + rank;
    for (int i = 0; i < 257; i++) s->b[i] = rank == s->k % size ? val(rank, (size_t)i, s->k) : 0;
    return 0;
}

static int small_check(void *arg)
{
    small_t *s = arg;
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        int64_t ref = 0;
        for (int q = 0; q < size; q++) ref += (int64_t)val(q, (size_t)i, s->k) * 1000003 + q;
        bad += s->ar[i] != ref;
    }
    atomic_fetch_add(&s->bad, bad);
    atomic_fetch_add(&s->runs, 1);
    return 0;
}

static int small_check_b(void *arg)
{
    small_t *s = arg;
    int bad = 0, root = s->k % size;
    (void)root;
    for (int i = 0; i < 257; i++) bad += s->b[i] != val(0, (size_t)i, s->k);
    atomic_fetch_add(&s->bad, bad);
    return 0;
}

static void section_many(void)
{
    small_t *s = calloc(1, sizeof *s);
    plx_graph_t g;
    plx_graph_node_t p, ar, c, bc, cb;
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, small_prep, s, &p));
    OK(plx_graph_add_allreduce(g, s->a, s->ar, 64, PLX_INT64, PLX_SUM, world, &ar));
    OK(plx_graph_add_compute(g, small_check, s, &c));
    OK(plx_graph_add_bcast(g, s->b, 257, PLX_INT32, 0, world, &bc));
    OK(plx_graph_add_compute(g, small_check_b, s, &cb));
    OK(plx_graph_depend(g, p, ar));
    OK(plx_graph_depend(g, ar, c));
    OK(plx_graph_depend(g, p, bc));
    OK(plx_graph_depend(g, bc, cb));
    OK(plx_graph_compile(g));
    const int N = 1000;
    int st_bad = 0;
    double t0 = now();
    for (int it = 0; it < N; it++) {
        s->k = it * (size > 1 ? size : 1);      /* bcast root is 0: k % size == 0 keeps prep simple */
        plx_status_t st;
        if (it % 3 == 0) {
            st = plx_graph_run(g);
        } else {
            plx_request_t req;
            st = plx_graph_launch(g, &req);
            if (st == PLX_SUCCESS && it % 3 == 1) {
                st = plx_wait(&req);
            } else if (st == PLX_SUCCESS) {
                int done = 0;
                while (!done && st == PLX_SUCCESS) {
                    st = plx_test(&req, &done);
                    if (!done) sched_yield();   /* a test loop must let the other ranks run (2 cores) */
                }
            }
        }
        st_bad += st != PLX_SUCCESS;
    }
    double dt = now() - t0;
    CHECK(st_bad == 0, "%d of %d launches failed", st_bad, N);
    CHECK(atomic_load(&s->runs) == N, "check node ran %d times in %d launches", atomic_load(&s->runs), N);
    CHECK(atomic_load(&s->bad) == 0, "%d wrong elements over %d launches", atomic_load(&s->bad), N);
    if (rank == 0) printf("graph_check: many: %d launches in %.3f s (%.1f us each)\n", N, dt, dt / N * 1e6);
    OK(plx_graph_free(&g));
    free(s);
}

/* ======================================================================== comms */
typedef struct two {
    int k;
    int32_t a[100], ar[100];
    int32_t g[32], gr[32 * 64];
    atomic_int bad;
} two_t;

static int two_prep(void *arg)
{
    two_t *t = arg;
    for (int i = 0; i < 100; i++) t->a[i] = val(rank, (size_t)i, t->k);
    for (int i = 0; i < 32; i++) t->g[i] = val(rank, (size_t)i + 500, t->k);
    return 0;
}

static int two_check_a(void *arg)
{
    two_t *t = arg;
    int bad = 0;
    for (int i = 0; i < 100; i++) {
        int32_t ref = 0;
        for (int q = 0; q < size; q++) ref += val(q, (size_t)i, t->k);
        bad += t->ar[i] != ref;
    }
    atomic_fetch_add(&t->bad, bad);
    return 0;
}

static int two_check_g(void *arg)
{
    two_t *t = arg;
    int bad = 0;
    for (int q = 0; q < size; q++)
        for (int i = 0; i < 32; i++) bad += t->gr[q * 32 + i] != val(q, (size_t)i + 500, t->k);
    atomic_fetch_add(&t->bad, bad);
    return 0;
}

/* branch delays: even ranks late on branch A, odd ranks late on branch B */
typedef struct late { int parity; } late_t;
static int late_node(void *arg)
{
    late_t *l = arg;
    if (rank % 2 == l->parity) sleep_s(2e-3);
    return 0;
}

static void section_comms(void)
{
    if (size > 64) return;
    plx_comm_t d1, d2;
    OK(plx_comm_dup(world, &d1));
    OK(plx_comm_dup(world, &d2));
    two_t *t1 = calloc(1, sizeof *t1), *t2 = calloc(1, sizeof *t2), *t3 = calloc(1, sizeof *t3);
    plx_graph_t g1, g2, g3;
    plx_graph_node_t p, a, c, x, y;

    /* g1 on d1, g2 on d2, launched together */
    OK(plx_graph_create(ctx, &g1));
    OK(plx_graph_add_compute(g1, two_prep, t1, &p));
    OK(plx_graph_add_allreduce(g1, t1->a, t1->ar, 100, PLX_INT32, PLX_SUM, d1, &a));
    OK(plx_graph_add_compute(g1, two_check_a, t1, &c));
    OK(plx_graph_depend(g1, p, a));
    OK(plx_graph_depend(g1, a, c));
    OK(plx_graph_compile(g1));
    OK(plx_graph_create(ctx, &g2));
    OK(plx_graph_add_compute(g2, two_prep, t2, &p));
    OK(plx_graph_add_allgather(g2, t2->g, t2->gr, 32, PLX_INT32, d2, &a));
    OK(plx_graph_add_compute(g2, two_check_g, t2, &c));
    OK(plx_graph_depend(g2, p, a));
    OK(plx_graph_depend(g2, a, c));
    OK(plx_graph_compile(g2));
    int ok_launch = 0;
    for (int it = 0; it < 200; it++) {
        t1->k = it;
        t2->k = it + 1;
        plx_request_t r[2];
        int a1 = plx_graph_launch(g1, &r[0]) == PLX_SUCCESS;
        int a2 = plx_graph_launch(g2, &r[1]) == PLX_SUCCESS;
        if (!a1) r[0] = NULL;
        if (!a2) r[1] = NULL;
        ok_launch += a1 && a2 && plx_waitall(2, r, NULL) == PLX_SUCCESS;
    }
    CHECK(ok_launch == 200, "two graphs at once: %d of 200 launches ok", ok_launch);
    CHECK(atomic_load(&t1->bad) == 0 && atomic_load(&t2->bad) == 0, "two graphs at once: %d + %d wrong",
          atomic_load(&t1->bad), atomic_load(&t2->bad));

    /* one graph over both communicators, joined at the end */
    OK(plx_graph_create(ctx, &g3));
    OK(plx_graph_add_compute(g3, two_prep, t3, &p));
    OK(plx_graph_add_allreduce(g3, t3->a, t3->ar, 100, PLX_INT32, PLX_SUM, d1, &a));
    OK(plx_graph_add_allgather(g3, t3->g, t3->gr, 32, PLX_INT32, d2, &x));
    OK(plx_graph_add_compute(g3, two_check_a, t3, &c));
    OK(plx_graph_add_compute(g3, two_check_g, t3, &y));
    OK(plx_graph_depend(g3, p, a));
    OK(plx_graph_depend(g3, p, x));
    OK(plx_graph_depend(g3, a, c));
    OK(plx_graph_depend(g3, x, c));
    OK(plx_graph_depend(g3, c, y));
    OK(plx_graph_compile(g3));
    int ok3 = 0;
    for (int it = 0; it < 100; it++) {
        t3->k = 7 * it;
        ok3 += plx_graph_run(g3) == PLX_SUCCESS;
    }
    CHECK(ok3 == 100 && atomic_load(&t3->bad) == 0, "graph over two communicators: %d ok, %d wrong", ok3,
          atomic_load(&t3->bad));
    OK(plx_graph_free(&g1));
    OK(plx_graph_free(&g2));
    OK(plx_graph_free(&g3));

    /* collectives of one communicator ready in a different order per rank */
    late_t la = { 0 }, lb = { 1 };
    two_t *t4 = calloc(1, sizeof *t4);
    plx_graph_t g4;
    plx_graph_node_t xa, xb, A, B, ca, cb;
    OK(plx_graph_create(ctx, &g4));
    OK(plx_graph_add_compute(g4, two_prep, t4, &p));
    OK(plx_graph_add_compute(g4, late_node, &la, &xa));
    OK(plx_graph_add_compute(g4, late_node, &lb, &xb));
    OK(plx_graph_add_allreduce(g4, t4->a, t4->ar, 100, PLX_INT32, PLX_SUM, world, &A));
    OK(plx_graph_add_allgather(g4, t4->g, t4->gr, 32, PLX_INT32, world, &B));
    OK(plx_graph_add_compute(g4, two_check_a, t4, &ca));
    OK(plx_graph_add_compute(g4, two_check_g, t4, &cb));
    OK(plx_graph_depend(g4, p, xa));
    OK(plx_graph_depend(g4, p, xb));
    OK(plx_graph_depend(g4, xa, A));
    OK(plx_graph_depend(g4, xb, B));
    OK(plx_graph_depend(g4, A, ca));
    OK(plx_graph_depend(g4, B, cb));
    OK(plx_graph_compile(g4));
    int ok4 = 0;
    for (int it = 0; it < 30; it++) {
        t4->k = it + 11;
        if (it % 2) {
            ok4 += plx_graph_run(g4) == PLX_SUCCESS;
        } else {
            plx_request_t r;
            ok4 += plx_graph_launch(g4, &r) == PLX_SUCCESS && plx_wait(&r) == PLX_SUCCESS;
        }
    }
    CHECK(ok4 == 30 && atomic_load(&t4->bad) == 0, "readiness order differing by rank: %d ok, %d wrong",
          ok4, atomic_load(&t4->bad));
    OK(plx_graph_free(&g4));
    OK(plx_comm_free(&d1));
    OK(plx_comm_free(&d2));
    free(t1);
    free(t2);
    free(t3);
    free(t4);
}

/* ======================================================================== fail */
typedef struct fail {
    int k, fail_at, fail_rank;   /* fail_rank -1: every rank */
    int32_t a[50], ar[50], b[50], br[50];
    int32_t c[50], cr[50];     /* the second graph's independent allreduce */
    atomic_int fin_runs, side_runs, bad;
} fail_t;

static int fail_prep(void *arg)
{
    fail_t *f = arg;
    for (int i = 0; i < 50; i++) f->a[i] = val(rank, (size_t)i, f->k);
    return 0;
}

static int fail_mid(void *arg)
{
    fail_t *f = arg;
    if (f->k == f->fail_at && (f->fail_rank < 0 || f->fail_rank == rank)) return 7;
    for (int i = 0; i < 50; i++) f->b[i] = f->ar[i] + 1;
    return 0;
}

static int fail_fin(void *arg)
{
    fail_t *f = arg;
    int bad = 0;
    for (int i = 0; i < 50; i++) {
        int32_t ref = 0;
        for (int q = 0; q < size; q++) ref += val(q, (size_t)i, f->k);
        bad += f->br[i] != size * (ref + 1);
    }
    atomic_fetch_add(&f->bad, bad);
    atomic_fetch_add(&f->fin_runs, 1);
    return 0;
}

static int fail_side(void *arg)
{
    fail_t *f = arg;
    atomic_fetch_add(&f->side_runs, 1);
    return 0;
}

static void section_fail(void)
{
    fail_t *f = calloc(1, sizeof *f);
    plx_graph_t g;
    plx_graph_node_t p, a1, m, a2, fin, side;
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, fail_prep, f, &p));
    OK(plx_graph_add_allreduce(g, f->a, f->ar, 50, PLX_INT32, PLX_SUM, world, &a1));
    OK(plx_graph_add_compute(g, fail_mid, f, &m));
    OK(plx_graph_add_allreduce(g, f->b, f->br, 50, PLX_INT32, PLX_SUM, world, &a2));
    OK(plx_graph_add_compute(g, fail_fin, f, &fin));
    OK(plx_graph_add_compute(g, fail_side, f, &side));
    OK(plx_graph_depend(g, p, a1));
    OK(plx_graph_depend(g, a1, m));
    OK(plx_graph_depend(g, m, a2));
    OK(plx_graph_depend(g, a2, fin));
    OK(plx_graph_depend(g, a2, side));
    OK(plx_graph_compile(g));
    f->fail_at = -1;
    /* k: 0 ok, 1 rank 0 fails, 2 ok, 3 every rank fails, 4 ok (launch), 5 last rank fails (launch) */
    for (int k = 0; k < 6; k++) {
        f->k = k;
        f->fail_at = k;
        f->fail_rank = k == 1 ? 0 : k == 3 ? -1 : k == 5 ? size - 1 : 99;
        int fails_here = f->fail_rank == -1 || f->fail_rank == rank;
        int fin0 = atomic_load(&f->fin_runs), side0 = atomic_load(&f->side_runs), bad0 = atomic_load(&f->bad);
        double t0 = now();
        plx_status_t st;
        if (k < 4) {
            st = plx_graph_run(g);
        } else {
            plx_request_t r;
            st = plx_graph_launch(g, &r);
            if (st == PLX_SUCCESS) st = plx_wait(&r);
        }
        double dt = now() - t0;
        CHECK(dt < 5.0, "launch %d took %.1f s", k, dt);
        if (fails_here) {
            CHECK(st == PLX_ERR_COMPUTE_FAILED, "launch %d: status %d (%s), expected PLX_ERR_COMPUTE_FAILED", k,
                  (int)st, plx_strerror(st));
            CHECK(atomic_load(&f->fin_runs) == fin0 && atomic_load(&f->side_runs) == side0,
                  "launch %d: nodes after the failed one ran", k);
        } else {
            CHECK(st == PLX_SUCCESS, "launch %d: status %d (%s)", k, (int)st, plx_strerror(st));
            CHECK(atomic_load(&f->fin_runs) == fin0 + 1 && atomic_load(&f->side_runs) == side0 + 1,
                  "launch %d: final nodes did not run once", k);
            if (f->fail_rank == 99)      /* nobody failed: the data is right */
                CHECK(atomic_load(&f->bad) == bad0, "launch %d: %d wrong", k, atomic_load(&f->bad) - bad0);
        }
    }
    /* the communicator is still matched across ranks */
    int32_t x = 1, s = 0;
    OK(plx_allreduce(&x, &s, 1, PLX_INT32, PLX_SUM, world));
    CHECK(s == size, "allreduce after failures: %d", s);
    CHECK(strstr(plx_strerror(PLX_ERR_COMPUTE_FAILED), "compute") != NULL, "strerror");

    /* a failing root node with an independent communication branch */
    plx_graph_t g2;
    plx_graph_node_t r0, ar;
    f->fail_at = 100;
    f->k = 100;
    f->fail_rank = -1;
    OK(plx_graph_create(ctx, &g2));
    OK(plx_graph_add_compute(g2, fail_mid, f, &r0));
    OK(plx_graph_add_allreduce(g2, f->c, f->cr, 50, PLX_INT32, PLX_SUM, world, &ar));
    OK(plx_graph_add_compute(g2, fail_side, f, &side));
    OK(plx_graph_depend(g2, r0, side));
    OK(plx_graph_compile(g2));
    CHECK(plx_graph_run(g2) == PLX_ERR_COMPUTE_FAILED, "failing root node");
    f->k = 101;
    OK(plx_graph_run(g2));
    OK(plx_graph_free(&g2));
    OK(plx_graph_free(&g));
    free(f);
}

/* ======================================================================== prio */
static atomic_int prio_seq;
typedef struct pnode { int prio, seq; } pnode_t;
static int prio_node(void *arg)
{
    pnode_t *p = arg;
    p->seq = atomic_fetch_add(&prio_seq, 1);
    return 0;
}

static void section_prio(void)
{
    const char *th = getenv("PLX_GRAPH_THREADS");
    int strict = th && strcmp(th, "1") == 0;
    const int prios[6] = { 0, 3, 1, 5, 2, 4 };
    pnode_t pn[6];
    plx_graph_t g;
    plx_graph_node_t root, v[6];
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, nop, NULL, &root));
    for (int i = 0; i < 6; i++) {
        pn[i].prio = prios[i];
        OK(plx_graph_add_compute(g, prio_node, &pn[i], &v[i]));
        OK(plx_graph_set_priority(g, v[i], prios[i]));
        OK(plx_graph_depend(g, root, v[i]));
    }
    OK(plx_graph_compile(g));
    for (int it = 0; it < 20; it++) {
        atomic_store(&prio_seq, 0);
        plx_request_t r;
        OK(plx_graph_launch(g, &r));
        OK(plx_wait(&r));
        int seen = 0;
        for (int i = 0; i < 6; i++) seen |= 1 << pn[i].seq;
        CHECK(seen == 63, "every node ran once");
        /* One worker: the queue gives nodes out highest priority first.
         * The thread that finished root keeps the best one (priority 5)
         * and runs it itself (lib/graph/exec.c), and may be preempted
         * before it starts it while the caller's thread takes the queued
         * rest (seen under make check-sanitize: 4 3 2 1 0, then 5), so
         * the order is checked among the queued five. */
        if (strict)
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++)
                    if (pn[i].prio != 5 && pn[j].prio != 5 && pn[i].prio > pn[j].prio)
                        CHECK(pn[i].seq < pn[j].seq,
                              "priority %d ran as number %d, priority %d as number %d (one worker: by priority)",
                              pn[i].prio, pn[i].seq, pn[j].prio, pn[j].seq);
    }
    OK(plx_graph_free(&g));
}

/* ======================================================================== sched */
typedef struct sched_t {
    double d;                  /* the slow rank's delay */
    double x_end, r_start, r_end;
    int32_t v, sum;
} sched_t;

static int sched_x(void *arg)
{
    sched_t *s = arg;
    if (rank == size - 1) sleep_s(s->d);
    s->v = rank + 1;
    s->x_end = now();
    return 0;
}

static int sched_r(void *arg)
{
    sched_t *s = arg;
    s->r_start = now();
    sleep_s(1e-3);
    s->r_end = now();
    return 0;
}

static void section_sched(int reps)
{
    if (size < 2) return;
    const double D = 0.04;   /* the slow rank's delay: far above any dispatch latency, even on 2 busy cores */
    sched_t s = { .d = D };
    plx_graph_t g;
    plx_graph_node_t X, A, R;
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, sched_x, &s, &X));
    OK(plx_graph_add_allreduce(g, &s.v, &s.sum, 1, PLX_INT32, PLX_SUM, world, &A));   /* added before R: FIFO queues it first */
    OK(plx_graph_add_compute(g, sched_r, &s, &R));
    OK(plx_graph_depend(g, X, A));
    OK(plx_graph_depend(g, X, R));
    OK(plx_graph_set_timing(g, 1));
    OK(plx_graph_compile(g));
    const plx_graph_policy_t pol[3] = { PLX_GRAPH_COMM_FIRST, PLX_GRAPH_COMPUTE_FIRST, PLX_GRAPH_FIFO };
    const char *pname[3] = { "comm_first", "compute_first", "fifo" };
    int slow = rank == size - 1;
    for (int p = 0; p < 3; p++) {
        OK(plx_graph_set_policy(g, pol[p]));
        int bad_order = 0, slow_a = 0, bad_st = 0;
        enum { MISS_SHOWN = 8 };
        double miss_r[MISS_SHOWN], miss_a[MISS_SHOWN];   /* ms after X ended: R's start, A's end */
        double min_margin = 1e9, max_margin = -1e9, *lat = calloc((size_t)reps, sizeof(double));
        int nlat = 0;
        for (int it = 0; it < reps; it++) {
            s.sum = 0;
            s.r_start = s.r_end = s.x_end = 0;
            plx_barrier(world);                 /* X starts together on every rank */
            plx_status_t st;
            if (it % 2) {
                st = plx_graph_run(g);
            } else {
                plx_request_t r;
                st = plx_graph_launch(g, &r);
                if (st == PLX_SUCCESS) st = plx_wait(&r);
            }
            double a_start, a_end;
            plx_graph_node_times(g, A, &a_start, &a_end);
            bad_st += st != PLX_SUCCESS || s.sum != size * (size + 1) / 2;
            if (pol[p] == PLX_GRAPH_FIFO) {
                /* every launch, every rank: R only after A */
                bad_order += !(s.r_start >= a_end);
            } else if (!slow && a_end - s.x_end >= D / 2) {
                /* A really was slow (the last rank was still in X): R must
                 * have started before A completed.  (A launch where the
                 * scheduler delayed this rank past the last one's X proves
                 * nothing either way and is only counted.) */
                slow_a++;
                if (!(s.r_start < a_end)) {
                    if (bad_order < MISS_SHOWN) {
                        miss_r[bad_order] = (s.r_start - s.x_end) * 1e3;
                        miss_a[bad_order] = (a_end - s.x_end) * 1e3;
                    }
                    bad_order++;
                }
                lat[nlat++] = s.r_start - s.x_end;
            }
            if (!slow) {
                double margin = a_end - s.r_start;   /* > 0: R started before A completed */
                if (margin < min_margin) min_margin = margin;
                if (margin > max_margin) max_margin = margin;
            }
        }
        CHECK(bad_st == 0, "sched %s: %d launches failed or summed wrong", pname[p], bad_st);
        if (pol[p] == PLX_GRAPH_FIFO) {
            CHECK(bad_order == 0, "sched fifo: R started before A completed in %d of %d launches (FIFO must serialise)",
                  bad_order, reps);
        } else {
            /* some misses: the OS ran R's thread late on a loaded machine
             * (shown; 4-5 of 20 under make check-sanitize at load 35);
             * all of them: R was held behind A, the bug this test is for */
            int allowed = slow_a / 2 > 2 ? slow_a / 2 : 2;
            for (int i = 0; i < bad_order && i < MISS_SHOWN; i++)
                printf("graph_check: sched %s: rank %d: miss %d of %d: R started %.3f ms after X ended, "
                       "the slow A ended %.3f ms after X ended\n", pname[p], rank, i + 1, bad_order, miss_r[i],
                       miss_a[i]);
            CHECK(bad_order <= allowed,
                  "sched %s: R did not start before the slow A completed in %d of %d launches (at most %d allowed)",
                  pname[p], bad_order, slow_a, allowed);
            if (!slow)
                CHECK(slow_a * 2 >= reps, "sched %s: A was slow in only %d of %d launches (machine too loaded?)",
                      pname[p], slow_a, reps);
        }
        if (rank == 0) {
            double med = 0;
            if (nlat) {
                for (int i = 1; i < nlat; i++)      /* insertion sort: reps is small */
                    for (int j = i; j > 0 && lat[j] < lat[j - 1]; j--) {
                        double t = lat[j];
                        lat[j] = lat[j - 1];
                        lat[j - 1] = t;
                    }
                med = lat[nlat / 2];
            }
            if (pol[p] == PLX_GRAPH_FIFO)
                printf("graph_check: sched fifo: %d launches, R after A in all; A end - R start: min %+.3f ms, max %+.3f ms\n",
                       reps, min_margin * 1e3, max_margin * 1e3);
            else
                printf("graph_check: sched %s: %d launches, A slow in %d, R before A in %d of those; "
                       "A end - R start: min %+.3f ms, max %+.3f ms; R start - X end median %.3f ms\n",
                       pname[p], reps, slow_a, slow_a - bad_order, min_margin * 1e3, max_margin * 1e3, med * 1e3);
        }
        free(lat);
    }
    OK(plx_graph_free(&g));
}

/* ======================================================================== timeout */
typedef struct tmo { atomic_int k, done; } tmo_t;   /* read by a node the launch gave up on */
static int tmo_node(void *arg)
{
    tmo_t *t = arg;
    if (atomic_load(&t->k) == 0) sleep_s(2.5);
    atomic_fetch_add(&t->done, 1);
    return 0;
}

static void section_timeout(void)
{
    tmo_t t;
    atomic_init(&t.k, 0);
    atomic_init(&t.done, 0);
    plx_graph_t g;
    plx_graph_node_t a, b;
    OK(plx_graph_create(ctx, &g));
    OK(plx_graph_add_compute(g, tmo_node, &t, &a));
    OK(plx_graph_add_compute(g, nop, NULL, &b));
    OK(plx_graph_depend(g, a, b));
    OK(plx_graph_compile(g));
    double t0 = now();
    plx_request_t r;
    OK(plx_graph_launch(g, &r));
    plx_status_t st = plx_wait(&r);
    double dt = now() - t0;
    CHECK(st == PLX_ERR_TIMEOUT, "stuck compute node: status %d (%s)", (int)st, plx_strerror(st));
    CHECK(dt < 2.4, "timed out after %.2f s (PLX_TIMEOUT=1 expected)", dt);
    BAD(plx_graph_run(g));           /* its node still runs */
    BAD(plx_graph_free(&g));
    /* wait for the stuck node to really end (not a fixed time: a loaded
     * machine can start and finish its 2.5 s sleep late), bounded */
    for (double t1 = now(); atomic_load(&t.done) == 0 && now() - t1 < 60;) sleep_s(0.01);
    CHECK(atomic_load(&t.done) == 1, "the stuck compute node did not end within 60 s");
    atomic_store(&t.k, 1);
    OK(plx_graph_run(g));
    OK(plx_graph_free(&g));
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int reps = 100;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: graph_check [--only valid|colls|many|comms|fail|prio|sched|timeout] [--reps N]\n");
            return 2;
        }
    }
    if (plx_init(&ctx) != PLX_SUCCESS) return 2;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
#define RUN(name, call)                                                                  \
    if (only ? strcmp(only, name) == 0 : strcmp(name, "timeout") != 0) {                 \
        double t0_ = now();                                                              \
        call;                                                                            \
        if (rank == 0) printf("graph_check: %s done in %.2f s\n", name, now() - t0_);    \
        fflush(stdout);                                                                  \
    }
    RUN("valid", section_valid());
    RUN("colls", section_colls());
    RUN("many", section_many());
    RUN("comms", section_comms());
    RUN("fail", section_fail());
    RUN("prio", section_prio());
    RUN("sched", section_sched(reps));
    RUN("timeout", section_timeout());
    plx_status_t st = plx_finalize(&ctx);
    CHECK(st == PLX_SUCCESS, "finalize");
    printf("graph_check: rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
