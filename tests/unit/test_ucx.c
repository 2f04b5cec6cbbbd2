/*
 * tests/unit/test_ucx.c — Check tests of the UCX transport (transports/ucx)
 * through its ops table, with real processes and real UCX (no mocks).
 *
 * Each test forks N ranks sharing a fake bootstrap (allgather/barrier
 * through an anonymous MAP_SHARED region made before fork, bounded waits),
 * as tests/unit/test_shm.c does.  Every wait loop spins a little and then
 * sched_yield()s: tests run up to 4 ranks on 2 cores.  A rank reports
 * failures through its exit status; the parent kills everyone on timeout.
 *
 * Every body runs twice: with the UCX configuration of the environment and
 * with UCX_TLS=tcp (the network path).  With UCX_TLS unset, UCX 1.13 still
 * uses tcp between these processes: its shared-memory transports cannot
 * detect a peer failure, which the transport's error mode PEER requires
 * (transports/ucx/README.md).  The perf test prints a ping-pong round trip
 * and bandwidth (no assertion on speed: this machine's timing noise is
 * large).  TEST_UCX_ONLY=name,... runs only some bodies.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "transport.h"

#define MAXR     6
#define BLOBMAX  8192     /* a UCX worker address is a few hundred bytes */
#define WAIT_S   40.0     /* bound of any wait inside a rank */
#define JOB_S    100.0    /* bound of a whole job, below the Check timeout */
#define EAGER    8192     /* UCX_EAGER_MAX of transports/ucx (the RTS/CTS crossover) */
#define KILL_BOUND_S 15.0 /* a killed peer must be reported within this */

#include "tl_harness.h"

/* ---- per-rank harness ---------------------------------------------------- */

typedef struct rk {
    int rank, size;
    void *tl;
    const plx_tl_ops_t *ops;
    fake_boot_t boot;
    int node_of[MAXR];
    int fails;
    int tcp;             /* UCX_TLS=tcp in this job */
    int no_final_barrier;   /* a rank of the job dies: nobody can barrier at the end */
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
        else if (++idle > 64) sched_yield();
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
    double end = now_s() + 0.2;
    while (now_s() < end)
        if (!k->ops->progress(k->tl)) sched_yield();
}

static void barrier(rk_t *k)
{
    CHECK(k, fb_barrier(&k->boot) == PLX_SUCCESS, "fake barrier");
}

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

/* Tags look like the core's: comm id, flag, sequence, low 8 bits zero. */
static uint64_t T(uint64_t comm, uint64_t seq) { return (comm << 40) | (seq << 8); }

typedef void (*body_fn)(rk_t *k);

static void rank_main(int rank, int n, fake_shared_t *sh, body_fn body, int tcp, int killed)
{
    rk_t k;
    memset(&k, 0, sizeof k);
    k.rank = rank;
    k.size = n;
    k.ops = &plx_tl_ucx_ops;
    k.boot.sh = sh;
    k.boot.rank = rank;
    k.boot.size = n;
    k.tcp = tcp;
    k.no_final_barrier = killed >= 0;
    if (tcp) setenv("UCX_TLS", "tcp", 1);
    plx_log_init(rank);
    plx_tl_env_t env = {
        .rank = rank, .size = n, .node_of = k.node_of, .nnodes = 1, .job_id = "ucxtest",
        .timeout_s = WAIT_S, .log_level = plx_log_level, .boot = &k.boot,
        .allgather = fb_allgather, .barrier = fb_barrier,
    };
    plx_status_t st = k.ops->init(&env, &k.tl);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "rank %d: init failed: %d\n", rank, (int)st);
        exit(2);
    }
    barrier(&k);
    body(&k);
    /* like the core's plx_finalize: nobody leaves while others may still talk to it */
    if (!k.no_final_barrier) barrier(&k);
    double t0 = now_s();
    k.ops->finalize(k.tl);
    double tf = now_s() - t0;
    if (tf > 10.0) {
        fprintf(stderr, "rank %d: finalize took %.1f s\n", rank, tf);
        k.fails++;
    }
    exit(k.fails ? 1 : 0);
}

/* Fork n ranks running body; returns how many failed.  Rank `killed` (or -1)
 * is expected to die of SIGKILL. */
static int run_job_k(int n, body_fn body, int tcp, int killed)
{
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
            rank_main(r, n, sh, body, tcp, killed);
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
                    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
                    if (r == killed) ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
                    if (!ok) {
                        fprintf(stderr, "rank %d failed (%s %d)\n", r,
                                WIFEXITED(status) ? "exit" : "signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
                        failed++;
                    }
                }
            continue;
        }
        if (now_s() > deadline) {
            fprintf(stderr, "job timed out; killing %d ranks\n", left);
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
    return failed;
}

static int run_job(int n, body_fn body, int tcp) { return run_job_k(n, body, tcp, -1); }

/* ---- bodies -------------------------------------------------------------- */

static const size_t pp_sizes[] = { 0, 1, 8, 100, 4096, EAGER, EAGER + 1, 65536, 1u << 20, 5u << 20 };
#define NPP (sizeof pp_sizes / sizeof pp_sizes[0])

