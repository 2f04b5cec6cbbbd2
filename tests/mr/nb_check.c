/*
 * tests/mr/nb_check.c — nonblocking collectives and send/recv: many in
 * flight at once, matched across ranks by per-communicator order.
 *
 *  1. 64 iallreduce of mixed sizes posted at once, waited in reverse order;
 *  2. collectives in flight on two communicators, posted in a different
 *     communicator order on even and odd ranks, completed with waitall;
 *  3. plx_test polling, plx_waitany, plx_request_free of a request in flight;
 *  4. large isend/irecv received in the opposite order (legal when
 *     nonblocking), self messages;
 *  5. bad arguments (NULL request) rejected.
 * Every result is compared with a serial reference.  Final line
 * `nb_check: rank R: N checks, M failures`; exit 1 on any failure.
 */
#include <plexus.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, checks, failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "nb_check rank %d line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

static int32_t val(int r, size_t i, int k) { return (int32_t)((r * 31 + (int)i * 7 + k * 13) % 101) - 50; }

int main(void)
{
    plx_context_t ctx;
    plx_comm_t world, dup;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);
    CHECK(plx_comm_dup(world, &dup) == PLX_SUCCESS, "dup");

    /* 1. 64 iallreduce in flight, waited in reverse order */
    enum { K = 64 };
    int32_t *in[K], *out[K];
    size_t n[K];
    plx_request_t req[K];
    for (int k = 0; k < K; k++) {
        n[k] = (size_t)1 << (k % 17);          /* 1 .. 65536 elements */
        if (k % 5 == 0) n[k] += 3;             /* not divisible by the rank count */
        in[k] = malloc(n[k] * sizeof(int32_t));
        out[k] = malloc(n[k] * sizeof(int32_t));
        for (size_t i = 0; i < n[k]; i++) in[k][i] = val(rank, i, k);
        CHECK(plx_iallreduce(in[k], out[k], n[k], PLX_INT32, PLX_SUM, world, &req[k]) == PLX_SUCCESS, "iallreduce %d", k);
    }
    for (int k = K - 1; k >= 0; k--) {
        CHECK(plx_wait(&req[k]) == PLX_SUCCESS && req[k] == NULL, "wait %d", k);
        size_t bad = 0;
        for (size_t i = 0; i < n[k]; i++) {
            int32_t ref = 0;
            for (int r = 0; r < size; r++) ref += val(r, i, k);
            bad += out[k][i] != ref;
        }
        CHECK(bad == 0, "iallreduce %d (%zu elements): %zu wrong", k, n[k], bad);
    }

    /* 2. two communicators, posted in a different communicator order by parity */
    size_t m = 1000;
    int32_t *bw = malloc(m * sizeof(int32_t)), *bd = malloc(m * sizeof(int32_t));
    int32_t *gw = malloc(m * (size_t)size * sizeof(int32_t)), *gd = malloc(m * (size_t)size * sizeof(int32_t));
    for (size_t i = 0; i < m; i++) {
        bw[i] = rank == 0 ? val(0, i, 1) : -1;
        bd[i] = rank == size - 1 ? val(size - 1, i, 2) : -1;
        in[0][i % n[0]] = 0;
    }
    int32_t *mine = malloc(m * sizeof(int32_t));
    for (size_t i = 0; i < m; i++) mine[i] = val(rank, i, 3);
    plx_request_t r4[4];
    if (rank % 2 == 0) {
        plx_ibcast(bw, m, PLX_INT32, 0, world, &r4[0]);
        plx_iallgather(mine, gw, m, PLX_INT32, world, &r4[1]);
        plx_ibcast(bd, m, PLX_INT32, size - 1, dup, &r4[2]);
        plx_iallgather(mine, gd, m, PLX_INT32, dup, &r4[3]);
    } else {
        plx_ibcast(bd, m, PLX_INT32, size - 1, dup, &r4[2]);
        plx_iallgather(mine, gd, m, PLX_INT32, dup, &r4[3]);
        plx_ibcast(bw, m, PLX_INT32, 0, world, &r4[0]);
        plx_iallgather(mine, gw, m, PLX_INT32, world, &r4[1]);
    }
    plx_status_t sts[4];
    CHECK(plx_waitall(4, r4, sts) == PLX_SUCCESS, "waitall");
    size_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        bad += bw[i] != val(0, i, 1);
        bad += bd[i] != val(size - 1, i, 2);
        for (int r = 0; r < size; r++) {
            bad += gw[(size_t)r * m + i] != val(r, i, 3);
            bad += gd[(size_t)r * m + i] != val(r, i, 3);
        }
    }
    CHECK(bad == 0, "two-communicator mix: %zu wrong", bad);

    /* 3. test polling, waitany, request_free in flight */
    int32_t x = rank + 1, sum = 0;
    plx_request_t t;
    CHECK(plx_iallreduce(&x, &sum, 1, PLX_INT32, PLX_SUM, world, &t) == PLX_SUCCESS, "iallreduce");
    int done = 0;
    for (long spins = 0; !done && spins < 100000000L; spins++)
        CHECK(plx_test(&t, &done) == PLX_SUCCESS, "test");
    CHECK(done && t == NULL && sum == size * (size + 1) / 2, "test-polled allreduce: %d", sum);

    int32_t a8[8], r8[8];
    plx_request_t ra[8];
    for (int k = 0; k < 8; k++) {
        a8[k] = rank * 8 + k;
        plx_iallreduce(&a8[k], &r8[k], 1, PLX_INT32, PLX_MAX, world, &ra[k]);
    }
    int left = 8, idx;
    while (left > 0) {
        CHECK(plx_waitany(8, ra, &idx) == PLX_SUCCESS && idx >= 0 && ra[idx] == NULL, "waitany");
        left--;
    }
    CHECK(plx_waitany(8, ra, &idx) == PLX_SUCCESS && idx == -1, "waitany on all-NULL");
    for (int k = 0; k < 8; k++) CHECK(r8[k] == (size - 1) * 8 + k, "waitany result %d", k);

    plx_request_t fb;
    CHECK(plx_ibarrier(world, &fb) == PLX_SUCCESS, "ibarrier");
    CHECK(plx_request_free(&fb) == PLX_SUCCESS && fb == NULL, "request_free");
    CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier after a freed ibarrier");

    /* 4. large messages received in the opposite order, and to self */
    size_t big = (size_t)1 << 20;   /* 4 MiB of int32 */
    int32_t *s1 = malloc(big * 4), *s2 = malloc(big * 4), *d1 = malloc(big * 4), *d2 = malloc(big * 4);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    for (size_t i = 0; i < big; i++) { s1[i] = val(rank, i, 7); s2[i] = val(rank, i, 8); }
    plx_request_t p[4];
    size_t got1 = 0, got2 = 0;
    CHECK(plx_irecv(d2, big, PLX_INT32, from, 2, world, &got2, &p[0]) == PLX_SUCCESS, "irecv 2");
    CHECK(plx_irecv(d1, big, PLX_INT32, from, 1, world, &got1, &p[1]) == PLX_SUCCESS, "irecv 1");
    CHECK(plx_isend(s1, big, PLX_INT32, to, 1, world, &p[2]) == PLX_SUCCESS, "isend 1");
    CHECK(plx_isend(s2, big, PLX_INT32, to, 2, world, &p[3]) == PLX_SUCCESS, "isend 2");
    CHECK(plx_waitall(4, p, NULL) == PLX_SUCCESS, "p2p waitall");
    bad = 0;
    for (size_t i = 0; i < big; i++) bad += d1[i] != val(from, i, 7) || d2[i] != val(from, i, 8);
    CHECK(bad == 0 && got1 == big && got2 == big, "opposite-order large p2p: %zu wrong, got %zu %zu", bad, got1, got2);

    /* 5. bad arguments */
    CHECK(plx_iallreduce(&x, &sum, 1, PLX_INT32, PLX_SUM, world, NULL) == PLX_ERR_INVALID_ARG, "NULL req");
    CHECK(plx_wait(NULL) == PLX_ERR_INVALID_ARG, "wait(NULL)");
    plx_request_t none = NULL;
    CHECK(plx_wait(&none) == PLX_SUCCESS, "wait on a NULL request");

    plx_comm_free(&dup);
    /* the buffers go back too: make check-sanitize runs with leak detection */
    for (int k = 0; k < K; k++) {
        free(in[k]);
        free(out[k]);
    }
    free(bw), free(bd), free(gw), free(gd), free(mine);
    free(s1), free(s2), free(d1), free(d2);
    printf("nb_check: rank %d: %d checks, %d failures\n", rank, checks, failures);
    plx_finalize(&ctx);
    return failures ? 1 : 0;
}
