/* CMA read / write speed from and into a peer's buffer, 4 KiB pages
 * against transparent huge pages (MADV_HUGEPAGE before the first touch).
 * Two processes, one per CPU, both copying at once (as 2-rank allreduce):
 * each reads PIECE bytes of the other's source into its destination, then
 * writes PIECE bytes of its destination into the other's output.
 * usage: thp_cma TOTAL PIECE ITERS THP(0|1) */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static char *buf(size_t n, int thp)
{
    size_t al = 2u << 20;
    /* the whole mapping advised (as an application's heap under THP would be) */
    char *m = mmap(NULL, n + 2 * al, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (thp) madvise(m, n + 2 * al, MADV_HUGEPAGE);
    char *p = (char *)(((uintptr_t)m + al - 1) & ~(uintptr_t)(al - 1));
    p += 4096 + 16;   /* like malloc: not 2 MiB aligned */
    memset(p, 1, n);
    return p;
}

int main(int argc, char **argv)
{
    size_t total = strtoul(argv[1], 0, 0), piece = strtoul(argv[2], 0, 0);
    int iters = atoi(argv[3]), thp = atoi(argv[4]);
    /* shared control: addresses and a barrier */
    volatile uint64_t *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int me = 0;
    pid_t c = fork();
    if (c == 0) { me = 1; }
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(me, &s); sched_setaffinity(0, sizeof s, &s);
    char *src = buf(total, thp), *dst = buf(total, thp);
    sh[me * 8] = (uintptr_t)src; sh[me * 8 + 1] = (uintptr_t)dst;
    sh[me * 8 + 2] = (uint64_t)getpid();
    __atomic_store_n(&sh[32 + me], 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&sh[32 + 1 - me], __ATOMIC_SEQ_CST)) ;
    pid_t peer = (pid_t)sh[(1 - me) * 8 + 2];
    uintptr_t psrc = sh[(1 - me) * 8], pdst = sh[(1 - me) * 8 + 1];
    double tr = 0, tw = 0, best = 1e9;
    for (int it = 0; it < iters + 3; it++) {
        /* barrier */
        __atomic_store_n(&sh[40 + me], it + 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&sh[40 + 1 - me], __ATOMIC_SEQ_CST) < (uint64_t)it + 1) ;
        double t0 = now(), r = 0, w = 0;
        for (size_t o = 0; o < total; o += piece) {
            size_t l = total - o < piece ? total - o : piece;
            double a = now();
            struct iovec lv = { dst + o, l }, rv = { (void *)(psrc + o), l };
            if (process_vm_readv(peer, &lv, 1, &rv, 1, 0) != (ssize_t)l) { perror("readv"); return 1; }
            double b = now();
            struct iovec lv2 = { dst + o, l }, rv2 = { (void *)(pdst + o), l };
            if (process_vm_writev(peer, &lv2, 1, &rv2, 1, 0) != (ssize_t)l) { perror("writev"); return 1; }
            r += b - a; w += now() - b;
        }
        double t = now() - t0;
        if (it >= 3) { tr += r; tw += w; if (t < best) best = t; }
    }
    /* nobody leaves while the other still copies */
    __atomic_store_n(&sh[48 + me], 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&sh[48 + 1 - me], __ATOMIC_SEQ_CST)) ;
    /* THP actually present? */
    char line[256]; long anonhp = 0;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    while (f && fgets(line, sizeof line, f)) if (!strncmp(line, "AnonHugePages:", 14)) anonhp = atol(line + 14);
    if (f) fclose(f);
    printf("rank %d thp %d total %zu piece %zu: read %.2f GB/s write %.2f GB/s (avg), best call %.1f us, AnonHuge %ld kB\n",
           me, thp, total, piece, total * (double)iters / tr / 1e9, total * (double)iters / tw / 1e9, best * 1e6, anonhp);
    if (me == 0) wait(NULL);
    return 0;
}