/* Every size both ways (receive posted first on one side, not on the other). */
static void body_pingpong(rk_t *k)
{
    if (k->rank > 1) return;
    int peer = 1 - k->rank;
    for (size_t i = 0; i < NPP; i++) {
        size_t n = pp_sizes[i], got = 0;
        unsigned char *b = malloc(n + 1);
        if (k->rank == 0) {
            fill(b, n, (unsigned)i);
            CHECK(k, send_b(k, peer, T(1, 10 + i), b, n) == PLX_SUCCESS, "send %zu", n);
            memset(b, 0, n);
            CHECK(k, recv_b(k, peer, T(1, 20 + i), b, n, &got) == PLX_SUCCESS, "recv back %zu", n);
            CHECK(k, got == n && check_fill(b, n, (unsigned)i + 100), "echo of %zu bytes", n);
        } else {
            CHECK(k, recv_b(k, peer, T(1, 10 + i), b, n, &got) == PLX_SUCCESS, "recv %zu", n);
            CHECK(k, got == n && check_fill(b, n, (unsigned)i), "payload of %zu bytes", n);
            fill(b, n, (unsigned)i + 100);
            CHECK(k, send_b(k, peer, T(1, 20 + i), b, n) == PLX_SUCCESS, "send back %zu", n);
        }
        free(b);
    }
    /* argument checks */
    plx_tl_req_t r;
    CHECK(k, k->ops->isend(k->tl, k->size, 1, "x", 1, &r) == PLX_ERR_INVALID_ARG, "peer out of range");
    CHECK(k, k->ops->irecv(k->tl, -1, 1, NULL, 0, &r) == PLX_ERR_INVALID_ARG, "peer -1");
    CHECK(k, k->ops->irecv(k->tl, peer, 1, NULL, 5, &r) == PLX_ERR_INVALID_ARG, "NULL buffer");
    CHECK(k, k->ops->reachable(k->tl, 0) && k->ops->reachable(k->tl, 1) &&
             !k->ops->reachable(k->tl, 2) && !k->ops->reachable(k->tl, -1), "reachable");
    CHECK(k, k->ops->peer_status(k->tl, peer) == PLX_SUCCESS, "peer alive");
    CHECK(k, k->ops->peer_status(k->tl, k->rank) == PLX_SUCCESS, "self alive");
}

/* Messages to oneself: unexpected (small and large, FIFO), pre-posted, truncated. */
static void body_self(rk_t *k)
{
    int me = k->rank;
    size_t big = 3u << 20;
    unsigned char *s1 = malloc(big), *s2 = malloc(big), *d = malloc(big);
    plx_tl_req_t r[4];
    size_t got;
    fill(s1, 100, 1);
    fill(s2, big, 2);
    /* unexpected: 100 B (tag 1), 3 MiB (tag 2), 50 B (tag 1) -- all complete at once */
    CHECK(k, k->ops->isend(k->tl, me, T(2, 1), s1, 100, &r[0]) == PLX_SUCCESS, "self isend");
    CHECK(k, k->ops->isend(k->tl, me, T(2, 2), s2, big, &r[1]) == PLX_SUCCESS, "self isend large");
    CHECK(k, k->ops->isend(k->tl, me, T(2, 1), s1 + 100, 0, &r[2]) == PLX_SUCCESS, "self isend 0");
    CHECK(k, r[0].done && r[1].done && r[2].done, "self sends complete at once");
    memset(s2, 0, big);   /* the transport kept its own copy */
    CHECK(k, recv_b(k, me, T(2, 2), d, big, &got) == PLX_SUCCESS && got == big &&
             check_fill(d, big, 2), "self large unexpected");
    CHECK(k, recv_b(k, me, T(2, 1), d, 1000, &got) == PLX_SUCCESS && got == 100 &&
             check_fill(d, 100, 1), "self FIFO first");
    CHECK(k, recv_b(k, me, T(2, 1), d, 1000, &got) == PLX_SUCCESS && got == 0, "self FIFO second");
    /* pre-posted */
    CHECK(k, k->ops->irecv(k->tl, me, T(2, 3), d, big, &r[0]) == PLX_SUCCESS, "self irecv");
    CHECK(k, !r[0].done, "nothing yet");
    fill(s2, big, 3);
    CHECK(k, send_b(k, me, T(2, 3), s2, big) == PLX_SUCCESS, "self send");
    CHECK(k, r[0].done && r[0].status == PLX_SUCCESS && r[0].bytes == big && check_fill(d, big, 3),
          "self pre-posted");
    /* truncation */
    CHECK(k, send_b(k, me, T(2, 4), s2, big) == PLX_SUCCESS, "self send");
    memset(d, 0xee, big);
    CHECK(k, recv_b(k, me, T(2, 4), d, 1000, &got) == PLX_ERR_TRUNCATE && got == big &&
             check_fill(d, 1000, 3) && d[1000] == 0xee, "self truncation");
    free(s1);
    free(s2);
    free(d);
}

/* Rank 0 sends a mix to rank 1: first unexpected (rank 1 has not posted),
 * then pre-posted (rank 1 posted before rank 0 sends). */
#define NMIX 8
static size_t mix_size(int i)
{
    static const size_t s[] = { 10, 300000, EAGER, 0, EAGER + 1, 2u << 20, 4000, 65536 };
    return s[i % 8];
}

