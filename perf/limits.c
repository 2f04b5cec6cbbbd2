/*
 * perf/limits.c — the floors of this machine that a collective on one node
 * cannot beat, to put plx_perf's numbers in proportion:
 *
 *   memcpy   single-core memcpy bandwidth between two buffers of SIZE bytes
 *            (default 64 MiB), best of REPS copies; GB/s = bytes copied / s
 *            (the memory traffic is about twice that: read + write).
 *   rtt      cache-line round trip between two processes through a
 *            MAP_SHARED page: A writes flag "ping" (its own cache line),
 *            B spins until it sees it and writes "pong" (another cache line),
 *            A spins until it sees that.  Batches of BATCH round trips are
 *            timed; the median batch / BATCH is the round trip.  Both
 *            processes spin (no yield): run it with 2 cores free, or the
 *            number is the scheduler's time slice instead.  The two are
 *            pinned to the first two CPUs this process may use (if it may
 *            use two).
 *
 *   cma      single-copy reads and writes between two processes, the
 *            inputs of the single-copy collectives' model
 *            (lib/coll/node_direct.c, perf/RESULTS.md), done the way those
 *            collectives do them: CSIZE bytes (-c, default SIZE) in
 *            PIECE-byte steps (-p, default 128 KiB, the PLX_DIRECT_PIECE
 *            default), every buffer faulted in and used before the timed
 *            passes (as a collective's user buffers are after the first
 *            call):
 *              "cma"       process_vm_readv of the other process's buffer
 *                          straight into a CSIZE-byte destination (allgather,
 *                          alltoall, bcast: read into the user's recvbuf);
 *              "cma+add"   the same piece into a PIECE-sized buffer (hot in
 *                          L2), then added as float32 with a local CSIZE
 *                          input into a CSIZE destination (one piece of a
 *                          reduction slice);
 *              "write"     process_vm_writev of a hot PIECE-sized buffer into
 *                          the other process's CSIZE destination (allreduce
 *                          and reduce pass each reduced piece on this way);
 *              "copy"      a local memcpy of CSIZE bytes in PIECE steps (a
 *                          rank's own block in allgather and alltoall: with
 *                          both cores copying it is slower than "memcpy");
 *            each with one process working ("alone") and with both working
 *            on each other at the same time ("pair": each one's rate while
 *            both cores copy, as in every 2-rank collective; the slower of
 *            the two).  The two processes are pinned to two different CPUs
 *            (the first two this process could use at start).
 *            GB/s = bytes of the remote buffer per second, best of REPS.
 *   sizes    with --sizes LIST (the plx_perf sizes N of a 2-rank sweep): the
 *            same four figures, both processes at once, at each size's
 *            working set, CSIZE = N/2 (the bytes each rank moves), with the
 *            read and the copy in one call each (as the direct allgather and
 *            alltoall do with a core per rank) and read-and-add and write in
 *            -p pieces; best of enough passes for ~50 ms per figure (at least
 *            5).  At 1-4 MiB both ranks' buffers fit the caches, so these
 *            rates are far above the 64 MiB ones: a bound per size.
 *            A fifth figure, "exchange", is the 2-rank allgather's own
 *            byte movement with no library: each process copies its N/2
 *            into the first half of an N-byte destination, then reads the
 *            other's N/2 into the second half (one call up to 2 MiB, else
 *            -p pieces, as lib/coll/node_direct.c does), both at
 *            once, so the caches see the collective's working set (3 N
 *            in all, where the separate read and copy figures touch 2 N);
 *            GB/s = N/2 per pass time, best and mean of the passes (the
 *            slower process).  "exch_a2a": the same as the alltoall does
 *            it, with N-byte inputs whose block `me` each process copies
 *            and the other reads, so no input byte is read twice (the
 *            allgather reads each input twice, its own copy and the
 *            peer's read, the second often from the caches).
 *   staged   with --sizes, the two exchanges once more with no system
 *            call, as the direct allgather and alltoall's staged input
 *            does: each process copies its own block into its destination
 *            and the block the other needs into a stage both map
 *            (MAP_SHARED), piece by piece (--stage-piece, default 256K),
 *            bumping a count after each piece, and copies every piece the
 *            other has staged into the second half of its destination:
 *            three copies of N/2 against a copy and a read, but no pinning
 *            of the other's pages.
 *   thp      with --sizes, every per-size figure a second time with both
 *            processes' buffers 2 MiB aligned and wholly on transparent
 *            huge pages (madvise MADV_COLLAPSE after the first touch).
 *            The library's direct collectives collapse the 2 MiB pages of
 *            buffers of 1 MiB or more that they keep copying
 *            (lib/coll/direct_thp.c, PLX_DIRECT_THP), and a CMA copy then
 *            pins one page per 2 MiB instead of one per 4 KiB; these are
 *            the floors of a buffer wholly on huge pages.  A malloc'd
 *            buffer has part of its first and last 2 MiB on 4 KiB pages
 *            (a 1 MiB one usually all of it), so for it they are an upper
 *            bound.  Rows cma_*_thp_pair_gbps_N; -1 where the kernel
 *            refused a collapse (THP "never", no free huge page, a kernel
 *            before 6.1).
 *
 * Build: cc -O3 -o limits perf/limits.c          (perf/compare does that;
 *        -O3 vectorises the float32 add like the library's kernels)
 * Usage: limits [-s SIZE] [-c CSIZE] [-r REPS] [-t TRIPS] [-p PIECE] [--sizes LIST] [--stage-piece P] [--no-pin] [--csv]
 *   -s SIZE   memcpy size, K/M/G suffixes (default 64M)
 *   -c CSIZE  cma buffer size (default SIZE)
 *   -r REPS   memcpy repetitions, the best counts (default 10)
 *   -t TRIPS  round trips measured (default 200000, in batches of 100)
 *   -p PIECE  cma piece size (default 128K)
 *   --sizes LIST  comma-separated plx_perf sizes (e.g. 1M,4M,16M,64M): the
 *             per-size figures above, after the others
 *   --stage-piece P  piece of the staged exchanges (default 256K)
 *   --csv     print "metric,value,unit" rows instead of prose:
 *             memcpy_gbps,<GB/s>,GB/s   memcpy_bytes,<SIZE>,B
 *             rtt_us,<median>,us        rtt_min_us,<min batch>,us
 *             cma_gbps, cma_add_gbps, cma_write_gbps, cma_copy_gbps, cma_pair_gbps,
 *             cma_add_pair_gbps, cma_write_pair_gbps, cma_copy_pair_gbps (GB/s)
 *             cma_piece_bytes, cma_bytes (B)
 *             per --sizes entry N: cma_pair_gbps_N, cma_add_pair_gbps_N,
 *             cma_write_pair_gbps_N, cma_copy_pair_gbps_N,
 *             cma_exch_pair_gbps_N, cma_exch_mean_pair_gbps_N,
 *             cma_exch_a2a_pair_gbps_N, cma_exch_a2a_mean_pair_gbps_N,
 *             stage_exch_pair_gbps_N, stage_exch_mean_pair_gbps_N,
 *             stage_exch_a2a_pair_gbps_N, stage_exch_a2a_mean_pair_gbps_N (GB/s),
 *             and each of these again as cma_*_thp_pair_gbps_N (huge pages)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif
#define LINE 128                /* two 64-byte lines apart: no adjacent-line prefetch sharing */
#define BATCH 100
#define THP_BYTES ((size_t)2 << 20)
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25            /* Linux 6.1; older headers lack it */
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0) return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double memcpy_gbps(size_t size, int reps)
{
    char *src = malloc(size), *dst = malloc(size);
    if (!src || !dst) { fprintf(stderr, "limits: cannot allocate 2 x %zu bytes\n", size); exit(1); }
    memset(src, 1, size);       /* fault every page in before timing */
    memset(dst, 2, size);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        src[r % size] = (char)r;
        double t0 = now_s();
        memcpy(dst, src, size);
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    volatile char sink = dst[size / 2];
    (void)sink;
    free(src);
    free(dst);
    return (double)size / best / 1e9;
}

