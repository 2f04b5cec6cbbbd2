/*
 * tests/mr/thread_check.c — several application threads using one context
 * at once, each on its own communicator (plexus.h "Thread safety").
 *
 * Every rank starts NTHREADS threads; thread t works only on comm[t] (a
 * dup of world) and runs a mix of blocking and nonblocking collectives
 * (small ones take the node-local shm_slots path, larger ones schedules
 * over the transport) and tagged isend/irecv around a ring, checking every
 * result.  The main thread meanwhile runs collectives on world.  Built
 * twice by make check: as a normal program and with -fsanitize=thread over
 * the whole library (thread_check_tsan), each run with PLX_PROGRESS=caller
 * and =thread (tests/mr/run_thread.sh), so a data race between application
 * threads and the progress thread is reported by ThreadSanitizer.
 *
 * Usage: thread_check [iterations]   (default 60)
 */
#include <plexus.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 3

static int rank, size, iters = 60;
static plx_comm_t world, comms[NTHREADS];

typedef struct {
    int t;
    long checks, failures;
} worker_t;

#define CHECK(w, cond, ...)                                                     \
    do {                                                                        \
        (w)->checks++;                                                          \
        if (!(cond)) {                                                          \
            (w)->failures++;                                                    \
            if ((w)->failures < 10) {                                           \
                fprintf(stderr, "thread_check rank %d thread %d line %d: ", rank, \
                        (w)->t, __LINE__);                                      \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
            }                                                                   \
        }                                                                       \
    } while (0)

/* Value rank r contributes at element i in iteration it of thread t. */
static int32_t val(int t, int it, int r, size_t i)
{
    return (int32_t)((t + 1) * 1000 + it * 7 + r * 13 + (int)(i % 101));
}

static void one_round(worker_t *w, plx_comm_t c, int it)
{
    /* sizes: 1 and 64 elements take shm_slots, 20000 goes through schedules */
    static const size_t counts[] = { 1, 64, 20000 };
    size_t n = counts[it % 3];
    int32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    int32_t *all = malloc(n * (size_t)size * sizeof *all);
    for (size_t i = 0; i < n; i++) in[i] = val(w->t, it, rank, i);

    /* allreduce: blocking on even iterations, i-form + test polling on odd */
    if (it % 2 == 0) {
        CHECK(w, plx_allreduce(in, out, n, PLX_INT32, PLX_SUM, c) == PLX_SUCCESS, "allreduce");
    } else {
        plx_request_t rq;
        CHECK(w, plx_iallreduce(in, out, n, PLX_INT32, PLX_SUM, c, &rq) == PLX_SUCCESS, "iallreduce");
        int done = 0;
        while (!done)
            if (plx_test(&rq, &done) != PLX_SUCCESS) {
                CHECK(w, 0, "plx_test");
                break;
            }
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t e = 0;
        for (int r = 0; r < size; r++) e += val(w->t, it, r, i);
        bad += out[i] != (int32_t)e;
    }
    CHECK(w, bad == 0, "allreduce of %zu: %zu wrong", n, bad);

    /* bcast from a rotating root and allgather, both in flight together */
    int root = it % size;
    memcpy(out, in, n * sizeof *out);
    plx_request_t rq[2];
    CHECK(w, plx_ibcast(out, n, PLX_INT32, root, c, &rq[0]) == PLX_SUCCESS, "ibcast");
    CHECK(w, plx_iallgather(in, all, n, PLX_INT32, c, &rq[1]) == PLX_SUCCESS, "iallgather");
    CHECK(w, plx_waitall(2, rq, NULL) == PLX_SUCCESS, "waitall");
    bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += out[i] != val(w->t, it, root, i);
        for (int r = 0; r < size; r++) bad += all[(size_t)r * n + i] != val(w->t, it, r, i);
    }
    CHECK(w, bad == 0, "bcast/allgather of %zu: %zu wrong", n, bad);

    /* ring exchange: send to the right, receive from the left */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t got = 0;
    CHECK(w, plx_irecv(out, n, PLX_INT32, left, it, c, &got, &rq[0]) == PLX_SUCCESS, "irecv");
    CHECK(w, plx_isend(in, n, PLX_INT32, right, it, c, &rq[1]) == PLX_SUCCESS, "isend");
    CHECK(w, plx_waitall(2, rq, NULL) == PLX_SUCCESS, "p2p waitall");
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += out[i] != val(w->t, it, left, i);
    CHECK(w, bad == 0 && got == n, "ring p2p of %zu: %zu wrong, got %zu", n, bad, got);

    if (it % 5 == 0) CHECK(w, plx_barrier(c) == PLX_SUCCESS, "barrier");
    free(in);
    free(out);
    free(all);
}

static void *worker(void *arg)
{
    worker_t *w = arg;
    for (int it = 0; it < iters; it++) one_round(w, comms[w->t], it);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) iters = atoi(argv[1]);
    plx_context_t ctx;
    if (plx_init(&ctx) != PLX_SUCCESS) return 2;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    for (int t = 0; t < NTHREADS; t++)
        if (plx_comm_dup(world, &comms[t]) != PLX_SUCCESS) return 2;

    worker_t w[NTHREADS + 1];
    pthread_t tid[NTHREADS];
    memset(w, 0, sizeof w);
    for (int t = 0; t < NTHREADS; t++) {
        w[t].t = t;
        pthread_create(&tid[t], NULL, worker, &w[t]);
    }
    /* the main thread keeps world busy meanwhile */
    worker_t *m = &w[NTHREADS];
    m->t = NTHREADS;
    for (int it = 0; it < iters; it++) {
        int32_t x = rank + it, s = 0;
        CHECK(m, plx_allreduce(&x, &s, 1, PLX_INT32, PLX_MAX, world) == PLX_SUCCESS, "world allreduce");
        CHECK(m, s == size - 1 + it, "world allreduce max %d", s);
    }
    long checks = m->checks, failures = m->failures;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(tid[t], NULL);
        checks += w[t].checks;
        failures += w[t].failures;
    }
    for (int t = 0; t < NTHREADS; t++) plx_comm_free(&comms[t]);
    if (plx_finalize(&ctx) != PLX_SUCCESS) failures++;
    printf("thread_check: rank %d: %ld checks, %ld failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