static void body_unexpected(rk_t *k)
{
    if (k->rank > 1) return;
    unsigned char *b[NMIX];
    plx_tl_req_t r[NMIX];
    for (int round = 0; round < 2; round++) {
        int pre = round == 1;
        for (int i = 0; i < NMIX; i++) b[i] = malloc(mix_size(i) + 1);
        if (k->rank == 0) {
            if (pre) barrier(k);
            for (int i = 0; i < NMIX; i++) {
                fill(b[i], mix_size(i), 50u + (unsigned)i);
                CHECK(k, k->ops->isend(k->tl, 1, T(3, (uint64_t)i), b[i], mix_size(i), &r[i]) ==
                             PLX_SUCCESS, "isend");
            }
            if (!pre) barrier(k);
            wait_all(k, r, NMIX);
            for (int i = 0; i < NMIX; i++)
                CHECK(k, r[i].status == PLX_SUCCESS && r[i].bytes == mix_size(i), "send %d", i);
        } else {
            if (!pre) {
                barrier(k);        /* sends are out */
                drain_a_while(k);  /* they are unexpected now */
            }
            /* post in a scrambled order */
            for (int j = 0; j < NMIX; j++) {
                int i = (j * 3 + 1) % NMIX;
                CHECK(k, k->ops->irecv(k->tl, 0, T(3, (uint64_t)i), b[i], mix_size(i), &r[i]) ==
                             PLX_SUCCESS, "irecv");
            }
            if (pre) {
                for (int i = 0; i < NMIX; i++) CHECK(k, !r[i].done, "posted receive %d done early", i);
                barrier(k);
            }
            wait_all(k, r, NMIX);
            for (int i = 0; i < NMIX; i++)
                CHECK(k, r[i].status == PLX_SUCCESS && r[i].bytes == mix_size(i) &&
                             check_fill(b[i], mix_size(i), 50u + (unsigned)i),
                      "%s message %d (%zu bytes)", pre ? "pre-posted" : "unexpected", i, mix_size(i));
        }
        for (int i = 0; i < NMIX; i++) free(b[i]);
    }
}

/* Equal (source, tag): arrival order is send order, eager and large mixed,
 * unexpected and pre-posted; distinct tags received in reverse order. */
#define NF 12
static void body_fifo(rk_t *k)
{
    if (k->rank > 1) return;
    unsigned char *b[NF];
    plx_tl_req_t r[NF];
    size_t sz[NF];
    for (int i = 0; i < NF; i++) {
        sz[i] = (i % 3 == 0) ? 16 + (size_t)i : (i % 3 == 1) ? EAGER + 1 + (size_t)i * 1000
                                                           : 200000 + (size_t)i;
        b[i] = malloc(sz[i]);
    }
    for (int round = 0; round < 3; round++) {
        /* round 0: same tag, receives posted after arrival; 1: same tag,
         * pre-posted with big enough buffers; 2: distinct tags, posted in reverse */
        uint64_t tag = T(4, 77 + (uint64_t)round);
        if (k->rank == 0) {
            if (round > 0) barrier(k);
            for (int i = 0; i < NF; i++) {
                fill(b[i], sz[i], 500u * (unsigned)round + (unsigned)i);
                uint64_t tg = round == 2 ? T(5, (uint64_t)i) : tag;
                CHECK(k, k->ops->isend(k->tl, 1, tg, b[i], sz[i], &r[i]) == PLX_SUCCESS, "isend");
            }
            if (round == 0) barrier(k);
            wait_all(k, r, NF);
            for (int i = 0; i < NF; i++) CHECK(k, r[i].status == PLX_SUCCESS, "send %d", i);
        } else {
            if (round == 0) {
                barrier(k);
                drain_a_while(k);
            }
            for (int j = 0; j < NF; j++) {
                int i = round == 2 ? NF - 1 - j : j;
                uint64_t tg = round == 2 ? T(5, (uint64_t)i) : tag;
                size_t cap = round == 2 ? sz[i] : 300000;
                unsigned char *dst = b[i];
                if (round != 2) {
                    free(b[i]);
                    b[i] = dst = malloc(cap);
                }
                CHECK(k, k->ops->irecv(k->tl, 0, tg, dst, cap, &r[i]) == PLX_SUCCESS, "irecv");
            }
            if (round > 0) barrier(k);
            wait_all(k, r, NF);
            for (int i = 0; i < NF; i++)
                CHECK(k, r[i].status == PLX_SUCCESS && r[i].bytes == sz[i] &&
                             check_fill(b[i], sz[i], 500u * (unsigned)round + (unsigned)i),
                      "round %d: receive %d got %zu bytes (want %zu)", round, i, r[i].bytes, sz[i]);
        }
    }
    for (int i = 0; i < NF; i++) free(b[i]);
}

/* Shorter receives: TRUNCATE, bytes = full length, the prefix delivered,
 * nothing past the buffer; the sender succeeds; the stream goes on. */
static void body_truncate(rk_t *k)
{
    if (k->rank > 1) return;
    size_t sizes[] = { 1000, EAGER + 1, 4u << 20, 4u << 20 };
    size_t caps[] = { 100, EAGER, 1u << 20, 10 };
    int nt = 4;
    for (int i = 0; i < nt; i++) {
        unsigned char *b = malloc(sizes[i] + 16);
        if (k->rank == 0) {
            fill(b, sizes[i], 70u + (unsigned)i);
            CHECK(k, send_b(k, 1, T(6, (uint64_t)i), b, sizes[i]) == PLX_SUCCESS, "send %d", i);
        } else {
            size_t got = 0;
            memset(b, 0xee, sizes[i] + 16);
            plx_status_t st = recv_b(k, 0, T(6, (uint64_t)i), b, caps[i], &got);
            CHECK(k, st == PLX_ERR_TRUNCATE && got == sizes[i], "truncate %d: status %d bytes %zu", i,
                  (int)st, got);
            CHECK(k, check_fill(b, caps[i], 70u + (unsigned)i) && b[caps[i]] == 0xee,
                  "truncate %d: prefix and nothing past it", i);
        }
        free(b);
    }
    /* still in step */
    char m[8] = "after";
    if (k->rank == 0) CHECK(k, send_b(k, 1, T(6, 99), m, 6) == PLX_SUCCESS, "send after");
    else {
        char g[8] = "";
        size_t got;
        CHECK(k, recv_b(k, 0, T(6, 99), g, 8, &got) == PLX_SUCCESS && got == 6 && !strcmp(g, "after"),
              "message after truncations");
    }
}

