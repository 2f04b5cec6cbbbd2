/*
 * tests/mr/direct_mismatch_check.c — ranks that disagree on a single-copy
 * ("direct") collective: every rank must get PLX_ERR_MISMATCH back (no
 * hang, no read past the smaller buffer), and the communicator must work
 * normally afterwards.  run_direct.sh runs it with the direct algorithms
 * forced through PLX_TUNE.
 *
 * Cases, each followed by a correct allreduce whose result is checked:
 *   1. allreduce where the last rank passes half the count (its buffer is
 *      only that large: reading past it would fault or show in the guard);
 *   2. bcast where rank 0 names another root than the others;
 *   3. allreduce where the last rank passes another op.
 * Final line `direct_mismatch_check: rank R: N checks, M failures`.
 */
#include <plexus.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, checks, failures;

static void expect(int cond, const char *what)
{
    checks++;
    if (!cond) {
        failures++;
        printf("direct_mismatch_check: rank %d: FAIL: %s\n", rank, what);
    }
}

static void good_allreduce(plx_comm_t w, const char *after)
{
    size_t n = 300000;
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (float)((rank + (int)i) % 3);
    plx_status_t st = plx_allreduce(PLX_IN_PLACE, v, n, PLX_FLOAT32, PLX_SUM, w);
    char msg[160];
    snprintf(msg, sizeof msg, "correct allreduce after %s returned %s", after, plx_strerror(st));
    expect(st == PLX_SUCCESS, msg);
    int bad = 0;
    for (size_t i = 0; i < n && st == PLX_SUCCESS; i++) {
        float want = 0;
        for (int r = 0; r < size; r++) want += (float)((r + (int)i) % 3);
        bad += v[i] != want;
    }
    snprintf(msg, sizeof msg, "correct allreduce after %s: %d wrong elements", after, bad);
    expect(bad == 0, msg);
    free(v);
}

int main(void)
{
    plx_context_t ctx;
    plx_comm_t w;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &w);
    plx_comm_rank(w, &rank);
    plx_comm_size(w, &size);
    int last = rank == size - 1;

    /* 1. counts differ: the last rank's buffers hold only its own count */
    size_t n = last ? 100000 : 200000;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) in[i] = 1.0f;
    plx_status_t st = plx_allreduce(in, out, n, PLX_FLOAT32, PLX_SUM, w);
    expect(st == PLX_ERR_MISMATCH, "allreduce with different counts did not return PLX_ERR_MISMATCH");
    free(in);
    free(out);
    good_allreduce(w, "a count mismatch");

    /* 2. roots differ */
    char *buf = malloc(1 << 20);
    memset(buf, rank, 1 << 20);
    st = plx_bcast(buf, 1 << 20, PLX_UINT8, rank == 0 ? 1 : 0, w);
    expect(st == PLX_ERR_MISMATCH, "bcast with different roots did not return PLX_ERR_MISMATCH");
    good_allreduce(w, "a root mismatch");
    /* 2b. the same at 200000 bytes (a star bcast with ranks outnumbering
     * cores at 3+ ranks), only the last rank naming another root: the
     * other non-roots agree with the root and learn it from the root */
    st = plx_bcast(buf, 200000, PLX_UINT8, last ? 1 : 0, w);
    expect(st == PLX_ERR_MISMATCH, "star-size bcast with the last rank's root different did not return PLX_ERR_MISMATCH");
    free(buf);
    good_allreduce(w, "a root mismatch (200000 bytes)");

    /* 3. ops differ */
    n = 100000;
    in = malloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++) in[i] = 1.0f;
    st = plx_allreduce(PLX_IN_PLACE, in, n, PLX_FLOAT32, last ? PLX_MAX : PLX_SUM, w);
    expect(st == PLX_ERR_MISMATCH, "allreduce with different ops did not return PLX_ERR_MISMATCH");
    free(in);
    good_allreduce(w, "an op mismatch");

    printf("direct_mismatch_check: rank %d: %d checks, %d failures\n", rank, checks, failures);
    plx_finalize(&ctx);
    return failures ? 1 : 0;
}
