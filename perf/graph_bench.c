/*
 * perf/graph_bench.c — task-graph executor benchmarks (plx_graph_*).
 *
 *   plexusrun -n 2 graph_bench -m overhead        launches/s of a small graph vs plain calls
 *   plexusrun -n 1 graph_bench -m nodes           per-node cost from 10 to 100,000 nodes
 *   plexusrun -n 2 graph_bench -m overlap         ResNet-50-like backward pass: overlap
 *
 * overhead: the graph compute(8 B) -> allreduce(8 B) -> compute, compiled
 *   once, launched in a loop through plx_graph_run and through
 *   plx_graph_launch + plx_wait, against the same three steps as plain
 *   calls (write, plx_allreduce, read).  The three loops are interleaved for
 *   --rounds rounds (default 5) of ~--time seconds each (default 0.3);
 *   medians of launches per second and the ratio graph/plain.
 * nodes: per-node cost of compiled graphs of N nodes, N = 10, 100, 1000,
 *   10000, 100000 (--sizes a,b,...): shape chain (N no-op compute nodes one
 *   after the other), wide (a root, N-2 independent no-op nodes, a sink),
 *   and mixed (compute -> 8-B allreduce pairs in a chain: communication on
 *   every other node).  Time per launch / N, median of --rounds rounds,
 *   through plx_graph_run and launch + wait; also compile time per node.
 * overlap: 50 layers (ResNet-50's: conv1, the 48 convolutions of the
 *   bottleneck blocks and fc; each layer's gradient bucket is its weight
 *   plus its batch-norm parameters, a block's downsample branch joins its
 *   last convolution; 16.5 KiB .. 12 MiB, 97.5 MiB in all, in backward
 *   order; --layers FILE reads another list of "name<TAB>bytes" lines).
 *   The backward pass is a chain of compute nodes L50 -> L49 -> ... -> L1
 *   (each layer's gradient needs the one after it), each followed by an
 *   allreduce (float32, average) of its bucket that nothing waits for
 *   until the end.  sum_comm is measured first: each bucket's blocking
 *   allreduce alone (median of 3); every layer then computes for
 *   --scale x sum_comm / 50 (default 1: balanced; --layer-ms sets it
 *   directly, to compare builds on the same work) -- host-idle (the thread
 *   sleeps, as while a GPU kernel runs) or CPU-busy (it spins).
 *   Reported per compute kind and policy (comm_first, compute_first, fifo):
 *   total time per iteration (median of --iters, default 5) and, median
 *   over the iterations, its ratio to the ideal measured right before it
 *   ("vs ideal"; ideal_pass): one pass of the 50 blocking allreduces back
 *   to back (each bucket met once per pass, from memory, as in the graph),
 *   combined with the computes as asked (--layer-ms or sum_comm / 50 per
 *   layer: a GPU kernel's time, the host noticing its end at once) as the
 *   chain allows (chain_bound: allreduce i starts after compute i at the
 *   earliest).  Also, per iteration: "vs meas.", the same chain with the
 *   computes measured alone, one after the other (not a bound: a sleep
 *   alone on an idle core ends later than in the graph, whose cores are
 *   busy -- the graph ends before it at times); "vs max()": max(sum of the
 *   measured computes, sum of the allreduces) of the same passes;
 *   "vs free": the same computes and allreduces run at once on two threads
 *   without the graph -- not an ideal (the computes' wake-ups take the
 *   ranks' cores there too) but what the executor could reach on this
 *   machine.  Once per launch: against FIFO; "vs start": max(sum_compute,
 *   b2b) measured once before the iterations (b2b: median of 3
 *   back-to-back passes; the ideal of the previous version); "vs cached":
 *   max(sum_compute, sum_comm) (sum_comm times each bucket 3 times in a
 *   row, its data in cache after the first, 10-40 % less than b2b here at
 *   1-4 MiB; the ideal of the first versions).
 *
 * Rank 0 prints; every rank takes part (the graphs contain collectives).
 * Timing on a shared 2-core machine is noisy: compare within one run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getcpu (--probe) */
#endif
#include <plexus.h>

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <getopt.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>

#include <stdatomic.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
static int trace;              /* --trace: per iteration and rank, where the time went */
static double trace_sa, trace_sc;   /* --trace: this rank's halves of the last ideal pass */
static plx_context_t ctx;
static plx_comm_t world;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* every rank gets rank 0's value: loops end together */
static double agree(double x)
{
    plx_bcast(&x, 1, PLX_FLOAT64, 0, world);
    return x;
}

static void die(const char *what, plx_status_t st)
{
    fprintf(stderr, "graph_bench rank %d: %s: %s\n", rank, what, plx_strerror(st));
    exit(1);
}
#define TRY(call)                                   \
    do {                                            \
        plx_status_t st_ = (call);                  \
        if (st_ != PLX_SUCCESS) die(#call, st_);    \
    } while (0)

/* ===================================================================== overhead */
typedef struct small {
    double in, out, seen;
    long wrong;
} small_t;

static int small_write(void *arg)
{
    small_t *s = arg;
    s->in = (double)(rank + 1);
    return 0;
}

static int small_read(void *arg)
{
    small_t *s = arg;
    s->seen = s->out;
    s->wrong += s->out != (double)size * (size + 1) / 2;
    return 0;
}

enum { M_PLAIN, M_RUN, M_LAUNCH, M_COUNT };
static const char *mode_name[M_COUNT] = { "plain calls", "plx_graph_run", "launch + wait" };

/* Run `iters` iterations of mode m; returns seconds. */
static double small_loop(int m, plx_graph_t g, small_t *s, long iters)
{
    plx_barrier(world);
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        if (m == M_PLAIN) {
            small_write(s);
            TRY(plx_allreduce(&s->in, &s->out, 1, PLX_FLOAT64, PLX_SUM, world));
            small_read(s);
        } else if (m == M_RUN) {
            TRY(plx_graph_run(g));
        } else {
            plx_request_t r;
            TRY(plx_graph_launch(g, &r));
            TRY(plx_wait(&r));
        }
    }
    return now() - t0;
}