/* Cancel: a posted receive (small and large) never takes a message; a large
 * send cancelled before its receive existed ends that receive with an error;
 * a cancelled eager send in flight is harmless. */
static void body_cancel(rk_t *k)
{
    if (k->rank > 1) return;
    size_t big = 1u << 20;
    unsigned char *a = malloc(big), *b = malloc(big), *s = malloc(big);
    plx_tl_req_t r[4];
    size_t got;
    if (k->rank == 1) {
        memset(a, 0x11, big);
        CHECK(k, k->ops->irecv(k->tl, 0, T(7, 1), a, 64, &r[0]) == PLX_SUCCESS, "irecv");
        CHECK(k, k->ops->irecv(k->tl, 0, T(7, 2), a + 64, big - 64, &r[1]) == PLX_SUCCESS, "irecv");
        k->ops->cancel(k->tl, &r[0]);
        k->ops->cancel(k->tl, &r[1]);
        CHECK(k, !r[0].done && !r[1].done, "cancelled receives are not done");
        CHECK(k, k->ops->irecv(k->tl, 0, T(7, 1), b, 64, &r[2]) == PLX_SUCCESS, "irecv");
        CHECK(k, k->ops->irecv(k->tl, 0, T(7, 2), b + 64, big - 64, &r[3]) == PLX_SUCCESS, "irecv");
        barrier(k);
        wait_all(k, &r[2], 2);
        CHECK(k, r[2].status == PLX_SUCCESS && r[2].bytes == 6 && !memcmp(b, "hello", 6), "small");
        CHECK(k, r[3].status == PLX_SUCCESS && r[3].bytes == big - 64 && check_fill(b + 64, big - 64, 9),
              "large after cancel");
        int untouched = 1;
        for (size_t i = 0; i < big; i++) untouched &= a[i] == 0x11;
        CHECK(k, untouched, "cancelled receive buffers untouched");
        CHECK(k, !r[0].done && !r[1].done, "cancelled receives stay not done");

        /* the cancelled large send: its RTS is unexpected here once tag 4 arrived */
        CHECK(k, recv_b(k, 0, T(7, 4), b, 16, &got) == PLX_SUCCESS && got == 5, "marker");
        memset(a, 0x22, big);
        plx_status_t st = recv_b(k, 0, T(7, 3), a, big, &got);
        CHECK(k, st == PLX_ERR_TRANSPORT, "receive of a cancelled large send: %d", (int)st);
        /* and the pair still works, both ways */
        CHECK(k, recv_b(k, 0, T(7, 5), b, big, &got) == PLX_SUCCESS && got == big &&
                 check_fill(b, big, 11), "large after aborted one");
        fill(s, big, 12);
        CHECK(k, send_b(k, 0, T(7, 6), s, big) == PLX_SUCCESS, "send back");
    } else {
        barrier(k);
        CHECK(k, send_b(k, 1, T(7, 1), "hello", 6) == PLX_SUCCESS, "send small");
        fill(s, big, 9);
        CHECK(k, send_b(k, 1, T(7, 2), s, big - 64) == PLX_SUCCESS, "send large");
        /* a large send nobody has asked for yet, cancelled */
        CHECK(k, k->ops->isend(k->tl, 1, T(7, 3), s, big, &r[0]) == PLX_SUCCESS, "isend large");
        drain_a_while(k);
        CHECK(k, !r[0].done, "large send waits for its receive");
        k->ops->cancel(k->tl, &r[0]);
        memset(s, 0x33, big);   /* the transport must not read it any more */
        CHECK(k, send_b(k, 1, T(7, 4), "mark", 5) == PLX_SUCCESS, "marker");
        fill(s, big, 11);
        CHECK(k, send_b(k, 1, T(7, 5), s, big) == PLX_SUCCESS, "large after cancel");
        CHECK(k, recv_b(k, 1, T(7, 6), b, big, &got) == PLX_SUCCESS && got == big &&
                 check_fill(b, big, 12), "receive back");
        CHECK(k, !r[0].done, "cancelled send stays not done");
    }
    free(a);
    free(b);
    free(s);
}

/* Cancel at arbitrary moments of a large transfer (before the RTS arrived,
 * after the CTS, while UCX moves the bytes): nothing hangs or crashes, and
 * the pair keeps working. */
static void body_cancel_race(rk_t *k)
{
    if (k->rank > 1) return;
    size_t big = 16u << 20;
    unsigned char *b = malloc(big);
    fill(b, big, 21);
    for (int it = 0; it < 8; it++) {
        uint64_t tag = T(10, 100 + (uint64_t)it);
        plx_tl_req_t r;
        barrier(k);
        if (k->rank == 0) {
            CHECK(k, k->ops->isend(k->tl, 1, tag, b, big, &r) == PLX_SUCCESS, "isend");
        } else {
            CHECK(k, k->ops->irecv(k->tl, 0, tag, b, big, &r) == PLX_SUCCESS, "irecv");
        }
        /* progress a varying while, then cancel whatever is left */
        int polls = it * it * 40;
        for (int i = 0; i < polls && !r.done; i++)
            if (!k->ops->progress(k->tl)) sched_yield();
        if (!r.done) k->ops->cancel(k->tl, &r);
        CHECK(k, !r.done || r.status == PLX_SUCCESS || r.status == PLX_ERR_TRANSPORT,
              "iteration %d: status %d", it, (int)r.status);
        /* both ways still work */
        char m[16];
        size_t got;
        if (k->rank == 0) {
            CHECK(k, send_b(k, 1, T(10, 1), "ping", 5) == PLX_SUCCESS, "ping");
            CHECK(k, recv_b(k, 1, T(10, 2), m, 16, &got) == PLX_SUCCESS && got == 5, "pong");
        } else {
            CHECK(k, recv_b(k, 0, T(10, 1), m, 16, &got) == PLX_SUCCESS && got == 5, "ping");
            CHECK(k, send_b(k, 0, T(10, 2), "pong", 5) == PLX_SUCCESS, "pong");
        }
    }
    barrier(k);
    free(b);   /* the transport must be done with it */
}

