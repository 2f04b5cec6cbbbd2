/*
 * tests/unit/tl_harness.h — what the transport unit tests (test_shm.c,
 * test_ucx.c) share: a fake bootstrap for forked ranks (allgather and
 * barrier through an anonymous MAP_SHARED region made before fork, bounded
 * waits that yield after a few spins) and a prefix-consistent data pattern.
 *
 * The includer defines MAXR (ranks), BLOBMAX (largest allgather
 * contribution) and WAIT_S (bound of a wait, seconds) first, and includes
 * <stdatomic.h>, <string.h>, <stdlib.h>, <time.h> and transport.h.
 */
#ifndef PLX_TL_HARNESS_H
#define PLX_TL_HARNESS_H

/* lib/engine/sched.h (schedules) can shadow the system <sched.h>: declare the one
 * call needed from it. */
extern int sched_yield(void);

/* ---- fake bootstrap ------------------------------------------------------ */

typedef struct fake_shared {
    _Atomic uint64_t gen[MAXR];
    unsigned char slot[2][MAXR][BLOBMAX];
} fake_shared_t;

typedef struct fake_boot {
    fake_shared_t *sh;
    int rank, size;
    uint64_t gen;
} fake_boot_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Double-buffered by generation: a rank can only reuse slot k&1 once every
 * rank has entered call k+1, i.e. finished copying out of call k-1. */
static plx_status_t fb_allgather(void *bp, const void *mine, void *all, size_t len)
{
    fake_boot_t *b = bp;
    if (len > BLOBMAX) return PLX_ERR_INVALID_ARG;
    uint64_t k = ++b->gen;
    int s = (int)(k & 1);
    if (len) memcpy(b->sh->slot[s][b->rank], mine, len);
    atomic_store_explicit(&b->sh->gen[b->rank], k, memory_order_release);
    double deadline = now_s() + WAIT_S;
    for (int i = 0; i < b->size; i++) {
        unsigned spins = 0;
        while (atomic_load_explicit(&b->sh->gen[i], memory_order_acquire) < k) {
            if (++spins > 100) sched_yield();
            if ((spins & 1023) == 0 && now_s() > deadline) return PLX_ERR_TIMEOUT;
        }
    }
    for (int i = 0; i < b->size && len; i++)
        memcpy((unsigned char *)all + (size_t)i * len, b->sh->slot[s][i], len);
    return PLX_SUCCESS;
}

static plx_status_t fb_barrier(void *bp)
{
    unsigned char dummy[MAXR] = { 0 };
    return fb_allgather(bp, dummy, dummy, 0);
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    /* prefix-consistent: fill(b, m) is the first m bytes of fill(b, n) */
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i += 4) {
        x = x * 1664525u + 1013904223u;
        memcpy(b + i, &x, n - i < 4 ? n - i : 4);
    }
}

/* 1 if b holds fill(seed) for its first n bytes. */
static int check_fill(const unsigned char *b, size_t n, unsigned seed)
{
    unsigned char *ref = malloc(n ? n : 1);
    fill(ref, n, seed);
    int ok = memcmp(ref, b, n) == 0;
    free(ref);
    return ok;
}

#endif /* PLX_TL_HARNESS_H */
