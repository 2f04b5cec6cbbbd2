/*
 * tests/mr/finalize_check.c — after a collective failed because a rank is
 * stuck, plx_finalize returns at once: the job ends after one PLX_TIMEOUT,
 * not three (collective, world barrier, bootstrap barrier).
 *
 * `finalize_check [--bytes B]`, 3 or more ranks, PLX_TIMEOUT 1..30 s (set
 * by the caller; 5 unless given).  After a warm-up allreduce and a barrier,
 * the last rank stops itself with SIGSTOP (a child process kills it with
 * SIGKILL PLX_TIMEOUT + 8 s later, so the job cannot outlive the test).
 * Every other rank calls plx_allreduce of B bytes (default 4096: shared
 * slots; 1 MiB: a schedule), which must end with PLX_ERR_TIMEOUT, then
 * plx_finalize, which must return within 2 s of the error (slack for a
 * loaded machine, far below the PLX_TIMEOUT that each skipped barrier would
 * have cost).  The time from the start of the allreduce is printed (the
 * goal: within PLX_TIMEOUT + 2 s) but not asserted: when the timeout itself
 * fires depends on the load, not on plx_finalize.
 * Output: `finalize_check: R<r>: ...` and `finalize_check: R<r>: ok|FAIL`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plexus.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t bytes = 4096;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: finalize_check [--bytes B]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *e = getenv("PLX_TIMEOUT");
    if (!e || atof(e) < 1 || atof(e) > 30) setenv("PLX_TIMEOUT", "5", 1);
    const double tmo = atof(getenv("PLX_TIMEOUT"));

    plx_context_t ctx;
    plx_comm_t world;
    int me, n;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &me);
    plx_comm_size(world, &n);
    if (n < 3) {
        fprintf(stderr, "finalize_check: needs 3 or more ranks\n");
        plx_finalize(&ctx);
        return 2;
    }
    size_t count = bytes / sizeof(float);
    float *in = malloc(count * sizeof *in), *out = malloc(count * sizeof *out);
    if (!in || !out) return 1;
    for (size_t i = 0; i < count; i++) in[i] = 1.0f;
    plx_status_t st = plx_allreduce(in, out, count, PLX_FLOAT32, PLX_SUM, world);
    if (st == PLX_SUCCESS) st = plx_barrier(world);
    if (st != PLX_SUCCESS || out[0] != (float)n) {
        printf("finalize_check: R%d: FAIL warm-up: %s\n", me, plx_strerror(st));
        return 1;
    }

    if (me == n - 1) {
        pid_t parent = getpid();
        pid_t killer = fork();
        if (killer == 0) {
            struct timespec ts = { (time_t)tmo + 8, 0 };
            nanosleep(&ts, NULL);
            kill(parent, SIGKILL);
            _exit(0);
        }
        printf("finalize_check: R%d: stopping myself (SIGSTOP)\n", me);
        raise(SIGSTOP);
        /* not reached: the killer ends this process while it is stopped */
        return 1;
    }

    int fails = 0;
    double t0 = now();
    st = plx_allreduce(in, out, count, PLX_FLOAT32, PLX_SUM, world);
    double t1 = now();
    plx_status_t fst = plx_finalize(&ctx);
    double t2 = now();
    printf("finalize_check: R%d: allreduce of %zu bytes: %s after %.2f s; plx_finalize: %s after "
           "%.2f s; done %.2f s after the allreduce started (PLX_TIMEOUT=%g)\n", me, bytes,
           plx_strerror(st), t1 - t0, plx_strerror(fst), t2 - t1, t2 - t0, tmo);
    /* TIMEOUT, or PEER_FAILED when a rank that timed out first has
     * already finalized and exited (a single-copy collective watches every
     * member's process, not only the stopped one) */
    if (st != PLX_ERR_TIMEOUT && st != PLX_ERR_PEER_FAILED) {
        printf("finalize_check: R%d: FAIL the allreduce should time out (or see a peer gone)\n", me);
        fails++;
    }
    if (t2 - t1 > 2.0) {
        printf("finalize_check: R%d: FAIL plx_finalize after the failure took %.2f s\n", me, t2 - t1);
        fails++;
    }
    if (t2 - t0 > tmo + 2.0)   /* how late the timeout itself fires depends on the load */
        printf("finalize_check: R%d: note: done %.2f s after the allreduce started (> PLX_TIMEOUT + 2 s; "
               "plx_finalize itself took %.2f s)\n", me, t2 - t0, t2 - t1);
    printf("finalize_check: R%d: %s\n", me, fails ? "FAIL" : "ok");
    free(in);
    free(out);
    return fails ? 1 : 0;
}