/* Sequence numbers: messages handed over out of order are matched in send
 * order.  Rank 1 stays silent; rank 0 plays its messages to itself through
 * the AM handler (transports/ucx: plx_ucx_test_deliver). */
void plx_ucx_test_deliver(void *tl, const void *hdr, size_t hlen, void *data, size_t len);
typedef struct { uint32_t type; int32_t src; uint32_t seq, pad; uint64_t tag; } fake_hdr_t;

static void inject(rk_t *k, uint32_t seq, uint64_t tag, const char *payload)
{
    fake_hdr_t h = { 1 /* UCX_T_EAGER */, 1, seq, 0, tag };
    char buf[32];
    snprintf(buf, sizeof buf, "%s", payload);
    plx_ucx_test_deliver(k->tl, &h, sizeof h, buf, strlen(buf) + 1);
}

static void body_reorder(rk_t *k)
{
    if (k->rank != 0) return;
    uint64_t A = T(11, 1), B = T(11, 2);
    char g[6][32];
    plx_tl_req_t r[6];
    /* one receive of A posted before anything arrives */
    CHECK(k, k->ops->irecv(k->tl, 1, A, g[0], 32, &r[0]) == PLX_SUCCESS, "irecv");
    /* sent order: 0:A "a0", 1:B "b1", 2:A "a2", 3:A "a3", 4:B "b4"; handed over 3, 2, 4, 0, 1 */
    inject(k, 3, A, "a3");
    inject(k, 2, A, "a2");
    inject(k, 4, B, "b4");
    CHECK(k, !r[0].done, "nothing matched before message 0");
    inject(k, 0, A, "a0");
    CHECK(k, r[0].done && !strcmp(g[0], "a0"), "message 0 to the posted receive: %s", g[0]);
    CHECK(k, k->ops->irecv(k->tl, 1, A, g[1], 32, &r[1]) == PLX_SUCCESS, "irecv");
    CHECK(k, k->ops->irecv(k->tl, 1, B, g[2], 32, &r[2]) == PLX_SUCCESS, "irecv");
    CHECK(k, !r[1].done && !r[2].done, "a2 and b4 wait for message 1");
    inject(k, 1, B, "b1");
    CHECK(k, r[2].done && !strcmp(g[2], "b1"), "b1: %s", g[2]);
    CHECK(k, r[1].done && !strcmp(g[1], "a2"), "then a2: %s", g[1]);
    CHECK(k, k->ops->irecv(k->tl, 1, A, g[3], 32, &r[3]) == PLX_SUCCESS, "irecv");
    CHECK(k, k->ops->irecv(k->tl, 1, B, g[4], 32, &r[4]) == PLX_SUCCESS, "irecv");
    CHECK(k, r[3].done && !strcmp(g[3], "a3") && r[4].done && !strcmp(g[4], "b4"), "a3, b4");
}

/* Many messages in flight both ways at once, tags reused, sizes mixed. */
#define NMANY 300
static void body_many(rk_t *k)
{
    int n = k->size;
    int per = n == 2 ? NMANY : 40;   /* messages to each peer */
    int npeer = n - 1;
    int tot = per * npeer;
    plx_tl_req_t *rs = calloc((size_t)tot, sizeof *rs), *rr = calloc((size_t)tot, sizeof *rr);
    unsigned char **sb = calloc((size_t)tot, sizeof *sb), **rb = calloc((size_t)tot, sizeof *rb);
    size_t *sz = calloc((size_t)per, sizeof *sz);
    for (int i = 0; i < per; i++)
        sz[i] = (i % 50 == 7) ? 150000 + (size_t)i : (i % 5 == 3) ? EAGER + 100 : (size_t)(i * 37 % 3000);
    /* receives for the first half of the messages, all the sends, then the
     * rest of the receives (each tag's receives posted in message order) */
    for (int half = 0; half < 2; half++)
        for (int q = 1; q < n; q++) {
            int from = (k->rank + q) % n;
            for (int i = half ? per / 2 : 0; i < (half ? per : per / 2); i++) {
                int idx = (q - 1) * per + i;
                rb[idx] = malloc(sz[i] + 1);
                CHECK(k, k->ops->irecv(k->tl, from, T(8, (uint64_t)(i % 7)), rb[idx], sz[i], &rr[idx]) ==
                             PLX_SUCCESS, "irecv");
            }
            if (half == 0 && q == n - 1) {
                for (int q2 = 1; q2 < n; q2++) {
                    int to = (k->rank + n - q2) % n;
                    for (int i = 0; i < per; i++) {
                        int idx = (q2 - 1) * per + i;
                        sb[idx] = malloc(sz[i] + 1);
                        fill(sb[idx], sz[i], (unsigned)(k->rank * 10000 + to * 1000 + i));
                        CHECK(k, k->ops->isend(k->tl, to, T(8, (uint64_t)(i % 7)), sb[idx], sz[i],
                                               &rs[idx]) == PLX_SUCCESS, "isend");
                    }
                }
            }
        }
    wait_all(k, rr, tot);
    wait_all(k, rs, tot);
    for (int q = 1; q < n; q++) {
        int from = (k->rank + q) % n;
        for (int i = 0; i < per; i++) {
            int idx = (q - 1) * per + i;
            /* FIFO per (source, tag): the i-th receive of tag i%7 gets the i-th message */
            CHECK(k, rr[idx].status == PLX_SUCCESS && rr[idx].bytes == sz[i] &&
                         check_fill(rb[idx], sz[i], (unsigned)(from * 10000 + k->rank * 1000 + i)),
                  "message %d from %d", i, from);
            CHECK(k, rs[idx].status == PLX_SUCCESS, "send %d", idx);
        }
    }
    for (int i = 0; i < tot; i++) {
        free(sb[i]);
        free(rb[i]);
    }
    free(rs); free(rr); free(sb); free(rb); free(sz);
}

