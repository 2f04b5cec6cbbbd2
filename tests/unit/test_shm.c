/*
 * tests/unit/test_shm.c — Check tests of the shared-memory transport
 * (transports/shm) through its ops table, with real processes.
 *
 * Each test forks N ranks that share a fake bootstrap: allgather/barrier
 * through an anonymous MAP_SHARED region made before fork, with bounded
 * waits.  Every wait loop spins a little and then sched_yield()s, because
 * 5 spinning processes on 2 cores are ~1000x slower.  A rank reports
 * failures through its exit status; the parent kills everyone on timeout.
 * The perf test prints an 8-byte round trip and 64 MiB bandwidth (no
 * assertion on speed: this machine's timing noise is large).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "transport.h"

/* lib/engine/sched.h (schedules) shadows the system <sched.h> under -I lib, so
 * declare the one libc call we need from it; affinity goes through syscall(). */
extern int sched_yield(void);

#define MAXR     8
#define BLOBMAX  256
#define WAIT_S   40.0     /* bound of any wait inside a rank */
#define JOB_S    100.0    /* bound of a whole job, below the Check timeout */
#define SHM_TEST_EAGER_DEFAULT 32768
#ifndef TEST_IDLE_SPINS
#define TEST_IDLE_SPINS 64   /* idle polls before each sched_yield in wait loops */
#endif

#include "tl_harness.h"

/* ---- per-rank harness ---------------------------------------------------- */

typedef struct rk {
    int rank, size;
    void *tl;
    const plx_tl_ops_t *ops;
    fake_boot_t boot;
    int node_of[MAXR];
    int fails;
    size_t eager;        /* the eager threshold this job runs with */
    int cma_off;
} rk_t;

#define CHECK(k, cond, ...)                                                                \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", (k)->rank, __FILE__,     \
                    __LINE__, #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            (k)->fails++;                                                                  \
        }                                                                                  \
    } while (0)

/* Poll until every request is done: spin while things move, yield when idle. */
static int wait_all(rk_t *k, plx_tl_req_t *r, int n)
{
    double deadline = now_s() + WAIT_S;
    unsigned idle = 0, it = 0;
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++) left += !r[i].done;
        if (!left) return 0;
        if (k->ops->progress(k->tl)) idle = 0;
        else if (++idle > TEST_IDLE_SPINS) sched_yield();
        if ((++it & 1023) == 0 && now_s() > deadline) {
            fprintf(stderr, "rank %d: wait timed out (%d of %d left)\n", k->rank, left, n);
            k->fails++;
            return -1;
        }
    }
}

static int wait1(rk_t *k, plx_tl_req_t *r) { return wait_all(k, r, 1); }

/* Let everything already sent to us land in the unexpected queues. */
static void drain_a_while(rk_t *k)
{
    for (int i = 0; i < 2000; i++)
        if (!k->ops->progress(k->tl)) sched_yield();
}

static void barrier(rk_t *k)
{
    CHECK(k, fb_barrier(&k->boot) == PLX_SUCCESS, "fake barrier");
}

/* Send buf to peer, blocking-style (used by simple bodies). */
static plx_status_t send_b(rk_t *k, int peer, uint64_t tag, const void *buf, size_t len)
{
    plx_tl_req_t r;
    plx_status_t st = k->ops->isend(k->tl, peer, tag, buf, len, &r);
    if (st != PLX_SUCCESS) return st;
    wait1(k, &r);
    return r.done ? r.status : PLX_ERR_TIMEOUT;
}

static plx_status_t recv_b(rk_t *k, int peer, uint64_t tag, void *buf, size_t len, size_t *got)
{
    plx_tl_req_t r;
    plx_status_t st = k->ops->irecv(k->tl, peer, tag, buf, len, &r);
    if (st != PLX_SUCCESS) return st;
    wait1(k, &r);
    if (got) *got = r.bytes;
    return r.done ? r.status : PLX_ERR_TIMEOUT;
}

typedef void (*body_fn)(rk_t *k);

/* Per-test knobs, set in the test process before run_job forks (this is a
 * test program: plain statics are fine). */
static void (*g_preinit)(int rank);   /* runs in each rank before init */
static int g_expect_init_fail;        /* init must fail on every rank */

static int count_devshm(const char *job)
{
    char pre[64];
    snprintf(pre, sizeof pre, "plx-%s-", job);
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, pre, strlen(pre))) n++;
    closedir(d);
    return n;
}

static void rank_main(int rank, int n, const int *node_of, fake_shared_t *sh, const char *job,
                      body_fn body, const char *const *envs, int pin2)
{
    rk_t k;
    memset(&k, 0, sizeof k);
    k.rank = rank;
    k.size = n;
    k.ops = &plx_tl_shm_ops;
    k.boot.sh = sh;
    k.boot.rank = rank;
    k.boot.size = n;
    int nnodes = 1;
    for (int i = 0; i < n; i++) {
        k.node_of[i] = node_of ? node_of[i] : 0;
        if (k.node_of[i] + 1 > nnodes) nnodes = k.node_of[i] + 1;
    }
    if (pin2) {
        /* the all-to-all test must hold on 2 cores */
        unsigned long cur[16] = { 0 }, set[16] = { 0 };
        const int bits = (int)(8 * sizeof cur[0]);
        if (syscall(SYS_sched_getaffinity, 0, sizeof cur, cur) > 0) {
            int got = 0;
            for (int c = 0; c < 16 * bits && got < 2; c++)
                if (cur[c / bits] & (1ul << (c % bits))) {
                    set[c / bits] |= 1ul << (c % bits);
                    got++;
                }
            syscall(SYS_sched_setaffinity, 0, sizeof set, set);
        }
    }
    unsetenv("PLX_SHM_CMA");
    unsetenv("PLX_SHM_EAGER_MAX");
    unsetenv("PLX_SHM_RING_BYTES");
    unsetenv("PLX_SHM_STAGE_BYTES");
    for (int i = 0; envs && envs[i]; i++) putenv((char *)envs[i]);
    plx_log_init(rank);
    const char *cma = getenv("PLX_SHM_CMA");
    k.cma_off = cma && !strcmp(cma, "0");
    const char *em = getenv("PLX_SHM_EAGER_MAX");
    char *end = NULL;
    /* the transport's default eager limit for <= 8 local ranks (shm_seg.c) */
    k.eager = em ? strtoul(em, &end, 0) : SHM_TEST_EAGER_DEFAULT;
    if (!em || end == em || *end) k.eager = SHM_TEST_EAGER_DEFAULT;

    plx_tl_env_t env = {
        .rank = rank, .size = n, .node_of = k.node_of, .nnodes = nnodes, .job_id = job,
        .timeout_s = WAIT_S, .log_level = plx_log_level, .boot = &k.boot,
        .allgather = fb_allgather, .barrier = fb_barrier,
    };
    if (g_preinit) g_preinit(rank);
    plx_status_t st = k.ops->init(&env, &k.tl);
    if (g_expect_init_fail) {
        if (st == PLX_SUCCESS) {
            fprintf(stderr, "rank %d: init should have failed\n", rank);
            exit(1);
        }
        exit(st == PLX_ERR_NOT_SUPPORTED || st == PLX_ERR_TRANSPORT ? 0 : 3);
    }
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "rank %d: init failed: %d\n", rank, (int)st);
        exit(2);
    }
    barrier(&k);   /* every node's leader has unlinked by now */
    if (rank == 0) CHECK(&k, count_devshm(job) == 0, "segment of job %s left in /dev/shm", job);
    body(&k);
    k.ops->finalize(k.tl);
    exit(k.fails ? 1 : 0);
}

