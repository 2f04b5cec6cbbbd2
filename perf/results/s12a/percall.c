/*
 * percall.c -- 2 ranks: the library's allgather / alltoall against the same
 * byte movement done by hand (memcpy of the own block, one process_vm_readv
 * of the peer's block), in one process, on the same buffers, in alternating
 * blocks of calls, each call timed alone.  Raw calls are separated by
 * plx_barrier (the library's own meet/drain is the counterpart); "raw" is
 * the work alone (raw-copy: the own block, raw-read: the peer's), "raw+b"
 * the work plus the barrier before it.
 *
 *   percall COLL BYTES [BLOCKS [CALLS]]   (BYTES as plx_perf: the total size)
 * COLL allreduce or bcast: the library's calls only (float32 sum; bcast from rank 0).
 * PERCALL_ALIGN=1: the buffers on 2 MiB-aligned mappings (see below).
 * PERCALL_PIECE=BYTES: the raw read in pieces of BYTES (default one call), as the library's
 * shared read above 2 MiB blocks (512 KiB).  (s12a: copied from s9x's, with that knob.)
 * Prints per rank and kind: n, mean, p10, p25, median, p75, p90, max (us).
 */
#define _GNU_SOURCE
#include <plexus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/mman.h>
#include <stdint.h>

#define OK(c) do { plx_status_t s_ = (c); if (s_ != PLX_SUCCESS) { fprintf(stderr, "%s: %s\n", #c, plx_strerror(s_)); exit(1); } } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static void stats(int rank, const char *coll, size_t n, const char *kind, double *t, int k)
{
    double s = 0;
    for (int i = 0; i < k; i++) s += t[i];
    qsort(t, k, sizeof *t, cmpd);
#define P(f) (t[(int)((k - 1) * (f))] * 1e6)
    printf("%d %s %zu %s n=%d mean=%.2f p10=%.2f p25=%.2f med=%.2f p75=%.2f p90=%.2f max=%.2f\n", rank, coll, n, kind, k,
           s / k * 1e6, P(.1), P(.25), P(.5), P(.75), P(.9), t[k - 1] * 1e6);
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: percall allgather|alltoall BYTES [BLOCKS [CALLS]]\n"); return 2; }
    int a2a = !strcmp(argv[1], "alltoall");
    /* allreduce, bcast: the library only (float32 sum; BYTES = the message) */
    int lonly = !strcmp(argv[1], "allreduce") || !strcmp(argv[1], "bcast");
    size_t N = strtoull(argv[2], NULL, 0);
    if (strchr(argv[2], 'M')) N <<= 20; else if (strchr(argv[2], 'K')) N <<= 10;
    int blocks = argc > 3 ? atoi(argv[3]) : 10, calls = argc > 4 ? atoi(argv[4]) : 50;
    plx_context_t ctx; plx_comm_t w; int rank, size;
    OK(plx_init(&ctx)); OK(plx_comm_world(ctx, &w)); OK(plx_comm_rank(w, &rank)); OK(plx_comm_size(w, &size));
    if (size != 2) { fprintf(stderr, "2 ranks\n"); return 2; }
    size_t blk = N / 2, cap = N * 2 + 64;
    /* PERCALL_ALIGN=1: each buffer on its own 2 MiB-aligned mapping (as an allocator that hands
     * out 2 MiB-aligned blocks), all of it touched, so its 2 MiB pages may go on huge pages */
    char *sb, *rb;
    if (getenv("PERCALL_ALIGN") && atoi(getenv("PERCALL_ALIGN"))) {
        size_t m = (cap + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
        char *a = mmap(NULL, 2 * m + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a == MAP_FAILED) { perror("mmap"); return 1; }
        sb = (char *)(((uintptr_t)a + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
        rb = sb + m;
        cap = m;
    } else {
        sb = malloc(cap);
        rb = malloc(cap);
    }
    memset(sb, rank + 1, cap); memset(rb, 0, cap);
    uint64_t me[2] = { (uint64_t)getpid(), (uint64_t)(uintptr_t)sb }, all[4];
    OK(plx_allgather(me, all, 2, PLX_UINT64, w));
    pid_t peer = (pid_t)all[2 * (1 - rank)];
    uint64_t paddr = all[2 * (1 - rank) + 1];
    double *tl = malloc(sizeof(double) * blocks * calls), *tr = malloc(sizeof(double) * blocks * calls),
           *trb = malloc(sizeof(double) * blocks * calls), *tcp = malloc(sizeof(double) * blocks * calls),
           *trd = malloc(sizeof(double) * blocks * calls);
    int kl = 0, kr = 0;
    size_t pc = getenv("PERCALL_PIECE") ? strtoull(getenv("PERCALL_PIECE"), NULL, 0) : 0;
    if (pc == 0) pc = blk;
#define CALL() (lonly ? (argv[1][1] == 'l' ? plx_allreduce(sb, rb, N / 4, PLX_FLOAT32, PLX_SUM, w) \
                                           : plx_bcast(rb, N, PLX_UINT8, 0, w)) \
              : a2a ? plx_alltoall(sb, rb, blk, PLX_UINT8, w) : plx_allgather(sb, rb, blk, PLX_UINT8, w))
    for (int wu = 0; wu < 20; wu++) OK(CALL());
    for (int b = 0; b < blocks; b++) {
        OK(plx_barrier(w));
        for (int i = 0; i < calls; i++) {
            double t0 = now();
            OK(CALL());
            tl[kl++] = now() - t0;
        }
        OK(plx_barrier(w));
        for (int i = 0; i < calls && !lonly; i++) {
            double t0 = now();
            OK(plx_barrier(w));
            double t1 = now();
            /* own block: allgather sb -> rb[me]; alltoall sb[me] -> rb[me] */
            memcpy(rb + (size_t)rank * blk, sb + (a2a ? (size_t)rank * blk : 0), blk);
            double tc = now();
            struct iovec l = { rb + (size_t)(1 - rank) * blk, blk },
                         r = { (void *)(uintptr_t)(paddr + (a2a ? (size_t)rank * blk : 0)), blk };
            for (size_t o = 0; o < blk; o += pc) {
                size_t n = blk - o < pc ? blk - o : pc;
                struct iovec l1 = { (char *)l.iov_base + o, n }, r1 = { (char *)r.iov_base + o, n };
                if (process_vm_readv(peer, &l1, 1, &r1, 1, 0) != (ssize_t)n) { perror("readv"); return 1; }
            }
            double t2 = now();
            tr[kr] = t2 - t1;
            tcp[kr] = tc - t1;
            trd[kr] = t2 - tc;
            trb[kr++] = t2 - t0;
        }
        OK(plx_barrier(w));
    }
    stats(rank, argv[1], N, "lib", tl, kl);
    if (kr) stats(rank, argv[1], N, "raw", tr, kr);
    if (kr) {
        stats(rank, argv[1], N, "raw+b", trb, kr);
        stats(rank, argv[1], N, "raw-copy", tcp, kr);
        stats(rank, argv[1], N, "raw-read", trd, kr);
    }
    OK(plx_finalize(&ctx));
    return 0;
}