/* Rank 2 dies of SIGKILL with requests outstanding towards it:
 *  - rank 0 talked to it (endpoint exists), has a receive posted from it
 *    and a large send waiting for its CTS;
 *  - rank 1 never talked to it, has a receive posted from it.
 * Both must see PLX_ERR_PEER_FAILED (requests and peer_status) within
 * KILL_BOUND_S, and keep talking to each other. */
static void body_kill(rk_t *k)
{
    size_t big = 2u << 20;
    unsigned char *b = malloc(big);
    fill(b, big, 5);
    if (k->rank == 2) {
        char m[8];
        size_t got;
        CHECK(k, recv_b(k, 0, T(9, 1), m, 8, &got) == PLX_SUCCESS, "hello from 0");
        CHECK(k, send_b(k, 0, T(9, 2), "hi", 3) == PLX_SUCCESS, "hello to 0");
        barrier(k);
        usleep(100000);
        raise(SIGKILL);
    }
    plx_tl_req_t r[2];
    int nr = 0;
    if (k->rank == 0) {
        char m[8];
        size_t got;
        CHECK(k, send_b(k, 2, T(9, 1), "hello", 6) == PLX_SUCCESS, "hello to 2");
        CHECK(k, recv_b(k, 2, T(9, 2), m, 8, &got) == PLX_SUCCESS, "hello from 2");
        CHECK(k, k->ops->isend(k->tl, 2, T(9, 3), b, big, &r[nr++]) == PLX_SUCCESS, "isend large");
    }
    CHECK(k, k->ops->irecv(k->tl, 2, T(9, 4), b, big, &r[nr++]) == PLX_SUCCESS, "irecv");
    barrier(k);
    double t0 = now_s();
    /* 1. progress only: UCX's own error path (a TCP connection that dies) */
    int left = nr;
    while (left && now_s() < t0 + 3.0) {
        if (!k->ops->progress(k->tl)) sched_yield();
        left = 0;
        for (int i = 0; i < nr; i++) left += !r[i].done;
    }
    double t_ucx = left ? -1 : now_s() - t0;
    if (k->tcp && k->rank == 0)
        CHECK(k, !left, "UCX did not report the dead peer through the endpoint in 3 s");
    /* 2. and the core's way: peer_status a few times a second */
    plx_status_t ps = PLX_SUCCESS;
    double next = 0;
    while (now_s() < t0 + KILL_BOUND_S) {
        if (now_s() >= next) {
            ps = k->ops->peer_status(k->tl, 2);
            next = now_s() + 0.1;
        }
        left = 0;
        for (int i = 0; i < nr; i++) left += !r[i].done;
        if (!left && ps == PLX_ERR_PEER_FAILED) break;
        if (!k->ops->progress(k->tl)) sched_yield();
    }
    double dt = now_s() - t0;
    CHECK(k, ps == PLX_ERR_PEER_FAILED, "peer_status(2) = %d after %.1f s", (int)ps, dt);
    for (int i = 0; i < nr; i++)
        CHECK(k, r[i].done && r[i].status == PLX_ERR_PEER_FAILED, "request %d: done %d status %d", i,
              r[i].done, (int)r[i].status);
    if (k->rank == 0)
        printf("ucx kill (%s): dead peer seen after %.2f s (endpoint error path: %s)\n",
               k->tcp ? "UCX_TLS=tcp" : "UCX default", dt,
               t_ucx >= 0 ? "yes" : "no, by peer_status");
    fflush(stdout);
    /* new operations with the dead peer fail at once */
    plx_tl_req_t x;
    CHECK(k, k->ops->isend(k->tl, 2, T(9, 5), "x", 1, &x) == PLX_ERR_PEER_FAILED, "isend to dead");
    CHECK(k, k->ops->irecv(k->tl, 2, T(9, 5), b, 1, &x) == PLX_ERR_PEER_FAILED, "irecv from dead");
    /* the living pair still works */
    CHECK(k, k->ops->peer_status(k->tl, 1 - k->rank) == PLX_SUCCESS, "the other is alive");
    size_t got;
    if (k->rank == 0) {
        CHECK(k, send_b(k, 1, T(9, 6), b, big) == PLX_SUCCESS, "0 -> 1 after the kill");
    } else {
        unsigned char *d = malloc(big);
        CHECK(k, recv_b(k, 0, T(9, 6), d, big, &got) == PLX_SUCCESS && got == big, "1 <- 0");
        free(d);
    }
    free(b);
}

static void die_now(int sig)
{
    (void)sig;
    raise(SIGKILL);
}