/* Fork n ranks running body; returns how many failed. */
static int run_job(int n, const int *node_of, body_fn body, const char *const *envs, int pin2)
{
    static int counter;
    char job[32];
    snprintf(job, sizeof job, "t%dx%d", (int)getpid(), counter++);
    fake_shared_t *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                             -1, 0);
    ck_assert_ptr_ne(sh, MAP_FAILED);
    pid_t parent = getpid(), pids[MAXR];
    fflush(stdout);
    fflush(stderr);
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        ck_assert_int_ge(pids[r], 0);
        if (pids[r] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlive a killed test */
            if (getppid() != parent) _exit(99);
            rank_main(r, n, node_of, sh, job, body, envs, pin2);
        }
    }
    int failed = 0, left = n;
    double deadline = now_s() + JOB_S;
    while (left > 0) {
        int status;
        pid_t w = waitpid(-1, &status, WNOHANG);
        if (w > 0) {
            for (int r = 0; r < n; r++)
                if (pids[r] == w) {
                    pids[r] = 0;
                    left--;
                    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                        fprintf(stderr, "rank %d failed (%s %d)\n", r,
                                WIFEXITED(status) ? "exit" : "signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
                        failed++;
                    }
                }
            continue;
        }
        if (now_s() > deadline) {
            fprintf(stderr, "job %s timed out; killing %d ranks\n", job, left);
            for (int r = 0; r < n; r++)
                if (pids[r] > 0) {
                    kill(pids[r], SIGKILL);
                    waitpid(pids[r], NULL, 0);
                    failed++;
                }
            break;
        }
        usleep(2000);
    }
    munmap(sh, sizeof *sh);
    g_preinit = NULL;            /* knobs hold for one job (matters under CK_FORK=no) */
    g_expect_init_fail = 0;
    ck_assert_int_eq(count_devshm(job), 0);
    return failed;
}

static const char *const env_cma_off[] = { "PLX_SHM_CMA=0", NULL };

/* ---- bodies -------------------------------------------------------------- */

static void body_pingpong(rk_t *k)
{
    if (k->rank > 1) return;
    size_t e = k->eager;
    size_t sizes[] = { 0, 1, 8, 4096, e, e + 1, 1u << 20, 64u << 20 };
    int peer = 1 - k->rank;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *b = malloc(n + 1);
        size_t got = 0;
        if (k->rank == 0) {
            fill(b, n, (unsigned)i);
            CHECK(k, send_b(k, peer, 10 + i, b, n) == PLX_SUCCESS, "send %zu", n);
            memset(b, 0, n);
            CHECK(k, recv_b(k, peer, 20 + i, b, n, &got) == PLX_SUCCESS, "recv back %zu", n);
            CHECK(k, got == n && check_fill(b, n, (unsigned)i + 100), "echo of %zu bytes", n);
        } else {
            CHECK(k, recv_b(k, peer, 10 + i, b, n, &got) == PLX_SUCCESS, "recv %zu", n);
            CHECK(k, got == n && check_fill(b, n, (unsigned)i), "payload of %zu bytes", n);
            fill(b, n, (unsigned)i + 100);
            CHECK(k, send_b(k, peer, 20 + i, b, n) == PLX_SUCCESS, "send back %zu", n);
        }
        free(b);
    }
}

/* Receives posted in reverse tag order; then FIFO among equal tags. */
static void body_tag_order(rk_t *k)
{
    enum { K = 12, F = 10 };
    size_t e = k->eager;
    size_t sz[K];
    unsigned char *b[K];
    plx_tl_req_t r[K];
    for (int i = 0; i < K; i++) {
        sz[i] = (i % 3 == 0) ? 100 : (i % 3 == 1) ? e + 1 + (size_t)i : 300000 + (size_t)i;
        b[i] = malloc(sz[i]);
    }
    if (k->rank == 0) {
        for (int i = 0; i < K; i++) {
            fill(b[i], sz[i], (unsigned)i);
            CHECK(k, k->ops->isend(k->tl, 1, 1000 + i, b[i], sz[i], &r[i]) == PLX_SUCCESS, "isend");
        }
        wait_all(k, r, K);
        for (int i = 0; i < K; i++) CHECK(k, r[i].status == PLX_SUCCESS, "send %d status", i);
    } else if (k->rank == 1) {
        for (int i = K - 1; i >= 0; i--)
            CHECK(k, k->ops->irecv(k->tl, 0, 1000 + i, b[i], sz[i], &r[i]) == PLX_SUCCESS, "irecv");
        wait_all(k, r, K);
        for (int i = 0; i < K; i++)
            CHECK(k, r[i].status == PLX_SUCCESS && r[i].bytes == sz[i] && check_fill(b[i], sz[i], (unsigned)i),
                  "message tag %d", 1000 + i);
    }
    for (int i = 0; i < K; i++) free(b[i]);

    /* equal tags, mixed eager and large: must arrive in send order */
    size_t fs[F];
    unsigned char *fb[F];
    plx_tl_req_t fr[F];
    for (int i = 0; i < F; i++) {
        fs[i] = (i & 1) ? e + 1 + (size_t)i * 1000 : 16 + (size_t)i;
        fb[i] = malloc(fs[i]);
    }
    if (k->rank == 0) {
        for (int i = 0; i < F; i++) {
            fill(fb[i], fs[i], 500u + (unsigned)i);
            CHECK(k, k->ops->isend(k->tl, 1, 7, fb[i], fs[i], &fr[i]) == PLX_SUCCESS, "isend");
        }
        wait_all(k, fr, F);
    } else if (k->rank == 1) {
        for (int i = 0; i < F; i++)
            CHECK(k, k->ops->irecv(k->tl, 0, 7, fb[i], fs[i], &fr[i]) == PLX_SUCCESS, "irecv");
        wait_all(k, fr, F);
        for (int i = 0; i < F; i++)
            CHECK(k, fr[i].status == PLX_SUCCESS && fr[i].bytes == fs[i] &&
                     check_fill(fb[i], fs[i], 500u + (unsigned)i), "FIFO message %d", i);
    }
    for (int i = 0; i < F; i++) free(fb[i]);
}

/* Everything is sent (and lands in the unexpected queue) before any receive. */
static void body_unexpected(rk_t *k)
{
    enum { K = 16 };
    size_t e = k->eager;
    size_t sz[K];
    unsigned char *b[K];
    plx_tl_req_t r[K];
    for (int i = 0; i < K; i++) {
        sz[i] = (i % 4 == 0) ? 0 : (i % 4 == 1) ? 40 : (i % 4 == 2) ? e : 2000000;
        b[i] = malloc(sz[i] + 1);
    }
    if (k->rank == 0) {
        for (int i = 0; i < K; i++) {
            fill(b[i], sz[i], 77u + (unsigned)i);
            CHECK(k, k->ops->isend(k->tl, 1, 3000 + i, b[i], sz[i], &r[i]) == PLX_SUCCESS, "isend");
        }
        for (int i = 0; i < K; i++)
            if (sz[i] <= e) CHECK(k, r[i].done, "eager send %d completed at once", i);
        barrier(k);
        wait_all(k, r, K);
    } else if (k->rank == 1) {
        barrier(k);
        drain_a_while(k);
        int order[K];
        for (int i = 0; i < K; i++) order[i] = (i * 7) % K;   /* a permutation */
        for (int j = 0; j < K; j++) {
            int i = order[j];
            CHECK(k, k->ops->irecv(k->tl, 0, 3000 + i, b[i], sz[i], &r[i]) == PLX_SUCCESS, "irecv");
            if (sz[i] <= e) CHECK(k, r[i].done, "unexpected eager %d matched at irecv", i);
        }
        wait_all(k, r, K);
        for (int i = 0; i < K; i++)
            CHECK(k, r[i].status == PLX_SUCCESS && r[i].bytes == sz[i] &&
                     check_fill(b[i], sz[i], 77u + (unsigned)i), "unexpected message %d", i);
    } else {
        barrier(k);
    }
    for (int i = 0; i < K; i++) free(b[i]);
}