static long bench_overhead(int rounds, double tsec)
{
    small_t *s = calloc(1, sizeof *s);
    plx_graph_t g;
    plx_graph_node_t a, b, c;
    TRY(plx_graph_create(ctx, &g));
    TRY(plx_graph_add_compute(g, small_write, s, &a));
    TRY(plx_graph_add_allreduce(g, &s->in, &s->out, 1, PLX_FLOAT64, PLX_SUM, world, &b));
    TRY(plx_graph_add_compute(g, small_read, s, &c));
    TRY(plx_graph_depend(g, a, b));
    TRY(plx_graph_depend(g, b, c));
    TRY(plx_graph_compile(g));
    /* calibrate iterations per round on the slowest mode */
    long iters[M_COUNT];
    for (int m = 0; m < M_COUNT; m++) {
        small_loop(m, g, s, 200);
        double dt = agree(small_loop(m, g, s, 2000));
        iters[m] = (long)(tsec / (dt / 2000));
        if (iters[m] < 1000) iters[m] = 1000;
    }
    double *rate = calloc((size_t)(rounds * M_COUNT), sizeof *rate);
    for (int r = 0; r < rounds; r++)
        for (int m = 0; m < M_COUNT; m++) {
            double dt = agree(small_loop(m, g, s, iters[m]));
            rate[m * rounds + r] = (double)iters[m] / dt;
        }
    if (rank == 0) {
        printf("# overhead: compute(8 B) -> allreduce(8 B) -> compute, %d ranks, %d rounds interleaved, medians\n",
               size, rounds);
        printf("%-16s %14s %12s %10s\n", "mode", "per second", "us each", "vs plain");
        double plain = 0;
        for (int m = 0; m < M_COUNT; m++) {
            double med = median(&rate[m * rounds], rounds);
            if (m == M_PLAIN) plain = med;
            printf("%-16s %14.0f %12.3f %10.3f\n", mode_name[m], med, 1e6 / med, med / plain);
        }
        printf("result check: %ld wrong\n", s->wrong);
    }
    long wrong = s->wrong;
    TRY(plx_graph_free(&g));
    free(rate);
    free(s);
    return wrong;
}

/* ===================================================================== nodes */
static int noop(void *arg) { (void)arg; return 0; }

typedef struct mixed { double in, out; } mixed_t;
static int mixed_write(void *arg) { mixed_t *m = arg; m->in = (double)rank; return 0; }

enum { S_CHAIN, S_WIDE, S_MIXED, S_COUNT };
static const char *shape_name[S_COUNT] = { "chain", "wide", "mixed" };

static plx_graph_t build_shape(int shape, int n, mixed_t *mx, double *compile_s)
{
    plx_graph_t g;
    TRY(plx_graph_create(ctx, &g));
    plx_graph_node_t prev = -1, v, root = -1, sink;
    if (shape == S_WIDE) {
        TRY(plx_graph_add_compute(g, noop, NULL, &root));
        TRY(plx_graph_add_compute(g, noop, NULL, &sink));
        for (int i = 0; i < n - 2; i++) {
            TRY(plx_graph_add_compute(g, noop, NULL, &v));
            TRY(plx_graph_depend(g, root, v));
            TRY(plx_graph_depend(g, v, sink));
        }
    } else {
        for (int i = 0; i < n; i++) {
            if (shape == S_MIXED && i % 2)
                TRY(plx_graph_add_allreduce(g, &mx->in, &mx->out, 1, PLX_FLOAT64, PLX_SUM, world, &v));
            else
                TRY(plx_graph_add_compute(g, shape == S_MIXED ? mixed_write : noop, mx, &v));
            if (prev >= 0) TRY(plx_graph_depend(g, prev, v));
            prev = v;
        }
    }
    double t0 = now();
    TRY(plx_graph_compile(g));
    *compile_s = now() - t0;
    return g;
}

static double launch_once(plx_graph_t g, int use_run)
{
    double t0 = now();
    if (use_run) {
        TRY(plx_graph_run(g));
    } else {
        plx_request_t r;
        TRY(plx_graph_launch(g, &r));
        TRY(plx_wait(&r));
    }
    return now() - t0;
}

static void bench_nodes(const int *sizes, int nsizes, int rounds, double tsec)
{
    mixed_t mx = { 0, 0 };
    if (rank == 0) {
        printf("# per-node cost: us per node per launch (median of %d rounds), %d rank(s)\n", rounds, size);
        printf("%-6s %8s %12s %12s %12s %10s\n", "shape", "nodes", "run", "launch+wait", "compile", "launches");
    }
    for (int sh = 0; sh < S_COUNT; sh++)
        for (int i = 0; i < nsizes; i++) {
            int n = sizes[i];
            if (sh == S_WIDE && n < 3) continue;
            double comp;
            plx_graph_t g = build_shape(sh, n, &mx, &comp);
            /* warm up: the first launch times every node on a worker */
            for (int w = 0; w < 3; w++) launch_once(g, 1);
            double one = agree(launch_once(g, 1));
            long iters = (long)(tsec / rounds / (one > 1e-7 ? one : 1e-7));
            if (iters < 5) iters = 5;
            if (iters > 200000) iters = 200000;
            double *t[2];
            for (int u = 0; u < 2; u++) {
                t[u] = calloc((size_t)rounds, sizeof(double));
                for (int r = 0; r < rounds; r++) {
                    plx_barrier(world);
                    double t0 = now();
                    for (long k = 0; k < iters; k++) launch_once(g, !u);
                    t[u][r] = agree((now() - t0) / (double)iters);
                }
            }
            if (rank == 0)
                printf("%-6s %8d %12.4f %12.4f %12.4f %10ld\n", shape_name[sh], n,
                       median(t[0], rounds) / n * 1e6, median(t[1], rounds) / n * 1e6, comp / n * 1e6,
                       iters);
            fflush(stdout);
            free(t[0]);
            free(t[1]);
            TRY(plx_graph_free(&g));
        }
}

/* ===================================================================== overlap */
typedef struct layer { char name[48]; size_t bytes; } layer_t;

/* ResNet-50 gradient buckets in backward order: each layer's weight plus
 * its batch-norm parameters, in bytes of float32 (see the header comment). */