/* Rank 1 dies of SIGKILL in the middle of sending rank 0 a 256 MiB message
 * (the bytes are moving): rank 0's receive ends with PLX_ERR_PEER_FAILED
 * within the bound, through progress and peer_status as the core does.
 * The pair first says hello both ways, as body_kill does, so the kill
 * lands in the transfer and not in UCX's connection setup: when the peer
 * dies while this side's wireup reply is still queued, UCX 1.13 aborts the
 * survivor in ucp_request_send_state_ff ("got REP message"; an assertion
 * upstream removed later).  Seen under make check-sanitize, where the
 * setup outlasted the 30 ms. */
static void body_kill_mid(rk_t *k)
{
    size_t big = 256u << 20;
    unsigned char *b = malloc(big);
    memset(b, k->rank == 1 ? 7 : 0, big);
    plx_tl_req_t r;
    char hello[8];
    size_t got;
    if (k->rank == 1) {
        CHECK(k, send_b(k, 0, T(12, 2), "hello", 6) == PLX_SUCCESS, "hello to 0");
        CHECK(k, recv_b(k, 0, T(12, 3), hello, 8, &got) == PLX_SUCCESS, "hello from 0");
    } else {
        CHECK(k, recv_b(k, 1, T(12, 2), hello, 8, &got) == PLX_SUCCESS, "hello from 1");
        CHECK(k, send_b(k, 1, T(12, 3), "hi", 3) == PLX_SUCCESS, "hello to 1");
    }
    barrier(k);
    if (k->rank == 1) {
        CHECK(k, k->ops->isend(k->tl, 0, T(12, 1), b, big, &r) == PLX_SUCCESS, "isend");
        barrier(k);
        /* die 30 ms from now, even inside one long ucp_worker_progress call */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = die_now;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 0 }, { 0, 30000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        for (;;)
            if (!k->ops->progress(k->tl)) sched_yield();
    }
    CHECK(k, k->ops->irecv(k->tl, 1, T(12, 1), b, big, &r) == PLX_SUCCESS, "irecv");
    barrier(k);
    double t0 = now_s(), next = 0;
    while (!r.done && now_s() < t0 + KILL_BOUND_S) {
        if (now_s() >= next) {
            k->ops->peer_status(k->tl, 1);
            next = now_s() + 0.1;
        }
        if (!k->ops->progress(k->tl)) sched_yield();
    }
    if (!r.done) k->ops->cancel(k->tl, &r);   /* as the core would, bounded */
    if (r.done && r.status == PLX_SUCCESS) {
        size_t bad = 0;
        for (size_t i = 0; i < big; i++) bad += b[i] != 7;
        CHECK(k, bad == 0, "a complete receive with %zu wrong bytes", bad);
    }
    CHECK(k, r.done && (r.status == PLX_ERR_PEER_FAILED || r.status == PLX_SUCCESS),
          "receive from a sender killed mid-transfer: done %d status %d after %.1f s", r.done,
          (int)r.status, now_s() - t0);
    printf("ucx kill mid-transfer (%s): receive ended %s after %.2f s\n",
           k->tcp ? "UCX_TLS=tcp" : "UCX default",
           r.done ? (r.status == PLX_SUCCESS ? "complete" : "with PEER_FAILED") : "NOT", now_s() - t0);
    fflush(stdout);
    free(b);
}

/* Round trip of n bytes, best batch of 500 (the mean shows the machine's load). */
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
        if (i >= 0 && i % 500 == 499) {
            double t = now_s();
            if (t - tb < best) best = t - tb;
            tb = t;
        }
    }
    *rt_us = 1e6 * (now_s() - t0) / iters;
    *best_us = best < 1e30 ? 1e6 * best / 500 : *rt_us;
    free(b);
}

static void body_perf(rk_t *k)
{
    if (k->rank > 1) return;
    const char *how = k->tcp ? "UCX_TLS=tcp" : "UCX default";
    double rt, best;
    pingpong_time(k, 8, 5000, &rt, &best);
    if (k->rank == 0)
        printf("ucx perf (%s): 8-byte ping-pong round trip %.2f us mean, %.2f us best batch\n", how,
               rt, best);
    size_t sizes[] = { 1u << 20, 16u << 20 };
    for (int s = 0; s < 2; s++) {
        size_t n = sizes[s];
        int reps = s == 0 ? 20 : 5;
        unsigned char *b = malloc(n);
        memset(b, 3, n);
        double t0 = 0, bestt = 1e30;
        for (int i = -1; i < reps; i++) {
            double ti = now_s();
            if (i == 0) t0 = ti;
            if (k->rank == 0) {
                send_b(k, 1, 3, b, n);
                recv_b(k, 1, 4, NULL, 0, NULL);
            } else {
                recv_b(k, 0, 3, b, n, NULL);
                send_b(k, 0, 4, NULL, 0);
            }
            if (i >= 0 && now_s() - ti < bestt) bestt = now_s() - ti;
        }
        double dt = (now_s() - t0) / reps;
        if (k->rank == 0)
            printf("ucx perf (%s): %zu MiB transfer %.2f ms mean (%.2f GB/s), best %.2f ms (%.2f GB/s)\n",
                   how, n >> 20, 1e3 * dt, (double)n / dt / 1e9, 1e3 * bestt, (double)n / bestt / 1e9);
        free(b);
    }
    fflush(stdout);
}

/* ---- tests --------------------------------------------------------------- */