/* Far more than ring capacity in flight, both directions at once. */
static void body_many(rk_t *k)
{
    if (k->rank > 1) return;
    enum { N = 3000 };
    size_t e = k->eager;
    int peer = 1 - k->rank;
    size_t *sz = malloc(N * sizeof *sz);
    unsigned char **sb = malloc(N * sizeof *sb), **rb = malloc(N * sizeof *rb);
    plx_tl_req_t *sr = malloc(N * sizeof *sr), *rr = malloc(N * sizeof *rr);
    for (int i = 0; i < N; i++) {
        sz[i] = (i % 100 == 99) ? e + 1 + (size_t)i * 13 : ((size_t)i * 37) % (e + 1);
        sb[i] = malloc(sz[i] + 1);
        rb[i] = malloc(sz[i] + 1);
        fill(sb[i], sz[i], (unsigned)(i + 1000 * k->rank));
        CHECK(k, k->ops->isend(k->tl, peer, (uint64_t)(i % 5), sb[i], sz[i], &sr[i]) == PLX_SUCCESS,
              "isend %d", i);
    }
    for (int i = 0; i < N; i++)
        CHECK(k, k->ops->irecv(k->tl, peer, (uint64_t)(i % 5), rb[i], sz[i], &rr[i]) == PLX_SUCCESS,
              "irecv %d", i);
    wait_all(k, rr, N);
    wait_all(k, sr, N);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (rr[i].status != PLX_SUCCESS || rr[i].bytes != sz[i] ||
            !check_fill(rb[i], sz[i], (unsigned)(i + 1000 * peer)))
            bad++;
        if (sr[i].status != PLX_SUCCESS) bad++;
        free(sb[i]);
        free(rb[i]);
    }
    CHECK(k, bad == 0, "%d of %d messages wrong", bad, N);
    free(sz); free(sb); free(rb); free(sr); free(rr);
}

static void body_self(rk_t *k)
{
    size_t e = k->eager;
    size_t sizes[] = { 0, 8, e, e + 1, 1u << 20, 8u << 20 };
    int me = k->rank;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *s = malloc(n + 1), *d = malloc(n + 1);
        plx_tl_req_t r[2];
        fill(s, n, (unsigned)i);
        /* receive posted first */
        CHECK(k, k->ops->irecv(k->tl, me, 5, d, n, &r[0]) == PLX_SUCCESS, "irecv");
        CHECK(k, k->ops->isend(k->tl, me, 5, s, n, &r[1]) == PLX_SUCCESS, "isend");
        wait_all(k, r, 2);
        CHECK(k, r[0].status == PLX_SUCCESS && r[0].bytes == n && check_fill(d, n, (unsigned)i),
              "self %zu (recv first)", n);
        CHECK(k, r[1].status == PLX_SUCCESS, "self send status");
        /* send first */
        memset(d, 0, n);
        CHECK(k, k->ops->isend(k->tl, me, 6, s, n, &r[1]) == PLX_SUCCESS, "isend");
        drain_a_while(k);
        CHECK(k, k->ops->irecv(k->tl, me, 6, d, n, &r[0]) == PLX_SUCCESS, "irecv");
        wait_all(k, r, 2);
        CHECK(k, r[0].status == PLX_SUCCESS && r[0].bytes == n && check_fill(d, n, (unsigned)i),
              "self %zu (send first)", n);
        free(s);
        free(d);
    }
    /* a large self-send completes at once, before any receive is posted (a
     * blocking caller could never post one): the data is kept privately, so
     * the buffer may be freed at once (ASan watches) and the receive still
     * gets the bytes */
    {
        size_t n = 1u << 20;
        unsigned char *s = malloc(n), *d = malloc(n);
        plx_tl_req_t r[2];
        fill(s, n, 77);
        CHECK(k, k->ops->isend(k->tl, me, 11, s, n, &r[1]) == PLX_SUCCESS, "isend");
        CHECK(k, r[1].done && r[1].status == PLX_SUCCESS, "large self-send not complete at once");
        k->ops->cancel(k->tl, &r[1]);   /* harmless on a completed request */
        free(s);
        CHECK(k, k->ops->irecv(k->tl, me, 11, d, n, &r[0]) == PLX_SUCCESS, "irecv");
        wait1(k, &r[0]);
        CHECK(k, r[0].status == PLX_SUCCESS && r[0].bytes == n && check_fill(d, n, 77),
              "receive of a buffered large self-send: %d", (int)r[0].status);
        free(d);
    }
    /* more self messages than the ring holds, before any receive */
    enum { N = 600 };
    static unsigned char sbuf[N][1000], rbuf[N][1000];
    plx_tl_req_t sr[N], rr[N];
    for (int i = 0; i < N; i++) {
        fill(sbuf[i], sizeof sbuf[i], (unsigned)i);
        CHECK(k, k->ops->isend(k->tl, me, 9, sbuf[i], sizeof sbuf[i], &sr[i]) == PLX_SUCCESS, "isend");
    }
    for (int i = 0; i < N; i++)
        CHECK(k, k->ops->irecv(k->tl, me, 9, rbuf[i], sizeof rbuf[i], &rr[i]) == PLX_SUCCESS, "irecv");
    wait_all(k, rr, N);
    wait_all(k, sr, N);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += rr[i].status != PLX_SUCCESS || !check_fill(rbuf[i], sizeof rbuf[i], (unsigned)i);
    CHECK(k, bad == 0, "%d self messages wrong", bad);
}

static void body_truncate(rk_t *k)
{
    if (k->rank > 1) return;
    size_t e = k->eager;
    struct { size_t len, cap; } cs[] = {
        { 100, 10 }, { e, e - 1 }, { e + 1, e }, { 1u << 20, 1000 }, { 3u << 20, 0 }, { 5, 0 },
        { 2u << 20, (2u << 20) - 1 },
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        size_t n = cs[i].len, cap = cs[i].cap;
        if (k->rank == 0) {
            unsigned char *s = malloc(n);
            fill(s, n, (unsigned)i);
            CHECK(k, send_b(k, 1, 40 + i, s, n) == PLX_SUCCESS, "truncated send %zu completes OK", n);
            free(s);
        } else {
            unsigned char *d = malloc(cap + 16);
            memset(d, 0xee, cap + 16);
            size_t got = 0;
            plx_status_t st = recv_b(k, 0, 40 + i, cap ? d : NULL, cap, &got);
            CHECK(k, st == PLX_ERR_TRUNCATE, "status %d for %zu into %zu", (int)st, n, cap);
            CHECK(k, got == n, "bytes %zu, want %zu", got, n);
            CHECK(k, check_fill(d, cap, (unsigned)i), "prefix of truncated %zu", n);
            int canary = 1;
            for (int j = 0; j < 16; j++) canary &= d[cap + j] == 0xee;
            CHECK(k, canary, "wrote past the buffer (%zu into %zu)", n, cap);
            free(d);
        }
    }
}

/* Two large messages, received in the opposite order, the second receive
 * posted only after the first completed (the staging deadlock case); both
 * directions at once. */
static void body_opposite(rk_t *k)
{
    if (k->rank > 1) return;
    size_t n = 3u << 20;
    int peer = 1 - k->rank;
    unsigned char *a = malloc(n), *b = malloc(n), *ra = malloc(n), *rb = malloc(n);
    fill(a, n, 1u + 10u * (unsigned)k->rank);
    fill(b, n, 2u + 10u * (unsigned)k->rank);
    plx_tl_req_t s[2], r[2];
    CHECK(k, k->ops->isend(k->tl, peer, 1, a, n, &s[0]) == PLX_SUCCESS, "isend A");
    CHECK(k, k->ops->isend(k->tl, peer, 2, b, n, &s[1]) == PLX_SUCCESS, "isend B");
    CHECK(k, k->ops->irecv(k->tl, peer, 2, rb, n, &r[1]) == PLX_SUCCESS, "irecv B");
    wait1(k, &r[1]);
    CHECK(k, r[1].status == PLX_SUCCESS && check_fill(rb, n, 2u + 10u * (unsigned)peer), "B");
    CHECK(k, k->ops->irecv(k->tl, peer, 1, ra, n, &r[0]) == PLX_SUCCESS, "irecv A");
    wait1(k, &r[0]);
    CHECK(k, r[0].status == PLX_SUCCESS && check_fill(ra, n, 1u + 10u * (unsigned)peer), "A");
    wait_all(k, s, 2);
    CHECK(k, s[0].status == PLX_SUCCESS && s[1].status == PLX_SUCCESS, "sends");
    free(a); free(b); free(ra); free(rb);
}

