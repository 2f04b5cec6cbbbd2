/* c2c.c: between CPU 0 and CPU 1 (two pinned threads): the round trip of a
 * cache line, and a 256 KiB hand-over through a shared buffer (the writer's
 * copy in, the reader's copy out), as shm_slots moves a bcast's data.
 * Prints: rtt_ns wcopy_us rcopy_us (medians).  Probe of session s17b. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#define N (256 * 1024)
#define ROUNDS 400
static volatile long flag __attribute__((aligned(64)));
static char *shared, *src, *dst;
static double wt[ROUNDS], rt[ROUNDS];
static int nt;   /* argv[1] == "nt": the writer copies in with streaming stores */
static void copy_nt(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a); _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c); _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    _mm_sfence();
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
static void *peer(void *arg)
{
    (void)arg;
    pin(1);
    for (long i = 0; i < 200000; i++) { while (flag != 2 * i + 1) ; flag = 2 * i + 2; }
    for (int r = 0; r < ROUNDS; r++) {
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 1000000 + 2 * r + 1) ;
        double t0 = now(); memcpy(dst, shared, N); rt[r] = now() - t0;
        __atomic_store_n(&flag, 1000000 + 2 * r + 2, __ATOMIC_RELEASE);
    }
    return NULL;
}
int main(int argc, char **argv)
{
    nt = argc > 1 && !strcmp(argv[1], "nt");
    shared = aligned_alloc(4096, N); src = aligned_alloc(4096, N); dst = aligned_alloc(4096, N);
    memset(shared, 1, N); memset(src, 2, N); memset(dst, 3, N);
    pthread_t th; pthread_create(&th, NULL, peer, NULL);
    pin(0);
    double t0 = now();
    for (long i = 0; i < 200000; i++) { flag = 2 * i + 1; while (flag != 2 * i + 2) ; }
    double rtt = (now() - t0) / 200000 * 1e9;
    flag = 1000000;
    for (int r = 0; r < ROUNDS; r++) {
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 1000000 + 2 * r) ;
        double t1 = now(); if (nt) copy_nt(shared, src, N); else memcpy(shared, src, N); wt[r] = now() - t1;
        __atomic_store_n(&flag, 1000000 + 2 * r + 1, __ATOMIC_RELEASE);
    }
    pthread_join(th, NULL);
    qsort(wt, ROUNDS, sizeof *wt, cmp); qsort(rt, ROUNDS, sizeof *rt, cmp);
    printf("%s rtt_ns", nt ? "nt" : "memcpy");
    printf("  %.0f wcopy_us %.1f rcopy_us %.1f\n", rtt, wt[ROUNDS / 2] * 1e6, rt[ROUNDS / 2] * 1e6);
    return 0;
}