/* _i: index 0 = the environment's UCX config, 1 = UCX_TLS=tcp */
START_TEST(t_pingpong)   { ck_assert_int_eq(run_job(2, body_pingpong, _i), 0); }
END_TEST
START_TEST(t_self1)      { ck_assert_int_eq(run_job(1, body_self, _i), 0); }
END_TEST
START_TEST(t_self2)      { ck_assert_int_eq(run_job(2, body_self, _i), 0); }
END_TEST
START_TEST(t_unexpected) { ck_assert_int_eq(run_job(2, body_unexpected, _i), 0); }
END_TEST
START_TEST(t_fifo)       { ck_assert_int_eq(run_job(2, body_fifo, _i), 0); }
END_TEST
START_TEST(t_truncate)   { ck_assert_int_eq(run_job(2, body_truncate, _i), 0); }
END_TEST
START_TEST(t_cancel)     { ck_assert_int_eq(run_job(2, body_cancel, _i), 0); }
END_TEST
START_TEST(t_cancel_race) { ck_assert_int_eq(run_job(2, body_cancel_race, _i), 0); }
END_TEST
START_TEST(t_reorder)    { ck_assert_int_eq(run_job(2, body_reorder, _i), 0); }
END_TEST
START_TEST(t_many)       { ck_assert_int_eq(run_job(2, body_many, _i), 0); }
END_TEST
START_TEST(t_many4)      { ck_assert_int_eq(run_job(4, body_many, _i), 0); }
END_TEST
START_TEST(t_kill)       { ck_assert_int_eq(run_job_k(3, body_kill, _i, 2), 0); }
END_TEST
START_TEST(t_kill_mid)   { ck_assert_int_eq(run_job_k(2, body_kill_mid, _i, 1), 0); }
END_TEST
START_TEST(t_perf)       { ck_assert_int_eq(run_job(2, body_perf, _i), 0); }
END_TEST

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

START_TEST(t_init_errors)
{
    void *tl = (void *)1;
    ck_assert_int_eq(plx_tl_ucx_ops.init(NULL, &tl), PLX_ERR_INVALID_ARG);
    ck_assert_ptr_null(tl);
    plx_tl_env_t env;
    memset(&env, 0, sizeof env);
    env.size = 2;
    env.rank = 3;
    ck_assert_int_eq(plx_tl_ucx_ops.init(&env, &tl), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_tl_ucx_ops.progress(NULL), 0);
    /* the bootstrap fails in the first, then the second exchange */
    plx_log_level = PLX_LOG_NONE;
    for (int at = 1; at <= 2; at++) {
        failing_boot_t fb = { 0, at };
        int node_of[1] = { 0 };
        plx_tl_env_t e = {
            .rank = 0, .size = 1, .node_of = node_of, .nnodes = 1, .job_id = "f", .timeout_s = 1,
            .boot = &fb, .allgather = failing_allgather, .barrier = NULL,
        };
        tl = (void *)1;
        ck_assert_int_eq(plx_tl_ucx_ops.init(&e, &tl), PLX_ERR_TIMEOUT);
        ck_assert_ptr_null(tl);
        ck_assert_int_eq(fb.calls, at);
    }
    /* and a world of one through the same path works */
    failing_boot_t ok = { 0, 0 };
    int node_of[1] = { 0 };
    plx_tl_env_t e = {
        .rank = 0, .size = 1, .node_of = node_of, .nnodes = 1, .job_id = "f", .timeout_s = 1,
        .boot = &ok, .allgather = failing_allgather, .barrier = NULL,
    };
    ck_assert_int_eq(plx_tl_ucx_ops.init(&e, &tl), PLX_SUCCESS);
    plx_tl_req_t r;
    char buf[4];
    ck_assert_int_eq(plx_tl_ucx_ops.isend(tl, 0, 8, "abc", 4, &r), PLX_SUCCESS);
    ck_assert_int_eq(plx_tl_ucx_ops.irecv(tl, 0, 8, buf, 4, &r), PLX_SUCCESS);
    ck_assert(r.done && r.status == PLX_SUCCESS && !strcmp(buf, "abc"));
    plx_tl_ucx_ops.finalize(tl);
}
END_TEST

/* TEST_UCX_ONLY=name[,name...] runs only those (e.g. "kill,perf"), for debugging. */
static int wanted(const char *name)
{
    const char *only = getenv("TEST_UCX_ONLY");
    if (!only || !*only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; p; p = strchr(p, ',')) {
        if (*p == ',') p++;
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0')) return 1;
    }
    return 0;
}

static Suite *ucx_suite(void)
{
    Suite *s = suite_create("ucx");
    TCase *tc = tcase_create("basic");
    tcase_set_timeout(tc, 120);
    if (wanted("init")) tcase_add_test(tc, t_init_errors);
    suite_add_tcase(s, tc);
    const struct { const char *name; const TTest *t; } all[] = {
        { "pingpong", t_pingpong }, { "self1", t_self1 }, { "self2", t_self2 },
        { "unexpected", t_unexpected }, { "fifo", t_fifo }, { "truncate", t_truncate },
        { "cancel", t_cancel }, { "cancel_race", t_cancel_race }, { "reorder", t_reorder },
        { "many", t_many }, { "many4", t_many4 }, { "kill", t_kill },
        { "kill_mid", t_kill_mid },
        { "perf", t_perf },
    };
    /* every body with the environment's UCX settings, then with UCX_TLS=tcp */
    const char *names[2] = { "ucx-default", "ucx-tcp" };
    for (int v = 0; v < 2; v++) {
        tc = tcase_create(names[v]);
        tcase_set_timeout(tc, 240);
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            if (wanted(all[i].name)) tcase_add_loop_test(tc, all[i].t, v, v + 1);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ucx_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