/* Every rank to every rank (self included), mixed sizes, several rounds. */
static void body_alltoall(rk_t *k)
{
    enum { ROUNDS = 3, PER = 3 };
    int n = k->size;
    size_t e = k->eager;
    size_t sizes[PER] = { 64, e, 200000 };
    int m = n * ROUNDS * PER;
    plx_tl_req_t *sr = calloc((size_t)m, sizeof *sr), *rr = calloc((size_t)m, sizeof *rr);
    unsigned char **sb = calloc((size_t)m, sizeof *sb), **rb = calloc((size_t)m, sizeof *rb);
    double t0 = now_s();
    int idx = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (int j = 0; j < PER; j++)
            for (int d = 0; d < n; d++) {
                int to = (k->rank + d) % n, from = (k->rank - d + n) % n;
                uint64_t tag = (uint64_t)(round * PER + j);
                size_t len = sizes[j];
                sb[idx] = malloc(len);
                rb[idx] = malloc(len);
                fill(sb[idx], len, (unsigned)(k->rank * 1000 + to * 10) + (unsigned)tag);
                CHECK(k, k->ops->irecv(k->tl, from, tag, rb[idx], len, &rr[idx]) == PLX_SUCCESS, "irecv");
                CHECK(k, k->ops->isend(k->tl, to, tag, sb[idx], len, &sr[idx]) == PLX_SUCCESS, "isend");
                idx++;
            }
    wait_all(k, rr, m);
    wait_all(k, sr, m);
    idx = 0;
    int bad = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (int j = 0; j < PER; j++)
            for (int d = 0; d < n; d++) {
                int from = (k->rank - d + n) % n;
                unsigned tag = (unsigned)(round * PER + j);
                if (rr[idx].status != PLX_SUCCESS || rr[idx].bytes != sizes[j] ||
                    !check_fill(rb[idx], sizes[j], (unsigned)(from * 1000 + k->rank * 10) + tag))
                    bad++;
                if (sr[idx].status != PLX_SUCCESS) bad++;
                free(sb[idx]);
                free(rb[idx]);
                idx++;
            }
    CHECK(k, bad == 0, "%d all-to-all messages wrong", bad);
    if (k->rank == 0)
        printf("shm all-to-all: %d ranks, %d messages per rank, %.1f ms\n", n, m, 1e3 * (now_s() - t0));
    free(sr); free(rr); free(sb); free(rb);
}

/* Cancel posted, matched-large and sent-large requests; the pair must stay
 * in sync afterwards (staging counters, ids). */
static void body_cancel(rk_t *k)
{
    if (k->rank > 1) return;
    size_t big = 12u << 20;   /* more than one CMA step, so a cancel can land mid-pull */
    unsigned char *b = malloc(big), *c = malloc(big);
    size_t got;
    if (k->rank == 1) {
        /* 1. posted receive cancelled, the message goes to the next receive */
        plx_tl_req_t r;
        CHECK(k, k->ops->irecv(k->tl, 0, 5, c, 100, &r) == PLX_SUCCESS, "irecv");
        k->ops->cancel(k->tl, &r);
        barrier(k);
        CHECK(k, recv_b(k, 0, 5, b, 100, &got) == PLX_SUCCESS && got == 100 && check_fill(b, 100, 5),
              "message after a cancelled receive");
        /* 2. large receive cancelled once it started */
        CHECK(k, k->ops->irecv(k->tl, 0, 6, c, big, &r) == PLX_SUCCESS, "irecv");
        while (!r.done && !k->ops->progress(k->tl)) sched_yield();
        if (!r.done) k->ops->cancel(k->tl, &r);
        barrier(k);
        CHECK(k, recv_b(k, 0, 7, b, big, &got) == PLX_SUCCESS && got == big && check_fill(b, big, 7),
              "large message after a cancelled large receive");
        /* 3. sender cancelled before we posted */
        barrier(k);
        plx_status_t st = recv_b(k, 0, 8, b, big, &got);
        CHECK(k, st == PLX_SUCCESS || st == PLX_ERR_TRANSPORT, "receive of a cancelled send: %d", (int)st);
        CHECK(k, recv_b(k, 0, 9, b, big, &got) == PLX_SUCCESS && got == big && check_fill(b, big, 9),
              "large message after a cancelled send");
    } else {
        barrier(k);
        fill(b, 100, 5);
        CHECK(k, send_b(k, 1, 5, b, 100) == PLX_SUCCESS, "send 5");
        fill(b, big, 6);
        plx_tl_req_t s;
        CHECK(k, k->ops->isend(k->tl, 1, 6, b, big, &s) == PLX_SUCCESS, "isend 6");
        /* no wait before the barrier: a staged send needs the receiver's
         * progress to drain it, and the fake barrier does not progress */
        barrier(k);
        fill(c, big, 7);
        CHECK(k, send_b(k, 1, 7, c, big) == PLX_SUCCESS, "send 7");
        wait1(k, &s);   /* completes whether the receiver finished or cancelled */
        CHECK(k, s.status == PLX_SUCCESS, "send 6 status %d", (int)s.status);
        fill(b, big, 8);
        CHECK(k, k->ops->isend(k->tl, 1, 8, b, big, &s) == PLX_SUCCESS, "isend 8");
        k->ops->cancel(k->tl, &s);
        barrier(k);
        fill(c, big, 9);
        CHECK(k, send_b(k, 1, 9, c, big) == PLX_SUCCESS, "send 9");
    }
    free(b);
    free(c);
}

static void body_peer_failed(rk_t *k)
{
    if (k->rank == 2) _exit(0);   /* vanish without finalize */
    CHECK(k, k->ops->peer_status(k->tl, k->rank) == PLX_SUCCESS, "self alive");
    double deadline = now_s() + 10;
    plx_status_t st;
    while ((st = k->ops->peer_status(k->tl, 2)) == PLX_SUCCESS && now_s() < deadline) usleep(1000);
    CHECK(k, st == PLX_ERR_PEER_FAILED, "dead rank 2 reported %d", (int)st);
    CHECK(k, k->ops->peer_status(k->tl, 7) == PLX_ERR_INVALID_ARG, "out of range peer");
    /* the live peer cannot exit before it got our message, sent after the check */
    int peer = 1 - k->rank;
    char x = 1;
    if (k->rank == 0) {
        CHECK(k, k->ops->peer_status(k->tl, peer) == PLX_SUCCESS, "live peer");
        CHECK(k, send_b(k, peer, 1, &x, 1) == PLX_SUCCESS, "sync send");
        CHECK(k, recv_b(k, peer, 2, &x, 1, NULL) == PLX_SUCCESS, "sync recv");
    } else {
        CHECK(k, recv_b(k, peer, 1, &x, 1, NULL) == PLX_SUCCESS, "sync recv");
        CHECK(k, k->ops->peer_status(k->tl, peer) == PLX_SUCCESS, "live peer");
        CHECK(k, send_b(k, peer, 2, &x, 1) == PLX_SUCCESS, "sync send");
    }
}

/* peer_read / peer_write (the single-copy collectives' access to a peer's
 * memory): each rank reads the other's pattern and writes its own into the
 * other's second buffer; with CMA off both answer NOT_SUPPORTED. */