/* The CPUs this process may use, read once at start: after the first
 * measurement the parent is pinned to one CPU, and a child forked later
 * inherits that single CPU, so asking sched_getaffinity again would leave
 * both processes of a pair on one core (each then copies at half speed:
 * that is what the "both at once" CMA figures measured until 2026-12-01). */
static cpu_set_t allowed0;
static int allowed0_ok;

static void pin_to(int nth)
{
    cpu_set_t allowed = allowed0, one;
    if (!allowed0_ok || CPU_COUNT(&allowed) < 2) return;
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && k++ == nth) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
}

/* median and min round trip in µs */
static void rtt_us(long trips, int pin, double *med, double *min)
{
    long nb = trips / BATCH;
    if (nb < 1) nb = 1;
    char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) { perror("limits: mmap"); exit(1); }
    volatile uint64_t *ping = (volatile uint64_t *)page, *pong = (volatile uint64_t *)(page + LINE);
    *ping = *pong = 0;
    uint64_t total = (uint64_t)(nb + 10) * BATCH;   /* + 10 warm-up batches */
    pid_t pid = fork();
    if (pid < 0) { perror("limits: fork"); exit(1); }
    if (pid == 0) {
        if (pin) pin_to(1);
        alarm(120);             /* never outlive a dead parent */
        for (uint64_t i = 1; i <= total; i++) {
            while (*ping != i) __asm__ volatile("" ::: "memory");
            *pong = i;
        }
        _exit(0);
    }
    if (pin) pin_to(0);
    double *t = malloc(sizeof(double) * (size_t)nb);
    uint64_t i = 0;
    for (long b = -10; b < nb; b++) {
        double t0 = now_s();
        for (int k = 0; k < BATCH; k++) {
            *ping = ++i;
            while (*pong != i) __asm__ volatile("" ::: "memory");
        }
        double dt = (now_s() - t0) / BATCH * 1e6;
        if (b >= 0) t[b] = dt;
    }
    int st;
    waitpid(pid, &st, 0);
    qsort(t, (size_t)nb, sizeof(double), cmp_d);
    *med = nb % 2 ? t[nb / 2] : 0.5 * (t[nb / 2 - 1] + t[nb / 2]);
    *min = t[0];
    free(t);
    munmap(page, 4096);
}