static const layer_t resnet50[] = {
    { "fc", 8196000 }, { "layer4.2.conv3", 4210688 }, { "layer4.2.conv2", 9441280 },
    { "layer4.2.conv1", 4198400 }, { "layer4.1.conv3", 4210688 }, { "layer4.1.conv2", 9441280 },
    { "layer4.1.conv1", 4198400 }, { "layer4.0.conv3", 12615680 }, { "layer4.0.conv2", 9441280 },
    { "layer4.0.conv1", 2101248 }, { "layer3.5.conv3", 1056768 }, { "layer3.5.conv2", 2361344 },
    { "layer3.5.conv1", 1050624 }, { "layer3.4.conv3", 1056768 }, { "layer3.4.conv2", 2361344 },
    { "layer3.4.conv1", 1050624 }, { "layer3.3.conv3", 1056768 }, { "layer3.3.conv2", 2361344 },
    { "layer3.3.conv1", 1050624 }, { "layer3.2.conv3", 1056768 }, { "layer3.2.conv2", 2361344 },
    { "layer3.2.conv1", 1050624 }, { "layer3.1.conv3", 1056768 }, { "layer3.1.conv2", 2361344 },
    { "layer3.1.conv1", 1050624 }, { "layer3.0.conv3", 3165184 }, { "layer3.0.conv2", 2361344 },
    { "layer3.0.conv1", 526336 }, { "layer2.3.conv3", 264192 }, { "layer2.3.conv2", 590848 },
    { "layer2.3.conv1", 263168 }, { "layer2.2.conv3", 264192 }, { "layer2.2.conv2", 590848 },
    { "layer2.2.conv1", 263168 }, { "layer2.1.conv3", 264192 }, { "layer2.1.conv2", 590848 },
    { "layer2.1.conv1", 263168 }, { "layer2.0.conv3", 792576 }, { "layer2.0.conv2", 590848 },
    { "layer2.0.conv1", 131584 }, { "layer1.2.conv3", 67584 }, { "layer1.2.conv2", 147968 },
    { "layer1.2.conv1", 66048 }, { "layer1.1.conv3", 67584 }, { "layer1.1.conv2", 147968 },
    { "layer1.1.conv1", 66048 }, { "layer1.0.conv3", 134144 }, { "layer1.0.conv2", 147968 },
    { "layer1.0.conv1", 16896 }, { "conv1", 38144 },
};

static layer_t *read_layers(const char *path, int *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    layer_t *l = NULL;
    int cap = 0;
    *n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char name[48];
        unsigned long long b;
        if (line[0] == '#' || sscanf(line, "%47s %llu", name, &b) != 2) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            l = realloc(l, (size_t)cap * sizeof *l);
        }
        snprintf(l[*n].name, sizeof l[*n].name, "%s", name);
        l[(*n)++].bytes = (size_t)b;
    }
    fclose(f);
    return l;
}

typedef struct lnode {
    double t;                  /* idle: seconds to sleep */
    long work;                 /* busy: iterations of arithmetic (calibrated to take t alone) */
    int busy;
    float *grad;
    size_t n;
    long tid;                  /* --probe: the thread that ran it last */
} lnode_t;

/* --probe: a thread's scheduler counters (/proc): ns on a CPU, ns runnable
 * and waiting for one, voluntary and involuntary context switches. */
typedef struct tstat { double run, wait; long vol, invol, mig; int cpu; } tstat_t;