static void body_peer_access(rk_t *k)
{
    enum { LEN = (1 << 20) + 3 };   /* not a multiple of a page or a word */
    unsigned char *mine = malloc(LEN), *into = calloc(1, LEN), *got = malloc(LEN);
    int peer = 1 - k->rank;
    for (size_t i = 0; i < LEN; i++) mine[i] = (unsigned char)(i * 7 + (size_t)k->rank);
    uint64_t addr[2] = { (uint64_t)(uintptr_t)mine, (uint64_t)(uintptr_t)into }, theirs[2];
    if (k->rank == 0) {
        CHECK(k, send_b(k, peer, 9, addr, sizeof addr) == PLX_SUCCESS, "send addresses");
        CHECK(k, recv_b(k, peer, 9, theirs, sizeof theirs, NULL) == PLX_SUCCESS, "recv addresses");
    } else {
        CHECK(k, recv_b(k, peer, 9, theirs, sizeof theirs, NULL) == PLX_SUCCESS, "recv addresses");
        CHECK(k, send_b(k, peer, 9, addr, sizeof addr) == PLX_SUCCESS, "send addresses");
    }
    plx_status_t want = k->cma_off ? PLX_ERR_NOT_SUPPORTED : PLX_SUCCESS;
    CHECK(k, k->ops->peer_read(k->tl, peer, NULL, 0, 0) == want, "probe (len 0)");
    CHECK(k, k->ops->peer_read(k->tl, 7, got, theirs[0], 1) == PLX_ERR_NOT_SUPPORTED, "no such peer");
    plx_status_t st = k->ops->peer_read(k->tl, peer, got, theirs[0], LEN);
    CHECK(k, st == want, "peer_read returned %d", (int)st);
    if (st == PLX_SUCCESS) {
        size_t bad = 0;
        for (size_t i = 0; i < LEN; i++) bad += got[i] != (unsigned char)(i * 7 + (size_t)peer);
        CHECK(k, bad == 0, "%zu wrong bytes read", bad);
    }
    st = k->ops->peer_write(k->tl, peer, theirs[1] + 1, mine, LEN - 1);
    CHECK(k, st == want, "peer_write returned %d", (int)st);
    barrier(k);   /* both writes done */
    if (st == PLX_SUCCESS) {
        size_t bad = into[0] != 0;
        for (size_t i = 1; i < LEN; i++) bad += into[i] != (unsigned char)((i - 1) * 7 + (size_t)peer);
        CHECK(k, bad == 0, "%zu wrong bytes written into me", bad);
    }
    barrier(k);   /* nobody reads or writes our buffers any more */
    free(mine);
    free(into);
    free(got);
}

/* Control messages (FIN/CTS) and sends queued behind a full ring; a queued
 * send cancelled.  Run with a tiny ring (64 cells). */
static void body_ctrl_full(rk_t *k)
{
    enum { K = 200, BIG = 2 << 20 };
    unsigned char *big = malloc(BIG);
    static unsigned char msg[K][32];
    plx_tl_req_t sr[K + 1], rr[K + 1], lr;
    if (k->rank == 1) {
        for (int i = 0; i < K; i++) {
            fill(msg[i], sizeof msg[i], (unsigned)i);
            CHECK(k, k->ops->isend(k->tl, 0, (uint64_t)i, msg[i], sizeof msg[i], &sr[i]) == PLX_SUCCESS,
                  "isend");
        }
        CHECK(k, !sr[K - 1].done, "last send should be queued behind the full ring");
        k->ops->cancel(k->tl, &sr[K - 1]);
        CHECK(k, k->ops->isend(k->tl, 0, 999, msg[0], sizeof msg[0], &sr[K]) == PLX_SUCCESS, "isend");
        barrier(k);
        /* the FIN (CMA) or CTS (staging) must wait in the control queue */
        CHECK(k, recv_b(k, 0, 500, big, BIG, NULL) == PLX_SUCCESS && check_fill(big, BIG, 500),
              "large message while our ring is full");
        wait_all(k, sr, K - 1);
        wait1(k, &sr[K]);
        barrier(k);
    } else {
        fill(big, BIG, 500);
        CHECK(k, k->ops->isend(k->tl, 1, 500, big, BIG, &lr) == PLX_SUCCESS, "isend large");
        barrier(k);
        usleep(300000);   /* not progressing: rank 1's ring to us stays full */
        for (int i = 0; i < K - 1; i++)
            CHECK(k, k->ops->irecv(k->tl, 1, (uint64_t)i, msg[i], sizeof msg[i], &rr[i]) == PLX_SUCCESS,
                  "irecv");
        CHECK(k, k->ops->irecv(k->tl, 1, 999, msg[K - 1], sizeof msg[K - 1], &rr[K]) == PLX_SUCCESS,
              "irecv");
        wait_all(k, rr, K - 1);
        wait1(k, &rr[K]);
        wait1(k, &lr);
        CHECK(k, lr.status == PLX_SUCCESS, "large send status");
        int bad = 0;
        for (int i = 0; i < K - 1; i++) bad += !check_fill(msg[i], sizeof msg[i], (unsigned)i);
        CHECK(k, bad == 0, "%d queued messages wrong", bad);
        barrier(k);
        /* the cancelled send never arrives */
        CHECK(k, k->ops->irecv(k->tl, 1, (uint64_t)(K - 1), msg[0], sizeof msg[0], &rr[0]) == PLX_SUCCESS,
              "irecv");
        drain_a_while(k);
        CHECK(k, !rr[0].done, "a cancelled send was delivered");
        k->ops->cancel(k->tl, &rr[0]);
    }
    free(big);
}

/* Cancels that hit the staging protocol in its other states. */
static void body_cancel2(rk_t *k)
{
    if (k->rank > 1) return;
    size_t n = 3u << 20, big = 12u << 20;
    unsigned char *a = malloc(big), *b = malloc(big);
    plx_tl_req_t r[2];
    size_t got;
    /* A. receiver cancels a matched receive that has not asked for data yet */
    if (k->rank == 0) {
        fill(a, n, 20);
        fill(b, n, 21);
        CHECK(k, k->ops->isend(k->tl, 1, 20, a, n, &r[0]) == PLX_SUCCESS, "isend");
        CHECK(k, k->ops->isend(k->tl, 1, 21, b, n, &r[1]) == PLX_SUCCESS, "isend");
        barrier(k);
        wait_all(k, r, 2);
        CHECK(k, r[0].status == PLX_SUCCESS && r[1].status == PLX_SUCCESS, "sends of A/B");
    } else {
        barrier(k);
        drain_a_while(k);
        CHECK(k, k->ops->irecv(k->tl, 0, 20, a, n, &r[0]) == PLX_SUCCESS, "irecv");
        CHECK(k, k->ops->irecv(k->tl, 0, 21, b, n, &r[1]) == PLX_SUCCESS, "irecv");
        if (!r[1].done) k->ops->cancel(k->tl, &r[1]);
        wait1(k, &r[0]);
        CHECK(k, r[0].status == PLX_SUCCESS && check_fill(a, n, 20), "A after cancelling B");
    }
    /* B. sender cancels in the middle of streaming */
    if (k->rank == 1) {
        plx_status_t st = recv_b(k, 0, 22, a, big, &got);
        CHECK(k, st == PLX_SUCCESS || st == PLX_ERR_TRANSPORT, "receive of a send cancelled mid-way: %d",
              (int)st);
    } else {
        fill(a, big, 22);
        CHECK(k, k->ops->isend(k->tl, 1, 22, a, big, &r[0]) == PLX_SUCCESS, "isend");
        int ev = 0;
        double deadline = now_s() + WAIT_S;
        while (!r[0].done && ev < 4 && now_s() < deadline) {
            int e = k->ops->progress(k->tl);
            ev += e;
            if (!e) sched_yield();
        }
        if (!r[0].done) k->ops->cancel(k->tl, &r[0]);
    }
    /* the pair is still in step */
    int peer = 1 - k->rank;
    fill(b, n, 23u + (unsigned)k->rank);
    CHECK(k, k->ops->isend(k->tl, peer, 23, b, n, &r[1]) == PLX_SUCCESS, "isend");
    CHECK(k, recv_b(k, peer, 23, a, n, &got) == PLX_SUCCESS && got == n &&
             check_fill(a, n, 23u + (unsigned)peer), "exchange after cancels");
    wait1(k, &r[1]);
    free(a);
    free(b);
}

/* process_vm_readv refused at run time (the receiver drops its privileges
 * after init): the receive falls back to staging. */