/* ---- single-copy reads ----------------------------------------------- */
typedef struct cma_shared {
    volatile uint64_t addr[2];     /* each process's source buffer */
    volatile uint64_t daddr[2];    /* each process's destination (written by "write") */
    volatile int ready[2], go, done[2];
    volatile double secs[2][8];    /* [process][0: cma, 1: cma+add, 2: write, 3: copy, 4: exchange,
                                      5: alltoall exchange, 6-7: the same staged] best times */
    volatile double mean[2][4];    /* [process][kind - 4] mean pass time of the exchanges */
    volatile int thp_ok[2];        /* with thp: every buffer of the process collapsed */
    char *stage;                   /* MAP_SHARED, 2 x size: process p stages into [p*size, (p+1)*size) */
    size_t stage_piece;
    /* pieces each process has staged so far (never reset), a line each */
    volatile uint64_t staged[2][LINE / sizeof(uint64_t)] __attribute__((aligned(LINE)));
} cma_shared_t;

/* One pass over SIZE bytes in pieces: kind 0 reads pid's buffer at raddr
 * into dst; 1 reads it into tmp, then dst = mine + tmp as float32; 2
 * writes tmp into pid's buffer at waddr; 3 copies mine into dst (memcpy);
 * 4 copies mine into dst, then reads pid's buffer into dst + SIZE; 5 the
 * same with block `me` of two-block buffers (alltoall: no byte read twice).
 * Seconds, or -1. */
static void add_f32(float *restrict d, const float *restrict a, const float *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i++) d[i] = a[i] + b[i];
}