static tstat_t thread_stat(long tid)
{
    tstat_t t = { 0, 0, 0, 0, 0, -1 };
    char path[96], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
    FILE *f = fopen(path, "r");
    if (f) {
        unsigned long long r = 0, w = 0;
        if (fscanf(f, "%llu %llu", &r, &w) == 2) {
            t.run = (double)r * 1e-9;
            t.wait = (double)w * 1e-9;
        }
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    if ((f = fopen(path, "r"))) {
        while (fgets(line, sizeof line, f)) {
            sscanf(line, "voluntary_ctxt_switches: %ld", &t.vol);
            sscanf(line, "nonvoluntary_ctxt_switches: %ld", &t.invol);
        }
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%ld/sched", tid);
    if ((f = fopen(path, "r"))) {
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (colon && !strncmp(line, "se.nr_migrations", 16)) t.mig = atol(colon + 1);
        }
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    if ((f = fopen(path, "r"))) {
        /* field 39, the CPU it last ran on; the name (field 2) ends at the last ')' */
        if (fgets(line, sizeof line, f)) {
            char *q = strrchr(line, ')');
            for (int field = 2; q && field < 39; field++) q = strchr(q + 1, ' ');
            if (q) t.cpu = atoi(q + 1);
        }
        fclose(f);
    }
    return t;
}

static void print_tdiff(const char *who, long tid, tstat_t a, tstat_t b)
{
    printf("    rank %d %-6s tid %ld: on cpu %.3f ms, runnable waiting %.3f ms, switches %ld voluntary %ld involuntary\n",
           rank, who, tid, (b.run - a.run) * 1e3, (b.wait - a.wait) * 1e3, b.vol - a.vol, b.invol - a.invol);
}

/* The ideal of one iteration, measured right before it (ideal_pass):
 * allreduce i cannot start before compute i has ended (the chain
 * c_1 .. c_i), and the allreduces run one after the other in the graph's
 * order (matching order, one collective at a time), so no schedule ends
 * before max over k of (c_1 + .. + c_k) + (a_k + .. + a_n): the makespan
 * of the two-stage flow shop in this order, with a_i each allreduce's time
 * back to back (cold, as the graph meets it) and c_i each compute's.
 * max(sum c, sum a), the ideal before, is below it by at least
 * min(c_1, a_n): the first layer's compute, in which no rank can
 * communicate yet. */
static double chain_bound(const double *c, const double *a, int nl)
{
    double suf = 0, pre = 0, best = 0;
    for (int i = 0; i < nl; i++) suf += a[i];
    for (int k = 0; k < nl; k++) {
        pre += c[k];
        if (pre + suf > best) best = pre + suf;
        suf -= a[k];
    }
    return best;
}

static volatile double sink;

static void spin_work(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int layer_compute(void *arg)
{
    lnode_t *l = arg;
    l->tid = (long)syscall(SYS_gettid);
#ifdef PR_SET_TIMERSLACK
    /* the default 50 us timer slack would lengthen every sleep (per thread) */
    static _Thread_local int slack_set;
    if (!slack_set) {
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        slack_set = 1;
    }
#endif
    if (l->busy) {
        spin_work(l->work);
        /* the CPU produced the gradient: touch one element per page */
        for (size_t i = 0; i < l->n; i += 1024) l->grad[i] = (float)(rank + 1);
    } else {
        /* a GPU kernel produces it: the host only waits */
        struct timespec ts = { (time_t)l->t, (long)((l->t - (double)(time_t)l->t) * 1e9) };
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    return 0;
}

/* Iterations of spin_work per second, on this thread alone. */
static double spin_rate(void)
{
    long n = 1 << 16;
    double dt;
    for (;;) {
        double t0 = now();
        spin_work(n);
        dt = now() - t0;
        if (dt > 0.02) break;
        n *= 2;
    }
    double best = dt;
    for (int r = 0; r < 2; r++) {
        double t0 = now();
        spin_work(n);
        dt = now() - t0;
        if (dt < best) best = dt;
    }
    return (double)n / best;
}

typedef struct freearg { lnode_t *ln; int nl; double end; } freearg_t;

static void *free_chain(void *arg)
{
    freearg_t *f = arg;
    for (int i = 1; i < f->nl; i++) layer_compute(&f->ln[i]);
    f->end = now();
    return NULL;
}

/* One pass of each half of the ideal, as the iteration after it meets
 * them: the 50 blocking allreduces back to back (a[i], cold) and the 50
 * computes one after the other (c[i], the sleeps' real length).  Returns
 * the flow-shop bound (chain_bound) with the measured computes, the
 * largest over the ranks (each rank's chain is a bound on when the common
 * allreduces can end); in *asked the same with the computes as asked (the
 * ideal); the two sums (rank 0's) in *sum_a, *sum_c.  Then, not part of the
 * ideal, "free" (*free_t, rank 0's): the same work at once without the
 * graph -- compute 0 on this thread, then computes 1..n on a second
 * thread while this one runs the allreduces back to back -- where the
 * computes' wake-ups take the cores as in the graph, but no executor,
 * no dependency and no hand-off: what the executor could reach on this
 * machine. */
static double ideal_pass(float **grad, const layer_t *layers, lnode_t *ln, int nl, double *a, double *c,
                         double *sum_a, double *sum_c, double *free_t, double *asked)
{
    long tid = ln[nl - 1].tid;   /* --probe's worker: keep it */
    plx_barrier(world);
    double t1 = now();
    for (int i = 0; i < nl; i++) {
        TRY(plx_allreduce(PLX_IN_PLACE, grad[i], layers[i].bytes / 4, PLX_FLOAT32, PLX_AVG, world));
        double t2 = now();
        a[i] = t2 - t1;
        t1 = t2;
    }
    t1 = now();
    for (int i = 0; i < nl; i++) {
        layer_compute(&ln[i]);
        double t2 = now();
        c[i] = t2 - t1;
        t1 = t2;
    }
    double sa = 0, sc = 0, bound = chain_bound(c, a, nl), worst = 0;
    for (int i = 0; i < nl; i++) {
        sa += a[i];
        sc += c[i];
    }
    TRY(plx_allreduce(&bound, &worst, 1, PLX_FLOAT64, PLX_MAX, world));
    /* the same with each compute as long as asked (ln[i].t): a sleep alone
     * on an idle core ends later than asked (the core's way out of idle),
     * later than in the graph, where the cores are busy */
    for (int i = 0; i < nl; i++) c[i] = ln[i].t;
    bound = chain_bound(c, a, nl);
    TRY(plx_allreduce(&bound, asked, 1, PLX_FLOAT64, PLX_MAX, world));
    trace_sa = sa;
    trace_sc = sc;
    *sum_a = agree(sa);
    *sum_c = agree(sc);
    plx_barrier(world);
    double f0 = now();
    layer_compute(&ln[0]);
    freearg_t fa = { ln, nl, 0 };
    pthread_t th;
    if (pthread_create(&th, NULL, free_chain, &fa) != 0) {
        fprintf(stderr, "graph_bench: pthread_create failed\n");
        exit(1);
    }
    for (int i = 0; i < nl; i++)
        TRY(plx_allreduce(PLX_IN_PLACE, grad[i], layers[i].bytes / 4, PLX_FLOAT32, PLX_AVG, world));
    double me = now();
    pthread_join(th, NULL);
    *free_t = agree((fa.end > me ? fa.end : me) - f0);
    ln[nl - 1].tid = tid;
    return worst;
}

/* --trace: one line per rank and timed iteration -- its own run, when its
 * compute chain and its last allreduce ended (from the barrier's exit),
 * how late its sleeps ended in all, the halves of its ideal pass, and
 * what the scheduler did to its main thread and its worker. */
static void trace_iter(plx_graph_t g, const lnode_t *ln, int nl, int it, const char *pol, double t0, double own,
                       long mtid, tstat_t m0, tstat_t m1, tstat_t w0, tstat_t w1)
{
    double chain_end = 0, last = 0, late = 0, late_max = 0;
    int on_main = 0;
    for (int i = 0; i < nl; i++) {
        double cs, ce, as, ae;
        TRY(plx_graph_node_times(g, 2 * i, &cs, &ce));
        TRY(plx_graph_node_times(g, 2 * i + 1, &as, &ae));
        if (ce > chain_end) chain_end = ce;
        if (ae > last) last = ae;
        double l = (ce - cs) - ln[i].t;
        late += l;
        if (l > late_max) late_max = l;
        on_main += ln[i].tid == mtid;
    }
    double t00 = t0;
    plx_bcast(&t00, 1, PLX_FLOAT64, 0, world);
    for (int r = 0; r < size; r++) {
        plx_barrier(world);
        if (r != rank) continue;
        printf("  trace it %d %-13s rank %d: run %.2f ms (start %+.0f us); chain ends %.2f (late %.2f ms, max %.0f us,"
               " %d on main), allreduces end %.2f; ideal pass a %.2f c %.2f | main cpu %d->%d on %.2f wait %.2f"
               " sw %ld/%ld mig %ld | worker cpu %d->%d on %.2f wait %.2f sw %ld/%ld mig %ld\n",
               it, pol, rank, own * 1e3, (t0 - t00) * 1e6, (chain_end - t0) * 1e3, late * 1e3, late_max * 1e6,
               on_main, (last - t0) * 1e3, trace_sa * 1e3, trace_sc * 1e3, m0.cpu, m1.cpu,
               (m1.run - m0.run) * 1e3, (m1.wait - m0.wait) * 1e3, m1.vol - m0.vol, m1.invol - m0.invol,
               m1.mig - m0.mig, w0.cpu, w1.cpu, (w1.run - w0.run) * 1e3, (w1.wait - w0.wait) * 1e3, w1.vol - w0.vol,
               w1.invol - w0.invol, w1.mig - w0.mig);
        fflush(stdout);
    }
    plx_barrier(world);
}

static void bench_overlap(const layer_t *layers, int nl, double scale, double layer_s, int iters,
                          int kinds_mask, const char *policies, int gaps, int gaps_policy, int probe)
{
    float **grad = calloc((size_t)nl, sizeof *grad);
    size_t total = 0;
    for (int i = 0; i < nl; i++) {
        size_t n = layers[i].bytes / 4;
        grad[i] = malloc((n ? n : 1) * sizeof(float));
        for (size_t j = 0; j < n; j++) grad[i][j] = 1.0f;
        total += layers[i].bytes;
    }
    /* sum_comm: each bucket's allreduce alone, median of 3 */
    double sum_comm = 0;
    double *alone = calloc((size_t)nl, sizeof *alone);   /* per layer, for --dump */
    for (int i = 0; i < nl; i++) {
        double t[3];
        for (int r = 0; r < 4; r++) {
            plx_barrier(world);
            double t0 = now();
            TRY(plx_allreduce(PLX_IN_PLACE, grad[i], layers[i].bytes / 4, PLX_FLOAT32, PLX_AVG, world));
            if (r) t[r - 1] = now() - t0;
        }
        alone[i] = median(t, 3);
        sum_comm += alone[i];
    }
    sum_comm = agree(sum_comm);
    /* b2b, the communication term of the ideal: the 50 blocking allreduces
     * one after the other in backward order, each bucket's data no longer
     * in the caches, as in the graph (median of 3 passes) */
    double tb[3];
    double *b2b_one = calloc((size_t)nl, sizeof *b2b_one);   /* the last pass, for --dump */
    tstat_t bm0 = { 0, 0, 0, 0, 0, -1 }, bm1 = bm0;   /* --probe: the main thread in the last pass */
    for (int r = 0; r < 3; r++) {
        plx_barrier(world);
        if (r == 2 && probe) bm0 = thread_stat((long)syscall(SYS_gettid));
        double t0 = now();
        double t1 = t0;
        for (int i = 0; i < nl; i++) {
            TRY(plx_allreduce(PLX_IN_PLACE, grad[i], layers[i].bytes / 4, PLX_FLOAT32, PLX_AVG, world));
            double t2 = now();
            if (r == 2) b2b_one[i] = t2 - t1;
            t1 = t2;
        }
        tb[r] = now() - t0;
        if (r == 2 && probe) bm1 = thread_stat((long)syscall(SYS_gettid));
    }
    double b2b = agree(median(tb, 3));
    double per_layer = layer_s > 0 ? layer_s : scale * sum_comm / nl;
    double rate = agree(spin_rate());
    if (rank == 0) {
        printf("# overlap: %d layers, %.1f MiB of gradients, %d ranks; sum_comm %.2f ms (each allreduce alone, "
               "median of 3); compute %.3f ms per layer (idle: sleep; busy: arithmetic); median of %d iterations\n",
               nl, (double)total / 1048576.0, size, sum_comm * 1e3, per_layer * 1e3, iters);
        printf("# b2b: the same allreduces back to back (blocking, backward order, no compute): %.2f ms\n",
               b2b * 1e3);
        printf("%-6s %-14s %12s %12s %10s %10s %10s %10s %10s %10s %10s\n", "kind", "policy", "total ms", "ideal ms",
               "vs ideal", "vs fifo", "vs cached", "vs max()", "vs start", "vs free", "vs meas.");
    }
    lnode_t *ln = calloc((size_t)nl, sizeof *ln);
    for (int kind = 0; kind < 2; kind++) {
        if (!(kinds_mask & (1 << kind))) continue;
        plx_graph_t g;
        TRY(plx_graph_create(ctx, &g));
        plx_graph_node_t prev = -1, c, a;
        for (int i = 0; i < nl; i++) {
            ln[i] = (lnode_t){ per_layer, (long)(per_layer * rate), kind, grad[i], layers[i].bytes / 4, 0 };
            TRY(plx_graph_add_compute(g, layer_compute, &ln[i], &c));
            TRY(plx_graph_add_allreduce(g, PLX_IN_PLACE, grad[i], layers[i].bytes / 4, PLX_FLOAT32, PLX_AVG,
                                        world, &a));
            TRY(plx_graph_depend(g, c, a));
            if (prev >= 0) TRY(plx_graph_depend(g, prev, c));
            prev = c;
        }
        /* sum_compute: the 50 layers' compute alone, one after the other
         * (median of 3; the sleeps' real length, overshoot included) */
        double tc[3];
        for (int r = 0; r < 3; r++) {
            double t0 = now();
            for (int i = 0; i < nl; i++) layer_compute(&ln[i]);
            tc[r] = now() - t0;
        }
        double sum_comp = agree(median(tc, 3));
        double ideal = sum_comp > b2b ? sum_comp : b2b;
        double cached = sum_comp > sum_comm ? sum_comp : sum_comm;   /* the earlier ideal */
        TRY(plx_graph_compile(g));
        const char *pn[3] = { "comm_first", "compute_first", "fifo" };
        const plx_graph_policy_t pv[3] = { PLX_GRAPH_COMM_FIRST, PLX_GRAPH_COMPUTE_FIRST, PLX_GRAPH_FIFO };
        double med[3] = { 0, 0, 0 };
        /* policies interleaved per iteration: the machine's noise hits all alike */
        double *tp[3], *rq[3], *rm[3], *rf[3], *rk[3];
        for (int p = 0; p < 3; p++) {
            tp[p] = calloc((size_t)iters, sizeof(double));
            rq[p] = calloc((size_t)iters, sizeof(double));   /* per iteration: / its ideal (asked) */
            rm[p] = calloc((size_t)iters, sizeof(double));   /* / its max(sum a, sum c) */
            rf[p] = calloc((size_t)iters, sizeof(double));   /* / its free pass */
            rk[p] = calloc((size_t)iters, sizeof(double));   /* / its chain with the computes measured */
        }
        /* each iteration's ideal is measured right before it: the ideal
         * moves between launches (and within one) as much as the graph */
        double *ia = calloc((size_t)nl, sizeof *ia), *ic = calloc((size_t)nl, sizeof *ic);
        double *iq = calloc((size_t)iters, sizeof *iq), *isa = calloc((size_t)iters, sizeof *isa),
               *isc = calloc((size_t)iters, sizeof *isc), *ifr = calloc((size_t)iters, sizeof *ifr),
               *ik = calloc((size_t)iters, sizeof *ik);
        TRY(plx_graph_run(g));   /* warm-up */
        for (int it = 0; it < iters; it++) {
            iq[it] = ideal_pass(grad, layers, ln, nl, ia, ic, &isa[it], &isc[it], &ifr[it], &ik[it]);
            double mx = isa[it] > isc[it] ? isa[it] : isc[it];
            for (int p = 0; p < 3; p++) {
                if (!strstr(policies, pn[p])) continue;
                TRY(plx_graph_set_policy(g, pv[p]));
                tstat_t m0 = { 0, 0, 0, 0, 0, -1 }, w0 = m0, m1 = m0, w1 = m0;
                long mtid = 0, wtid = ln[nl - 1].tid;
                if (trace) {
                    TRY(plx_graph_set_timing(g, 1));
                    mtid = (long)syscall(SYS_gettid);
                }
                plx_barrier(world);
                if (trace) {
                    m0 = thread_stat(mtid);
                    if (wtid && wtid != mtid) w0 = thread_stat(wtid);
                }
                double t0 = now();
                TRY(plx_graph_run(g));
                double own = now() - t0;
                tp[p][it] = agree(own);
                if (trace) {
                    m1 = thread_stat(mtid);
                    if (wtid && wtid != mtid) w1 = thread_stat(wtid);
                    trace_iter(g, ln, nl, it, pn[p], t0, own, mtid, m0, m1, w0, w1);
                    TRY(plx_graph_set_timing(g, 0));
                }
                rq[p][it] = tp[p][it] / ik[it];
                rm[p][it] = tp[p][it] / mx;
                rf[p][it] = tp[p][it] / ifr[it];
                rk[p][it] = tp[p][it] / iq[it];
            }
        }
        double rqm[3] = { 0, 0, 0 }, rmm[3] = { 0, 0, 0 }, rfm[3] = { 0, 0, 0 }, rkm[3] = { 0, 0, 0 };
        for (int p = 0; p < 3; p++)
            if (strstr(policies, pn[p])) {
                med[p] = median(tp[p], iters);
                rqm[p] = median(rq[p], iters);
                rmm[p] = median(rm[p], iters);
                rfm[p] = median(rf[p], iters);
                rkm[p] = median(rk[p], iters);
            }
        double iqm = median(iq, iters), isam = median(isa, iters), iscm = median(isc, iters),
               ifrm = median(ifr, iters), ikm = median(ik, iters);
        if (gaps) {
            /* where the time goes: the chain's gaps (a layer's end to the next one's start) */
            TRY(plx_graph_set_policy(g, pv[gaps_policy]));
            TRY(plx_graph_set_timing(g, 1));
            plx_barrier(world);
            TRY(plx_graph_run(g));
            double gsum = 0, gmax = 0, csum = 0, lastar = 0, s0, e0, s1, e1;
            for (int i = 0; i < nl; i++) {
                TRY(plx_graph_node_times(g, 2 * i, &s1, &e1));
                csum += e1 - s1;
                if (i) {
                    TRY(plx_graph_node_times(g, 2 * (i - 1), &s0, &e0));
                    gsum += s1 - e0;
                    if (s1 - e0 > gmax) gmax = s1 - e0;
                }
                TRY(plx_graph_node_times(g, 2 * i + 1, &s0, &e0));
                if (e0 > lastar) lastar = e0;
            }
            TRY(plx_graph_node_times(g, 0, &s0, &e0));
            if (rank == 0 && gaps > 1)
                for (int i = 0; i < nl; i++) {
                    double cs, ce, as, ae;
                    plx_graph_node_times(g, 2 * i, &cs, &ce);
                    plx_graph_node_times(g, 2 * i + 1, &as, &ae);
                    printf("  %2d %-16s %9zu  compute %8.3f-%8.3f  allreduce %8.3f-%8.3f (%.3f ms; alone %.3f, back to back %.3f)\n",
                           i, layers[i].name, layers[i].bytes, (cs - s0) * 1e3, (ce - s0) * 1e3,
                           (as - s0) * 1e3, (ae - s0) * 1e3, (ae - as) * 1e3, alone[i] * 1e3, b2b_one[i] * 1e3);
                }
            if (rank == 0)
                printf("  gaps (%s, rank 0): compute %.2f ms measured, chain gaps sum %.2f ms "
                       "(max %.3f ms), last allreduce done %.2f ms after the first layer started\n",
                       pn[gaps_policy], csum * 1e3, gsum * 1e3, gmax * 1e3, (lastar - s0) * 1e3);
            TRY(plx_graph_set_timing(g, 0));
        }
        for (int pr = 0; pr < probe; pr++) {
            /* --probe: one timed launch; per rank, the threads' scheduler
             * counters and where the communication lost time against b2b */
            TRY(plx_graph_set_policy(g, pv[gaps_policy]));
            TRY(plx_graph_set_timing(g, 1));
            long mtid = (long)syscall(SYS_gettid), wtid = ln[nl - 1].tid;
            int cpu0 = sched_getcpu();
            plx_barrier(world);
            tstat_t m0 = thread_stat(mtid), w0 = thread_stat(wtid);
            double t0 = now();
            TRY(plx_graph_run(g));
            double t1 = now();
            tstat_t m1 = thread_stat(mtid), w1 = thread_stat(wtid);
            int cpu1 = sched_getcpu();
            double cs0, ce0, pe = 0, busy = 0, idle_gap = 0, over = 0, post_max = 0, post_sum = 0;
            double slept = 0, chain_end = 0, first = 0, last = 0, excess = 0;
            int on_main = 0;
            TRY(plx_graph_node_times(g, 0, &cs0, &ce0));
            for (int i = 0; i < nl; i++) {
                double cs, ce, as, ae;
                TRY(plx_graph_node_times(g, 2 * i, &cs, &ce));
                TRY(plx_graph_node_times(g, 2 * i + 1, &as, &ae));
                on_main += ln[i].tid == mtid;
                slept += ce - cs;
                over += (ce - cs) - ln[i].t;
                if (ce > chain_end) chain_end = ce;
                double post = as - ce;   /* ready -> posted */
                post_sum += post;
                if (post > post_max) post_max = post;
                double st = i && pe > as ? pe : as;   /* its turn: posted and the previous one over */
                if (i && as > pe) idle_gap += as - pe;
                if (!i) first = as;
                busy += ae - st;
                excess += (ae - st) - b2b_one[i];
                pe = ae;
                if (ae > last) last = ae;
            }
            for (int r = 0; r < size; r++) {
                plx_barrier(world);
                if (r != rank) continue;
                printf("  probe %d rank %d (%s, cpu %d->%d): launch %.2f ms; chain ends %.2f (slept %.2f, %.3f over "
                       "the asked, %d layers on the main thread); allreduces %.2f-%.2f ms: in their turn %.2f "
                       "(b2b's last pass %.2f, excess %.2f), no allreduce in flight %.2f; posted after ready: "
                       "mean %.1f us, max %.1f us\n",
                       pr, rank, pn[gaps_policy], cpu0, cpu1, (t1 - t0) * 1e3, (chain_end - cs0) * 1e3,
                       slept * 1e3, over * 1e3, on_main, (first - cs0) * 1e3, (last - cs0) * 1e3, busy * 1e3,
                       (busy - excess) * 1e3, excess * 1e3, idle_gap * 1e3, post_sum / nl * 1e6, post_max * 1e6);
                if (pr == 0) {
                    printf("    rank %d b2b's last pass %.2f ms: ", rank, tb[2] * 1e3);
                    print_tdiff("main", mtid, bm0, bm1);
                }
                print_tdiff("main", mtid, m0, m1);
                if (wtid != mtid) print_tdiff("worker", wtid, w0, w1);
                fflush(stdout);
            }
            TRY(plx_graph_set_timing(g, 0));
            plx_barrier(world);
        }
        if (rank == 0) {
            printf("%-6s sum_compute %.2f ms (alone), b2b %.2f ms: ideal max() = %.2f ms; sum_comm %.2f ms "
                   "(cached): max() = %.2f ms\n", kind ? "busy" : "idle", sum_comp * 1e3, b2b * 1e3, ideal * 1e3,
                   sum_comm * 1e3, cached * 1e3);
            printf("%-6s before each iteration (medians): computes %.2f ms, allreduces back to back %.2f ms, "
                   "ideal (chain, computes as asked) %.2f ms, chain with the computes measured %.2f ms; free "
                   "(both at once, no graph) %.2f ms\n",
                   kind ? "busy" : "idle", iscm * 1e3, isam * 1e3, ikm * 1e3, iqm * 1e3, ifrm * 1e3);
            for (int p = 0; p < 3; p++) {
                if (!strstr(policies, pn[p])) continue;
                printf("%-6s %-14s %12.2f %12.2f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n",
                       kind ? "busy" : "idle", pn[p], med[p] * 1e3, ikm * 1e3, rqm[p],
                       med[2] > 0 ? med[p] / med[2] : 0.0, med[p] / cached, rmm[p], med[p] / ideal, rfm[p],
                       rkm[p]);
            }
        }
        fflush(stdout);
        for (int p = 0; p < 3; p++) {
            free(tp[p]);
            free(rq[p]);
            free(rm[p]);
            free(rf[p]);
            free(rk[p]);
        }
        free(ifr);
        free(ik);
        free(ia);
        free(ic);
        free(iq);
        free(isa);
        free(isc);
        TRY(plx_graph_free(&g));
    }
    free(alone);
    free(b2b_one);
    for (int i = 0; i < nl; i++) free(grad[i]);
    free(grad);
    free(ln);
}

static const char gb_usage[] =
    "usage: graph_bench [-m overhead|nodes|overlap] [options]   (through plexusrun)\n"
    "  -m, --mode MODE          overhead (default): launches/s of compute -> allreduce -> compute\n"
    "                           against plain calls; nodes: cost per node, 10 to 100,000 nodes;\n"
    "                           overlap: a ResNet-50-like backward pass under each policy\n"
    "  --rounds N               interleaved rounds (default 5)\n"
    "  --time S                 seconds per round and loop (default 0.3)\n"
    "  --sizes A,B,...          node counts of -m nodes (default 10,100,1000,10000,100000)\n"
    "  --iters N                iterations of -m overlap (median; default 5)\n"
    "  --scale X                -m overlap: compute per layer = X x the layer's communication (default 1)\n"
    "  --layer-ms X             -m overlap: compute per layer = X ms instead (the same work for every build)\n"
    "  --compute idle|busy|both -m overlap: sleeping or spinning compute (default both)\n"
    "  --layers FILE            -m overlap: \"name<TAB>bytes\" lines instead of ResNet-50's\n"
    "  --policies LIST          -m overlap: among comm_first,compute_first,fifo (default all)\n"
    "  --gaps, --dump           -m overlap: print idle gaps / every node's times\n"
    "  --gaps-policy POLICY     the policy --gaps, --dump and --probe look at (default comm_first)\n"
    "  --probe N                -m overlap: N more timed launches; per rank, the threads' scheduler\n"
    "                           counters and the allreduces' time in their turn against b2b\n"
    "  --trace                  -m overlap: per timed iteration and rank, its run, chain and\n"
    "                           allreduces' end, its sleeps' lateness, its threads' scheduler counters\n"
    "  -h, --help               this text\n";

/* A whole number >= lo, or exit 2 naming the option. */
static int gb_int(const char *opt, const char *s, int lo)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > INT_MAX) {
        fprintf(stderr, "graph_bench: %s '%s': expected a whole number >= %d\n", opt, s, lo);
        exit(2);
    }
    return (int)v;
}

static double gb_pos(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || !isfinite(v)) {
        fprintf(stderr, "graph_bench: %s '%s': expected a positive number\n", opt, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *mode = "overhead", *layers_file = NULL, *policies = "comm_first,compute_first,fifo";
    int rounds = 5, iters = 5, kinds = 3, gaps = 0, gaps_policy = 0, probe = 0;
    double tsec = 0.3, scale = 1.0, layer_s = 0;
    int sizes[16] = { 10, 100, 1000, 10000, 100000 }, nsizes = 5;
    enum { O_ROUNDS = 256, O_TIME, O_ITERS, O_SCALE, O_LAYERS, O_POLICIES, O_GAPS, O_DUMP, O_GAPS_POLICY,
           O_COMPUTE, O_SIZES, O_LAYER_MS, O_PROBE, O_TRACE };
    static const struct option longopts[] = {
        { "mode", required_argument, NULL, 'm' }, { "rounds", required_argument, NULL, O_ROUNDS },
        { "time", required_argument, NULL, O_TIME }, { "iters", required_argument, NULL, O_ITERS },
        { "scale", required_argument, NULL, O_SCALE }, { "layers", required_argument, NULL, O_LAYERS },
        { "policies", required_argument, NULL, O_POLICIES }, { "gaps", no_argument, NULL, O_GAPS },
        { "dump", no_argument, NULL, O_DUMP }, { "gaps-policy", required_argument, NULL, O_GAPS_POLICY },
        { "compute", required_argument, NULL, O_COMPUTE }, { "sizes", required_argument, NULL, O_SIZES },
        { "layer-ms", required_argument, NULL, O_LAYER_MS }, { "probe", required_argument, NULL, O_PROBE },
        { "trace", no_argument, NULL, O_TRACE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":m:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'm':
            if (strcmp(optarg, "overhead") && strcmp(optarg, "nodes") && strcmp(optarg, "overlap")) {
                fprintf(stderr, "graph_bench: -m '%s': expected overhead, nodes or overlap\n", optarg);
                return 2;
            }
            mode = optarg;
            break;
        case O_ROUNDS: rounds = gb_int("--rounds", optarg, 1); break;
        case O_TIME: tsec = gb_pos("--time", optarg); break;
        case O_ITERS: iters = gb_int("--iters", optarg, 1); break;
        case O_SCALE: scale = gb_pos("--scale", optarg); break;
        case O_LAYER_MS: layer_s = gb_pos("--layer-ms", optarg) * 1e-3; break;
        case O_LAYERS: layers_file = optarg; break;
        case O_POLICIES: policies = optarg; break;
        case O_GAPS: gaps = 1; break;
        case O_PROBE: probe = gb_int("--probe", optarg, 0); break;
        case O_TRACE: trace = 1; break;
        case O_DUMP: gaps = 2; break;
        case O_GAPS_POLICY:
            if (!strcmp(optarg, "fifo")) gaps_policy = 2;
            else if (!strcmp(optarg, "compute_first")) gaps_policy = 1;
            else if (!strcmp(optarg, "comm_first")) gaps_policy = 0;
            else { fprintf(stderr, "graph_bench: --gaps-policy '%s': expected comm_first, compute_first or fifo\n", optarg); return 2; }
            break;
        case O_COMPUTE:
            if (!strcmp(optarg, "idle")) kinds = 1;
            else if (!strcmp(optarg, "busy")) kinds = 2;
            else if (!strcmp(optarg, "both")) kinds = 3;
            else { fprintf(stderr, "graph_bench: --compute '%s': expected idle, busy or both\n", optarg); return 2; }
            break;
        case O_SIZES: {
            char *tok, *save = NULL;
            nsizes = 0;
            for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (nsizes == 16) { fprintf(stderr, "graph_bench: --sizes: at most 16\n"); return 2; }
                sizes[nsizes++] = gb_int("--sizes", tok, 3);
            }
            if (nsizes == 0) { fprintf(stderr, "graph_bench: --sizes needs a list\n"); return 2; }
            break;
        }
        case 'h': fputs(gb_usage, stdout); return 0;
        case ':': fprintf(stderr, "graph_bench: %s needs a value\n", argv[optind - 1]); return 2;
        default:
            fprintf(stderr, "graph_bench: unknown option '%s'\n%s", argv[optind - 1], gb_usage);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "graph_bench: unexpected argument '%s'\n%s", argv[optind], gb_usage);
        return 2;
    }
    if (rounds < 1) rounds = 1;
    if (iters < 1) iters = 1;
    TRY(plx_init(&ctx));
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    long wrong = 0;
    if (!strcmp(mode, "overhead")) {
        wrong = bench_overhead(rounds, tsec);
    } else if (!strcmp(mode, "nodes")) {
        bench_nodes(sizes, nsizes, rounds, tsec);
    } else if (!strcmp(mode, "overlap")) {
        int nl = (int)(sizeof resnet50 / sizeof resnet50[0]);
        layer_t *l = layers_file ? read_layers(layers_file, &nl) : NULL;
        bench_overlap(l ? l : resnet50, nl, scale, layer_s, iters, kinds, policies, gaps, gaps_policy, probe);
        free(l);
    } else {
        fprintf(stderr, "graph_bench: unknown mode '%s'\n", mode);
        return 2;
    }
    TRY(plx_finalize(&ctx));
    return wrong ? 1 : 0;
}