static void body_runtime_eperm(rk_t *k)
{
    if (k->rank > 1) return;
    if (geteuid() != 0) {
        if (k->rank == 0) printf("runtime EPERM test skipped (needs root)\n");
        return;
    }
    if (k->rank == 1) {
        CHECK(k, setresuid(65534, 65534, 65534) == 0, "setresuid: %s", strerror(errno));
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* cleared by the credential change */
        prctl(PR_SET_DUMPABLE, 1);          /* let LeakSanitizer inspect us at exit */
    }
    barrier(k);
    size_t n = 3u << 20, got;
    unsigned char *b = malloc(n);
    for (int round = 0; round < 2; round++) {
        if (k->rank == 0) {
            fill(b, n, 30u + (unsigned)round);
            CHECK(k, send_b(k, 1, 30 + round, b, n) == PLX_SUCCESS, "send");
            CHECK(k, recv_b(k, 1, 40 + round, b, n, &got) == PLX_SUCCESS && check_fill(b, n, 40u + (unsigned)round),
                  "root reading the unprivileged rank");
        } else {
            CHECK(k, recv_b(k, 0, 30 + round, b, n, &got) == PLX_SUCCESS && got == n &&
                     check_fill(b, n, 30u + (unsigned)round), "round %d after EPERM", round);
            fill(b, n, 40u + (unsigned)round);
            CHECK(k, send_b(k, 0, 40 + round, b, n) == PLX_SUCCESS, "send");
        }
    }
    free(b);
}

/* The sender dies with a large message announced: the receive reports
 * PEER_FAILED; its eager message, already in the ring, still arrives. */
static void body_dead_sender(rk_t *k)
{
    size_t n = 3u << 20;
    unsigned char *b = malloc(n);
    plx_tl_req_t r[2];
    if (k->rank == 0) {
        fill(b, n, 1);
        CHECK(k, k->ops->isend(k->tl, 1, 1, b, n, &r[0]) == PLX_SUCCESS, "isend");
        CHECK(k, k->ops->isend(k->tl, 1, 2, b, 100, &r[1]) == PLX_SUCCESS, "isend");
        _exit(k->fails ? 1 : 0);
    }
    double deadline = now_s() + 10;
    while (k->ops->peer_status(k->tl, 0) == PLX_SUCCESS && now_s() < deadline) usleep(1000);
    CHECK(k, k->ops->peer_status(k->tl, 0) == PLX_ERR_PEER_FAILED, "rank 0 should be dead");
    size_t got;
    CHECK(k, recv_b(k, 0, 2, b, 100, &got) == PLX_SUCCESS && got == 100 && check_fill(b, 100, 1),
          "eager message of a dead rank");
    plx_status_t st = recv_b(k, 0, 1, b, n, &got);
    CHECK(k, st == PLX_ERR_PEER_FAILED, "large receive from a dead rank: %d", (int)st);
    free(b);
}

/* A live sender whose large buffer is gone (a user error: unmapped before
 * the send completed).  Rank 1's CMA read fails with EFAULT; the transport
 * cannot tell that from a dying process until the exit shows, so it decides
 * only after a grace period (2 s) -- and meanwhile its progress must go on
 * for other peers: rank 2's ping-pong completes while the pull is pending
 * (unless the ping-pong itself took a second, i.e. a loaded machine).  Then
 * the receive fails with PLX_ERR_TRANSPORT and the sender is told. */
static void body_bad_address(rk_t *k)
{
    size_t n = 2u << 20;
    plx_tl_req_t r;
    char ping[8] = "ping", pong[8] = { 0 };
    if (k->rank == 0) {
        unsigned char *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(k, b != MAP_FAILED, "mmap");
        fill(b, n, 3);
        CHECK(k, k->ops->isend(k->tl, 1, 1, b, n, &r) == PLX_SUCCESS, "isend");
        munmap(b, n);
        barrier(k);
        wait1(k, &r);
        CHECK(k, r.done && r.status != PLX_SUCCESS, "send of an unmapped buffer: %d", (int)r.status);
    } else if (k->rank == 2) {
        barrier(k);
        CHECK(k, recv_b(k, 1, 7, pong, sizeof pong, NULL) == PLX_SUCCESS, "go");
        CHECK(k, send_b(k, 1, 8, ping, sizeof ping) == PLX_SUCCESS, "reply");
    } else {
        unsigned char *b = malloc(n);
        barrier(k);   /* the RTS is in our ring */
        CHECK(k, k->ops->irecv(k->tl, 0, 1, b, n, &r) == PLX_SUCCESS, "irecv");
        drain_a_while(k);   /* matched, the read has failed at least once */
        double t0 = now_s();
        CHECK(k, send_b(k, 2, 7, ping, sizeof ping) == PLX_SUCCESS, "go");
        CHECK(k, recv_b(k, 2, 8, pong, sizeof pong, NULL) == PLX_SUCCESS && !strcmp(pong, "ping"),
              "reply");
        double took = now_s() - t0;
        CHECK(k, !r.done || took >= 1.0,
              "the failing pull was decided before a %.3f s ping-pong: progress waited in it", took);
        wait1(k, &r);
        CHECK(k, r.done && r.status == PLX_ERR_TRANSPORT, "receive from an unmapped buffer: %d",
              (int)r.status);
        free(b);
    }
}

/* Finalize with messages never received, receives never matched and
 * cancelled sends: nothing may leak (run under ASan) or hang. */
static void body_leftovers(rk_t *k)
{
    if (k->rank > 1) return;
    static unsigned char b[1 << 20];
    plx_tl_req_t r[4];
    if (k->rank == 0) {
        CHECK(k, k->ops->isend(k->tl, 1, 1, b, 100, &r[0]) == PLX_SUCCESS, "isend");
        CHECK(k, k->ops->isend(k->tl, 1, 2, b, 1000, &r[1]) == PLX_SUCCESS, "isend");
        CHECK(k, k->ops->isend(k->tl, 1, 3, b, sizeof b, &r[2]) == PLX_SUCCESS, "isend");
        CHECK(k, k->ops->isend(k->tl, 0, 4, b, 10, &r[3]) == PLX_SUCCESS, "self isend");
        barrier(k);
        barrier(k);
        k->ops->cancel(k->tl, &r[2]);   /* keep our buffer from being read after finalize */
    } else {
        CHECK(k, k->ops->irecv(k->tl, 0, 77, b, 10, &r[0]) == PLX_SUCCESS, "irecv");
        barrier(k);
        drain_a_while(k);
        barrier(k);
    }
}

/* A bootstrap that fails on its n-th allgather. */
typedef struct failing_boot {
    int calls, fail_at;
} failing_boot_t;

static plx_status_t failing_allgather(void *bp, const void *mine, void *all, size_t len)
{
    failing_boot_t *b = bp;
    if (++b->calls == b->fail_at) return PLX_ERR_TIMEOUT;
    memcpy(all, mine, len);   /* world of one */
    return PLX_SUCCESS;
}

/* Rank 0 (the node leader) runs unprivileged from the start, so its CMA
 * probe of root-owned rank 1 is refused at init: messages 1 -> 0 are staged,
 * 0 -> 1 still single-copy. */
static void preinit_drop_rank0(int rank)
{
    if (rank != 0 || geteuid() != 0) return;
    if (setresuid(65534, 65534, 65534) != 0) {
        perror("setresuid");
        exit(4);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_DUMPABLE, 1);
}

static void body_probe_refused(rk_t *k)
{
    if (k->rank > 1) return;
    size_t n = 3u << 20, got;
    int peer = 1 - k->rank;
    unsigned char *s = malloc(n), *d = malloc(n);
    fill(s, n, 60u + (unsigned)k->rank);
    plx_tl_req_t r;
    CHECK(k, k->ops->isend(k->tl, peer, 1, s, n, &r) == PLX_SUCCESS, "isend");
    CHECK(k, recv_b(k, peer, 1, d, n, &got) == PLX_SUCCESS && got == n &&
             check_fill(d, n, 60u + (unsigned)peer), "large message with CMA refused one way");
    wait1(k, &r);
    CHECK(k, r.status == PLX_SUCCESS, "send status");
    free(s);
    free(d);
}