static double cma_pass(pid_t pid, uint64_t raddr, uint64_t waddr, char *dst, const char *mine, char *tmp,
                       size_t size, size_t piece, int kind, int me)
{
    double t0 = now_s();
    if (kind == 4 || kind == 5) {
        /* as lib/coll/node_direct.c: one call up to 2 MiB, else PIECE steps;
         * 5 (alltoall): block `me` of a 2-block input, mine and the peer's */
        size_t step = size <= (2u << 20) ? size : piece, at = kind == 5 ? (size_t)me * size : 0;
        mine += at;
        raddr += at;
        memcpy(dst, mine, size);
        for (size_t off = 0; off < size; off += step) {
            size_t l = size - off < step ? size - off : step;
            struct iovec lv = { dst + size + off, l }, rv = { (void *)(uintptr_t)(raddr + off), l };
            if (process_vm_readv(pid, &lv, 1, &rv, 1, 0) != (ssize_t)l) return -1;
        }
        return now_s() - t0;
    }
    for (size_t off = 0; off < size; off += piece) {
        size_t l = size - off < piece ? size - off : piece;
        if (kind == 3) {
            memcpy(dst + off, mine + off, l);
            continue;
        }
        if (kind == 2) {
            struct iovec lv = { tmp, l }, rv = { (void *)(uintptr_t)(waddr + off), l };
            if (process_vm_writev(pid, &lv, 1, &rv, 1, 0) != (ssize_t)l) return -1;
            continue;
        }
        struct iovec lv = { kind ? tmp : dst + off, l }, rv = { (void *)(uintptr_t)(raddr + off), l };
        if (process_vm_readv(pid, &lv, 1, &rv, 1, 0) != (ssize_t)l) return -1;
        if (kind)
            add_f32((float *)(void *)(dst + off), (const float *)(const void *)(mine + off),
                    (const float *)(void *)tmp, l / sizeof(float));
    }
    return now_s() - t0;
}

/* The exchanges (kinds 4, 5) without a system call: kinds 6 and 7 move
 * the same bytes through memory both processes map.  Per piece, copy the
 * own block into dst and the block the other needs into my stage, bump my
 * staged count (release), then copy every piece the other has staged so
 * far from its stage into dst + SIZE; both processes copy at once.  What
 * it saves is the pinning of the other's 4 KiB pages (~40 % of a
 * process_vm_readv here); what it costs is a second copy of each byte.
 * *count: pieces staged by each process before this pass (equal on both,
 * every pass stages the same number). */
static double stage_pass(cma_shared_t *sh, char *dst, const char *mine, size_t size, int kind, int me,
                         uint64_t *count)
{
    double t0 = now_s();
    size_t sp = sh->stage_piece, np = (size + sp - 1) / sp, rd = 0;
    uint64_t base = *count;
    const char *own = mine + (kind == 7 ? (size_t)me * size : 0);
    const char *give = mine + (kind == 7 ? (size_t)(1 - me) * size : 0);
    char *mystage = sh->stage + (size_t)me * size;
    const char *theirs = sh->stage + (size_t)(1 - me) * size;
    for (size_t k = 0; k < np || rd < np;) {
        if (k < np) {
            size_t off = k * sp, l = size - off < sp ? size - off : sp;
            memcpy(dst + off, own + off, l);
            memcpy(mystage + off, give + off, l);
            __atomic_store_n(&sh->staged[me][0], base + k + 1, __ATOMIC_RELEASE);
            k++;
        }
        int spins = 0;
        while (rd < np) {
            if (__atomic_load_n(&sh->staged[1 - me][0], __ATOMIC_ACQUIRE) < base + rd + 1) {
                if (k < np) break;                        /* stage my next piece meanwhile */
                if (++spins > 1000) sched_yield();
                cpu_relax();
                continue;
            }
            size_t off = rd * sp, l = size - off < sp ? size - off : sp;
            memcpy(dst + size + off, theirs + off, l);
            rd++;
        }
    }
    *count = base + np;
    return now_s() - t0;
}

/* A buffer of n bytes, every page touched (filled with v).  thp: 2 MiB
 * aligned and wholly collapsed onto huge pages, the best placement a
 * buffer can have; *ok cleared if the kernel refused (the figure is then
 * -1). */
static char *cma_buf(size_t n, int v, int thp, int *ok)
{
    if (!thp) {
        char *p = malloc(n);
        if (p) memset(p, v, n);
        return p;
    }
    size_t len = (n + THP_BYTES - 1) / THP_BYTES * THP_BYTES;
    char *m = mmap(NULL, len + THP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)m + THP_BYTES - 1) & ~(uintptr_t)(THP_BYTES - 1));
    /* keep [p, p + len) only, so cma_free unmaps all of it */
    if (p > m) munmap(m, (size_t)(p - m));
    if (m + len + THP_BYTES > p + len) munmap(p + len, (size_t)(m + len + THP_BYTES - (p + len)));
    memset(p, v, len);
    if (madvise(p, len, MADV_COLLAPSE) != 0) *ok = 0;
    return p;
}

