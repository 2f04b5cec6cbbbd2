/*
 * tests/install/app.c — an "HPC code" written against the installed
 * plexus.h only and linked with `cc app.c $(pkg-config --cflags --libs
 * plexus)`: allreduce, bcast, allgather, alltoall and reduce_scatter on
 * random data, each compared with a serial reference every rank computes
 * from the same seeds.  Exit 0 only if everything matched.
 */
#include <plexus.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4099   /* odd on purpose: not divisible by the rank count */

/* The input of rank r, element i: a deterministic pseudo-random integer. */
static int64_t val(int r, size_t i)
{
    uint64_t x = (uint64_t)r * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 12345;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 29;
    return (int64_t)(x % 2001) - 1000;
}

#define TRY(call)                                                                  \
    do {                                                                           \
        plx_status_t s_ = (call);                                                  \
        if (s_ != PLX_SUCCESS) {                                                   \
            fprintf(stderr, "app: %s: %s\n", #call, plx_strerror(s_));             \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(void)
{
    plx_context_t ctx;
    plx_comm_t w;
    int rank, size, bad = 0;
    TRY(plx_init(&ctx));
    TRY(plx_comm_world(ctx, &w));
    TRY(plx_comm_rank(w, &rank));
    TRY(plx_comm_size(w, &size));

    size_t total = (size_t)N * (size_t)size;
    int64_t *s = malloc(total * sizeof *s), *r = malloc(total * sizeof *r);
    if (!s || !r) return 1;

    /* allreduce (sum) */
    for (size_t i = 0; i < N; i++) s[i] = val(rank, i);
    TRY(plx_allreduce(s, r, N, PLX_INT64, PLX_SUM, w));
    for (size_t i = 0; i < N; i++) {
        int64_t ref = 0;
        for (int q = 0; q < size; q++) ref += val(q, i);
        if (r[i] != ref) bad++;
    }
    /* bcast from the last rank */
    for (size_t i = 0; i < N; i++) r[i] = rank == size - 1 ? val(size - 1, i) : -7;
    TRY(plx_bcast(r, N, PLX_INT64, size - 1, w));
    for (size_t i = 0; i < N; i++) bad += r[i] != val(size - 1, i);
    /* allgather */
    for (size_t i = 0; i < N; i++) s[i] = val(rank, i);
    TRY(plx_allgather(s, r, N, PLX_INT64, w));
    for (int q = 0; q < size; q++)
        for (size_t i = 0; i < N; i++) bad += r[(size_t)q * N + i] != val(q, i);
    /* alltoall: block j of rank i is val(i, j*N + k) */
    for (size_t i = 0; i < total; i++) s[i] = val(rank, i);
    TRY(plx_alltoall(s, r, N, PLX_INT64, w));
    for (int q = 0; q < size; q++)
        for (size_t i = 0; i < N; i++) bad += r[(size_t)q * N + i] != val(q, (size_t)rank * N + i);
    /* reduce_scatter (max) */
    TRY(plx_reduce_scatter(s, r, N, PLX_INT64, PLX_MAX, w));
    for (size_t i = 0; i < N; i++) {
        int64_t ref = val(0, (size_t)rank * N + i);
        for (int q = 1; q < size; q++)
            if (val(q, (size_t)rank * N + i) > ref) ref = val(q, (size_t)rank * N + i);
        bad += r[i] != ref;
    }
    printf("app: rank %d of %d: %s (%d wrong elements)\n", rank, size, bad ? "FAILED" : "ok", bad);
    free(s);
    free(r);
    TRY(plx_finalize(&ctx));
    return bad ? 1 : 0;
}