/* Two "nodes": ranks {0,1} and {2,3,4}; each node gets its own segment. */
static const int two_nodes[] = { 0, 0, 1, 1, 1 };
static void body_multinode(rk_t *k)
{
    for (int p = 0; p < k->size; p++)
        CHECK(k, k->ops->reachable(k->tl, p) == (two_nodes[p] == two_nodes[k->rank]), "reachable %d", p);
    CHECK(k, !k->ops->reachable(k->tl, -1) && !k->ops->reachable(k->tl, k->size), "out of range");
    plx_tl_req_t r;
    int other = two_nodes[k->rank] == 0 ? 2 : 0;
    CHECK(k, k->ops->isend(k->tl, other, 1, "x", 1, &r) == PLX_ERR_INVALID_ARG, "send off node");
    CHECK(k, k->ops->irecv(k->tl, 0, 1, NULL, 5, &r) == PLX_ERR_INVALID_ARG, "NULL buffer");
    /* ring within each node: rank -> next local rank */
    int base = two_nodes[k->rank] == 0 ? 0 : 2, cnt = two_nodes[k->rank] == 0 ? 2 : 3;
    int to = base + (k->rank - base + 1) % cnt, from = base + (k->rank - base + cnt - 1) % cnt;
    size_t n = 1u << 20;
    unsigned char *s = malloc(n), *d = malloc(n);
    fill(s, n, (unsigned)k->rank);
    plx_tl_req_t rq[2];
    CHECK(k, k->ops->irecv(k->tl, from, 3, d, n, &rq[0]) == PLX_SUCCESS, "irecv");
    CHECK(k, k->ops->isend(k->tl, to, 3, s, n, &rq[1]) == PLX_SUCCESS, "isend");
    wait_all(k, rq, 2);
    CHECK(k, rq[0].status == PLX_SUCCESS && check_fill(d, n, (unsigned)from), "node-local ring");
    free(s);
    free(d);
}

/* Round trip of n bytes: mean over all iterations and best batch of 1000
 * (the best batch shows the transport, the mean shows the machine's load). */
static void pingpong_time(rk_t *k, size_t n, int iters, double *rt_us, double *best_us)
{
    unsigned char *b = malloc(n + 1);
    memset(b, 1, n);
    int peer = 1 - k->rank;
    double t0 = 0, tb = 0, best = 1e30;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0) t0 = tb = now_s();
        if (k->rank == 0) {
            send_b(k, peer, 1, b, n);
            recv_b(k, peer, 2, b, n, NULL);
        } else {
            recv_b(k, peer, 1, b, n, NULL);
            send_b(k, peer, 2, b, n);
        }
        if (i >= 0 && i % 1000 == 999) {
            double t = now_s();
            if (t - tb < best) best = t - tb;
            tb = t;
        }
    }
    *rt_us = 1e6 * (now_s() - t0) / iters;
    *best_us = best < 1e30 ? 1e6 * best / 1000 : *rt_us;
    free(b);
}

static void body_bw(rk_t *k)
{
    if (k->rank > 1) return;
    size_t n = 64u << 20;
    int reps = 6;
    unsigned char *b = malloc(n);
    memset(b, 3, n);
    double t0 = 0, best = 1e30;
    for (int i = -1; i < reps; i++) {
        double ti = now_s();
        if (i == 0) t0 = ti;
        if (k->rank == 0) {
            send_b(k, 1, 3, b, n);
            recv_b(k, 1, 4, NULL, 0, NULL);   /* zero-byte ack: the receiver has it all */
        } else {
            recv_b(k, 0, 3, b, n, NULL);
            send_b(k, 0, 4, NULL, 0);
        }
        if (i >= 0 && now_s() - ti < best) best = now_s() - ti;
    }
    double dt = (now_s() - t0) / reps;
    if (k->rank == 0)
        printf("shm perf (%s): 64 MiB transfer %.2f ms mean (%.2f GB/s), best %.2f ms (%.2f GB/s)\n",
               k->cma_off ? "staging, CMA off" : "CMA single copy", 1e3 * dt, (double)n / dt / 1e9,
               1e3 * best, (double)n / best / 1e9);
    free(b);
    fflush(stdout);
}

static void body_perf(rk_t *k)
{
    if (k->rank > 1) return;
    double rt, best;
    pingpong_time(k, 8, 20000, &rt, &best);
    if (k->rank == 0)
        printf("shm perf: 8-byte ping-pong round trip %.2f us mean, %.2f us best batch "
               "(one way %.2f us)\n", rt, best, best / 2);
    fflush(stdout);
    body_bw(k);
}

/* Eager/large crossover: half round trip around the threshold. */
static void body_sizes(rk_t *k)
{
    if (k->rank > 1) return;
    size_t sizes[] = { 1024, 4096, 8192, 16384, 32768 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double rt, best;
        pingpong_time(k, sizes[i], 3000, &rt, &best);
        if (k->rank == 0)
            printf("shm perf (eager_max %zu, %s): %6zu B one way %.2f us (best batch), %.2f us (mean)\n",
                   k->eager, k->cma_off ? "CMA off" : "CMA auto", sizes[i], best / 2, rt / 2);
    }
    fflush(stdout);
}

/* ---- tests --------------------------------------------------------------- */

START_TEST(t_pingpong)   { ck_assert_int_eq(run_job(2, NULL, body_pingpong, NULL, 0), 0); }
END_TEST
START_TEST(t_tag_order)  { ck_assert_int_eq(run_job(2, NULL, body_tag_order, NULL, 0), 0); }
END_TEST
START_TEST(t_unexpected) { ck_assert_int_eq(run_job(3, NULL, body_unexpected, NULL, 0), 0); }
END_TEST
START_TEST(t_many)       { ck_assert_int_eq(run_job(2, NULL, body_many, NULL, 0), 0); }
END_TEST
START_TEST(t_many_tiny_ring)
{
    static const char *const env[] = { "PLX_SHM_RING_BYTES=4096", "PLX_SHM_EAGER_MAX=1024",
                                       "PLX_SHM_STAGE_BYTES=8192", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_many, env, 0), 0);
}
END_TEST
START_TEST(t_self1)      { ck_assert_int_eq(run_job(1, NULL, body_self, NULL, 0), 0); }
END_TEST
START_TEST(t_self2)      { ck_assert_int_eq(run_job(2, NULL, body_self, NULL, 0), 0); }
END_TEST
START_TEST(t_truncate)   { ck_assert_int_eq(run_job(2, NULL, body_truncate, NULL, 0), 0); }
END_TEST
START_TEST(t_opposite)   { ck_assert_int_eq(run_job(2, NULL, body_opposite, NULL, 0), 0); }
END_TEST
START_TEST(t_cancel)     { ck_assert_int_eq(run_job(2, NULL, body_cancel, NULL, 0), 0); }
END_TEST