static void cma_free(char *p, size_t n, int thp)
{
    if (thp) munmap(p, (n + THP_BYTES - 1) / THP_BYTES * THP_BYTES);
    else free(p);
}

/* Process `me` (0 or 1) of the measurement: best times of REPS passes of
 * each kind, alone (only process 0 reads) and as a pair. */
static void cma_side(cma_shared_t *sh, int me, pid_t other, size_t size, size_t piece, size_t cpiece, int reps,
                     int pair, int kinds, int thp)
{
    int ok = 1;
    char *dst = cma_buf(2 * size, 1, thp, &ok), *mine = cma_buf(2 * size, 2, thp, &ok), *tmp = malloc(piece);
    if (!dst || !mine || !tmp) { fprintf(stderr, "limits: cannot allocate for cma\n"); exit(1); }
    memset(tmp, 3, piece);
    sh->thp_ok[me] = ok;
    sh->addr[me] = (uint64_t)(uintptr_t)mine;
    sh->daddr[me] = (uint64_t)(uintptr_t)dst;
    __atomic_store_n(&sh->ready[me], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&sh->ready[1 - me], __ATOMIC_ACQUIRE)) sched_yield();
    uint64_t staged = 0;
    for (int kind = 0; kind < kinds; kind++) {
        double best = 1e30, sum = 0;
        /* one untimed pass first: every page of both sides touched by this kind of copy */
        for (int r = -1; r < reps; r++) {
            /* both start together: a shared counter of passes */
            __atomic_add_fetch(&sh->go, 1, __ATOMIC_ACQ_REL);
            int want = 2 * (kind * (reps + 1) + r + 2);
            while (__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE) < want) sched_yield();
            if (pair || me == 0) {
                /* cpiece: the read and the copy (kinds 0 and 3) */
                double t = kind >= 6 ? stage_pass(sh, dst, mine, size, kind, me, &staged)
                                     : cma_pass(other, sh->addr[1 - me], sh->daddr[1 - me], dst, mine, tmp, size,
                                                kind == 0 || kind == 3 ? cpiece : piece, kind, me);
                if (t < 0) { sh->secs[me][kind] = -1; break; }
                if (r >= 0 && t < best) best = t;
                if (r >= 0) sum += t;
            }
        }
        if (sh->secs[me][kind] >= 0) sh->secs[me][kind] = best;
        if (kind >= 4) sh->mean[me][kind - 4] = sum / reps;
    }
    /* the other one may still be reading my buffer */
    __atomic_store_n(&sh->done[me], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&sh->done[1 - me], __ATOMIC_ACQUIRE)) sched_yield();
    cma_free(dst, 2 * size, thp);
    cma_free(mine, 2 * size, thp);
    free(tmp);
}

/* gbps[0..7]: cma, cma+add, write, copy (one process working), then each
 * as a pair (the slower of the two processes); -1 where refused.  cpiece:
 * the piece of the read and the copy; pairs_only: skip the alone figures
 * (left -1). */