START_TEST(t_stage_pingpong)   { ck_assert_int_eq(run_job(2, NULL, body_pingpong, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_tag_order)  { ck_assert_int_eq(run_job(2, NULL, body_tag_order, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_unexpected) { ck_assert_int_eq(run_job(2, NULL, body_unexpected, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_many)       { ck_assert_int_eq(run_job(2, NULL, body_many, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_self)       { ck_assert_int_eq(run_job(1, NULL, body_self, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_truncate)   { ck_assert_int_eq(run_job(2, NULL, body_truncate, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_opposite)   { ck_assert_int_eq(run_job(2, NULL, body_opposite, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_cancel)     { ck_assert_int_eq(run_job(2, NULL, body_cancel, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_stage_small_chunks)
{
    static const char *const env[] = { "PLX_SHM_CMA=0", "PLX_SHM_STAGE_BYTES=4096", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_opposite, env, 0), 0);
}
END_TEST

START_TEST(t_alltoall5)       { ck_assert_int_eq(run_job(5, NULL, body_alltoall, NULL, 1), 0); }
END_TEST
START_TEST(t_stage_alltoall5) { ck_assert_int_eq(run_job(5, NULL, body_alltoall, env_cma_off, 1), 0); }
END_TEST
START_TEST(t_ctrl_full)
{
    static const char *const env[] = { "PLX_SHM_RING_BYTES=4096", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_ctrl_full, env, 0), 0);
}
END_TEST
START_TEST(t_stage_ctrl_full)
{
    static const char *const env[] = { "PLX_SHM_RING_BYTES=4096", "PLX_SHM_CMA=0", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_ctrl_full, env, 0), 0);
}
END_TEST
START_TEST(t_cancel2)          { ck_assert_int_eq(run_job(2, NULL, body_cancel2, NULL, 0), 0); }
END_TEST
START_TEST(t_stage_cancel2)    { ck_assert_int_eq(run_job(2, NULL, body_cancel2, env_cma_off, 0), 0); }
END_TEST
/* these provoke warnings on purpose: keep the log to errors */
static const char *const env_quiet[] = { "PLX_LOG=error", NULL };
START_TEST(t_runtime_eperm)    { ck_assert_int_eq(run_job(2, NULL, body_runtime_eperm, env_quiet, 0), 0); }
END_TEST
START_TEST(t_dead_sender)      { ck_assert_int_eq(run_job(2, NULL, body_dead_sender, env_quiet, 0), 0); }
END_TEST
START_TEST(t_bad_address)      { ck_assert_int_eq(run_job(3, NULL, body_bad_address, env_quiet, 0), 0); }
END_TEST
START_TEST(t_leftovers)       { ck_assert_int_eq(run_job(2, NULL, body_leftovers, NULL, 0), 0); }
END_TEST
START_TEST(t_init_boot_fails)
{
    /* the bootstrap fails during the first, then the second exchange: init
     * returns an error, frees everything and leaves nothing in /dev/shm */
    for (int at = 1; at <= 2; at++) {
        char job[32];
        snprintf(job, sizeof job, "f%dx%d", (int)getpid(), at);
        failing_boot_t fb = { 0, at };
        int node_of[1] = { 0 };
        plx_tl_env_t env = {
            .rank = 0, .size = 1, .node_of = node_of, .nnodes = 1, .job_id = job, .timeout_s = 1,
            .boot = &fb, .allgather = failing_allgather, .barrier = NULL,
        };
        void *tl = (void *)1;
        plx_log_level = PLX_LOG_NONE;
        plx_status_t st = plx_tl_shm_ops.init(&env, &tl);
        ck_assert_int_eq(st, PLX_ERR_TIMEOUT);
        ck_assert_ptr_null(tl);
        ck_assert_int_eq(count_devshm(job), 0);
        ck_assert_int_eq(fb.calls, at);
    }
}
END_TEST
START_TEST(t_probe_refused)
{
    if (geteuid() != 0) printf("CMA probe refusal test runs only as root (skipped)\n");
    g_preinit = preinit_drop_rank0;
    ck_assert_int_eq(run_job(2, NULL, body_probe_refused, env_quiet, 0), 0);
}
END_TEST
START_TEST(t_probe_refused_forced)
{
    static const char *const env[] = { "PLX_SHM_CMA=1", "PLX_LOG=none", NULL };
    g_preinit = preinit_drop_rank0;
    g_expect_init_fail = geteuid() == 0;   /* all ranks of the node fail together */
    ck_assert_int_eq(run_job(2, NULL, body_probe_refused, env, 0), 0);
}
END_TEST
START_TEST(t_peer_failed)     { ck_assert_int_eq(run_job(3, NULL, body_peer_failed, NULL, 0), 0); }
END_TEST
START_TEST(t_peer_access)     { ck_assert_int_eq(run_job(2, NULL, body_peer_access, NULL, 0), 0); }
END_TEST
START_TEST(t_stage_peer_access) { ck_assert_int_eq(run_job(2, NULL, body_peer_access, env_cma_off, 0), 0); }
END_TEST
START_TEST(t_multinode)       { ck_assert_int_eq(run_job(5, two_nodes, body_multinode, NULL, 1), 0); }
END_TEST
START_TEST(t_env_bad_values)
{
    static const char *const env[] = { "PLX_SHM_CMA=maybe", "PLX_SHM_EAGER_MAX=lots",
                                       "PLX_SHM_RING_BYTES=-5", "PLX_LOG=error", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_pingpong, env, 0), 0);
}
END_TEST
START_TEST(t_env_cma_forced)
{
    static const char *const env[] = { "PLX_SHM_CMA=1", "PLX_SHM_EAGER_MAX=100", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_pingpong, env, 0), 0);
}
END_TEST
START_TEST(t_init_bad_args)
{
    void *tl = (void *)1;
    ck_assert_int_eq(plx_tl_shm_ops.init(NULL, &tl), PLX_ERR_INVALID_ARG);
    ck_assert_ptr_null(tl);
    plx_tl_env_t env;
    memset(&env, 0, sizeof env);
    env.size = 2;
    env.rank = 3;
    ck_assert_int_eq(plx_tl_shm_ops.init(&env, &tl), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_tl_shm_ops.progress(NULL), 0);
}
END_TEST
START_TEST(t_perf)
{
    /* the 8-byte round trip does not depend on CMA: measure it once */
    ck_assert_int_eq(run_job(2, NULL, body_perf, NULL, 0), 0);
    ck_assert_int_eq(run_job(2, NULL, body_bw, env_cma_off, 0), 0);
}
END_TEST
START_TEST(t_perf_sizes)
{
    static const char *const e4[] = { "PLX_SHM_EAGER_MAX=4096", NULL };
    static const char *const e32[] = { "PLX_SHM_EAGER_MAX=32768", NULL };
    ck_assert_int_eq(run_job(2, NULL, body_sizes, e4, 0), 0);
    ck_assert_int_eq(run_job(2, NULL, body_sizes, e32, 0), 0);
}
END_TEST

static Suite *shm_suite(void)
{
    Suite *s = suite_create("shm");
    struct { const char *name; const TTest *t; } all[] = {
        { "basic", t_init_bad_args }, { "basic", t_init_boot_fails }, { "basic", t_leftovers },
        { "basic", t_pingpong }, { "basic", t_tag_order }, { "basic", t_unexpected },
        { "basic", t_many }, { "basic", t_many_tiny_ring }, { "basic", t_self1 },
        { "basic", t_self2 }, { "basic", t_truncate }, { "basic", t_opposite },
        { "basic", t_cancel }, { "basic", t_cancel2 }, { "basic", t_ctrl_full },
        { "basic", t_peer_access },
        { "staging", t_stage_pingpong }, { "staging", t_stage_tag_order },
        { "staging", t_stage_unexpected }, { "staging", t_stage_many }, { "staging", t_stage_self },
        { "staging", t_stage_truncate }, { "staging", t_stage_opposite },
        { "staging", t_stage_cancel }, { "staging", t_stage_small_chunks },
        { "staging", t_stage_cancel2 }, { "staging", t_stage_ctrl_full },
        { "staging", t_runtime_eperm }, { "staging", t_probe_refused },
        { "staging", t_probe_refused_forced }, { "staging", t_stage_peer_access },
        { "ranks", t_alltoall5 }, { "ranks", t_stage_alltoall5 }, { "ranks", t_peer_failed },
        { "ranks", t_dead_sender }, { "ranks", t_bad_address },
        { "ranks", t_multinode }, { "env", t_env_bad_values }, { "env", t_env_cma_forced },
        { "perf", t_perf },
    };
    TCase *cur = NULL;
    const char *curname = NULL;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!curname || strcmp(curname, all[i].name)) {
            cur = tcase_create(all[i].name);
            tcase_set_timeout(cur, 120);
            suite_add_tcase(s, cur);
            curname = all[i].name;
        }
        tcase_add_test(cur, all[i].t);
    }
    /* the eager/large crossover measurement only on request */
    if (getenv("PLX_SHM_TEST_SIZES")) {
        TCase *tc = tcase_create("sizes");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, t_perf_sizes);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(shm_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