static void cma_gbps(size_t size, size_t piece, size_t cpiece, size_t spiece, int reps, int pin, int pairs_only,
                     int thp, double gbps[8], double exch[8])
{
    int kinds = exch ? 8 : 4;
    for (int k = 0; k < 4; k++) gbps[k] = -1;
    for (int pair = pairs_only; pair < 2; pair++) {
        cma_shared_t *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (sh == MAP_FAILED) { perror("limits: mmap"); exit(1); }
        memset((void *)sh, 0, sizeof *sh);
        if (exch) {
            /* the stages: shared, touched once here (the library's node segment is too) */
            sh->stage = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (sh->stage == MAP_FAILED) { perror("limits: mmap"); exit(1); }
            memset(sh->stage, 4, 2 * size);
            sh->stage_piece = spiece;
        }
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) { perror("limits: fork"); exit(1); }
        if (pid == 0) {
            if (pin) pin_to(1);
            alarm(300);
            cma_side(sh, 1, parent, size, piece, cpiece, reps, pair, kinds, thp);
            _exit(0);
        }
        if (pin) pin_to(0);
        cma_side(sh, 0, pid, size, piece, cpiece, reps, pair, kinds, thp);
        int st;
        waitpid(pid, &st, 0);
        if (thp && !(sh->thp_ok[0] && sh->thp_ok[1])) {
            /* not on huge pages: no huge-page figure */
            for (int k = pair * 4; k < pair * 4 + 4; k++) gbps[k] = -1;
            for (int x = 0; exch && x < 8; x++) exch[x] = -1;
            if (exch) munmap(sh->stage, 2 * size);
            munmap((void *)sh, 4096);
            continue;
        }
        for (int kind = 0; kind < 4; kind++) {
            double t = sh->secs[0][kind];
            if (pair && sh->secs[1][kind] > t) t = sh->secs[1][kind];
            if (pair && sh->secs[1][kind] < 0) t = -1;
            gbps[pair * 4 + kind] = t > 0 ? (double)size / t / 1e9 : -1;
        }
        for (int x = 0; exch && pair && x < 4; x++) {
            double t = sh->secs[0][4 + x] > sh->secs[1][4 + x] ? sh->secs[0][4 + x] : sh->secs[1][4 + x];
            double m = sh->mean[0][x] > sh->mean[1][x] ? sh->mean[0][x] : sh->mean[1][x];
            exch[2 * x] = t > 0 && sh->secs[0][4 + x] > 0 && sh->secs[1][4 + x] > 0 ? (double)size / t / 1e9 : -1;
            exch[2 * x + 1] = exch[2 * x] > 0 && m > 0 ? (double)size / m / 1e9 : -1;
        }
        if (exch) munmap(sh->stage, 2 * size);
        munmap((void *)sh, 4096);
    }
}

int main(int argc, char **argv)
{
    size_t size = 64u << 20;
    int reps = 10, csv = 0, pin = 1;
    long trips = 200000;
    size_t piece = 128u << 10, csize = 0, spiece = 256u << 10;
    const char *sizes = NULL;
    allowed0_ok = sched_getaffinity(0, sizeof allowed0, &allowed0) == 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-s") && v) { if (parse_size(v, &size)) goto bad; i++; }
        else if (!strcmp(a, "-c") && v) { if (parse_size(v, &csize) || csize % 4) goto bad; i++; }
        else if (!strcmp(a, "-r") && v) { reps = atoi(v); i++; if (reps < 1) goto bad; }
        else if (!strcmp(a, "-t") && v) { trips = atol(v); i++; if (trips < 1) goto bad; }
        else if (!strcmp(a, "-p") && v) { if (parse_size(v, &piece) || piece % 4) goto bad; i++; }
        else if (!strcmp(a, "--sizes") && v) { sizes = v; i++; }
        else if (!strcmp(a, "--stage-piece") && v) { if (parse_size(v, &spiece) || !spiece) goto bad; i++; }
        else if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--no-pin")) pin = 0;
        else goto bad;
    }
    double gbps = memcpy_gbps(size, reps), med, min;
    rtt_us(trips, pin, &med, &min);
    double cma[8];
    if (!csize) csize = size;
    cma_gbps(csize, piece, piece, 0, reps < 5 ? reps : 5, pin, 0, 0, cma, NULL);
    if (csv) {
        printf("metric,value,unit\n");
        printf("memcpy_gbps,%.3f,GB/s\n", gbps);
        printf("memcpy_bytes,%zu,B\n", size);
        printf("rtt_us,%.4f,us\n", med);
        printf("rtt_min_us,%.4f,us\n", min);
        printf("cma_gbps,%.3f,GB/s\n", cma[0]);
        printf("cma_add_gbps,%.3f,GB/s\n", cma[1]);
        printf("cma_write_gbps,%.3f,GB/s\n", cma[2]);
        printf("cma_copy_gbps,%.3f,GB/s\n", cma[3]);
        printf("cma_pair_gbps,%.3f,GB/s\n", cma[4]);
        printf("cma_add_pair_gbps,%.3f,GB/s\n", cma[5]);
        printf("cma_write_pair_gbps,%.3f,GB/s\n", cma[6]);
        printf("cma_copy_pair_gbps,%.3f,GB/s\n", cma[7]);
        printf("cma_piece_bytes,%zu,B\n", piece);
        printf("cma_bytes,%zu,B\n", csize);
    } else {
        printf("memcpy, one core, %zu bytes, best of %d: %.2f GB/s (bytes copied per second)\n", size, reps, gbps);
        printf("cache-line round trip between 2 processes (MAP_SHARED, spinning%s): median %.3f us, best batch %.3f us (%ld trips)\n",
               pin ? ", pinned" : "", med, min, (trips / BATCH) * (long)BATCH);
        printf("single copy of another process's %zu bytes in %zu-byte pieces, alone / both processes at "
               "once (each): process_vm_readv into the destination %.2f / %.2f GB/s, read-and-add (float32) "
               "%.2f / %.2f GB/s, process_vm_writev of a hot piece %.2f / %.2f GB/s, local memcpy in pieces "
               "%.2f / %.2f GB/s\n",
               csize, piece, cma[0], cma[4], cma[1], cma[5], cma[2], cma[6], cma[3], cma[7]);
    }
    for (const char *p = sizes; p && *p;) {
        /* one plx_perf size N: each rank moves N/2 */
        char one[64];
        size_t l = strcspn(p, ","), n;
        if (l >= sizeof one) goto bad;
        memcpy(one, p, l);
        one[l] = 0;
        p += l + (p[l] == ',');
        if (parse_size(one, &n) || n < 8 || n / 2 % 4) goto bad;
        size_t c = n / 2;
        /* ~50 ms per figure at the slowest rate seen here (~2 GB/s), at least 5 passes */
        long rp = (long)(0.05 * 2e9 / (double)c);
        if (rp < 5) rp = 5;
        if (rp > 2000) rp = 2000;
        for (int thp = 0; thp < 2; thp++) {
            /* 4 KiB pages, then the same on huge pages */
            const char *t = thp ? "_thp" : "";
            double g[8], x[8];
            cma_gbps(c, piece, c, spiece, (int)rp, pin, 1, thp, g, x);
            if (csv) {
                printf("cma%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, g[4]);
                printf("cma_add%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, g[5]);
                printf("cma_write%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, g[6]);
                printf("cma_copy%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, g[7]);
                printf("cma_exch%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[0]);
                printf("cma_exch_mean%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[1]);
                printf("cma_exch_a2a%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[2]);
                printf("cma_exch_a2a_mean%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[3]);
                printf("stage_exch%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[4]);
                printf("stage_exch_mean%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[5]);
                printf("stage_exch_a2a%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[6]);
                printf("stage_exch_a2a_mean%s_pair_gbps_%zu,%.3f,GB/s\n", t, n, x[7]);
            } else {
                printf("2 ranks at %zu bytes (each moves %zu), both processes at once, %s, best of %ld: "
                       "process_vm_readv in one call %.2f GB/s, read-and-add in %zu-byte pieces %.2f GB/s, "
                       "process_vm_writev of a hot piece %.2f GB/s, memcpy in one call %.2f GB/s\n",
                       n, c, thp ? "2 MiB huge pages" : "4 KiB pages", rp, g[4], piece, g[5], g[6], g[7]);
                printf("  exchange (copy own N/2, then read the other's N/2, as the 2-rank allgather): best %.2f "
                       "GB/s, mean %.2f GB/s; as alltoall (two-block inputs): best %.2f, mean %.2f GB/s\n", x[0],
                       x[1], x[2], x[3]);
                printf("  the same staged through shared memory in %zu-byte pieces, no system call: best %.2f, "
                       "mean %.2f GB/s; as alltoall: best %.2f, mean %.2f GB/s\n", spiece, x[4], x[5], x[6], x[7]);
            }
        }
    }
    return 0;
bad:
    fprintf(stderr, "usage: limits [-s SIZE] [-c CSIZE] [-r REPS] [-t TRIPS] [-p PIECE] [--sizes LIST] [--stage-piece P] [--no-pin] [--csv]\n");
    return 2;
}
