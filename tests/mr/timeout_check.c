/*
 * tests/mr/timeout_check.c — a collective that one rank never joins ends
 * with PLX_ERR_TIMEOUT on the others after PLX_TIMEOUT seconds, not a hang.
 *
 * Why: every wait is bounded (PLX_TIMEOUT, seconds): a dead or stuck peer
 * gives PLX_ERR_TIMEOUT / PLX_ERR_PEER_FAILED, not a hang (README), and
 * sched.h (the error comes with a message naming the collective and the
 * peers that never arrived).
 *
 * Run with exactly 3 ranks and PLX_TIMEOUT=2 (set here unless the
 * environment gives 1..30 s):
 *   1. every rank: a warm-up allreduce (connections up) and a barrier;
 *      rank 0 broadcasts a CLOCK_REALTIME start stamp T;
 *   2. ranks 0 and 2 call plx_allreduce (1000 x int32); rank 1 does NOT
 *      (it is alive and just sleeps): 0 and 2 must get PLX_ERR_TIMEOUT
 *      between 0.75 x PLX_TIMEOUT and PLX_TIMEOUT + 4 s later, and the
 *      library prints a line naming "allreduce" and rank 1 (checked by
 *      run_misc.sh on the combined output; this program prints nothing that
 *      contains "rank 1" itself, so the grep cannot match our own lines);
 *   3. every rank waits until T + PLX_TIMEOUT + 5 s (so rank 1 meets the
 *      others neither too early nor too late) and calls plx_finalize, which
 *      should still work (it is collective over the bootstrap, not over the
 *      abandoned collective).
 * Every rank exits within ~PLX_TIMEOUT + 6 s (~8 s).  Exit 0 when ranks 0
 * and 2 saw PLX_ERR_TIMEOUT in time and finalize succeeded everywhere.
 * Output: `timeout_check: R<r>: ...` lines (deliberately not "rank <r>").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plexus.h"

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_until(double t)
{
    double d;
    while ((d = t - now_real()) > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* PLX_TIMEOUT from the environment if it is a sane value for this test
     * (1..30 s), else 2 */
    const char *e = getenv("PLX_TIMEOUT");
    if (!e || atof(e) < 1 || atof(e) > 30)
        setenv("PLX_TIMEOUT", "2", 1);
    const double tmo = atof(getenv("PLX_TIMEOUT"));

    plx_context_t ctx = NULL;
    plx_comm_t world = NULL;
    int me = -1, n = 0, fails = 0;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "timeout_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &me);
    plx_comm_size(world, &n);
    if (n != 3) {
        fprintf(stderr, "timeout_check: needs exactly 3 ranks (got %d)\n", n);
        plx_finalize(&ctx);
        return 2;
    }

    int32_t in[1000], out[1000];
    for (int i = 0; i < 1000; i++) in[i] = me + i;
    st = plx_allreduce(in, out, 1000, PLX_INT32, PLX_SUM, world);
    if (st != PLX_SUCCESS || out[0] != 3 || out[999] != 3 * 999 + 3) {
        printf("timeout_check: R%d: FAIL warm-up allreduce: %s\n", me, plx_strerror(st));
        return 1;
    }
    double start = now_real();
    st = plx_bcast(&start, 1, PLX_FLOAT64, 0, world);
    if (st == PLX_SUCCESS)
        st = plx_barrier(world);
    if (st != PLX_SUCCESS) {
        printf("timeout_check: R%d: FAIL bcast/barrier: %s\n", me, plx_strerror(st));
        return 1;
    }

    if (me != 1) {
        double t0 = now_real();
        st = plx_allreduce(in, out, 1000, PLX_INT32, PLX_SUM, world);
        double dt = now_real() - t0;
        printf("timeout_check: R%d: allreduce without R1 returned %d (%s) after %.2f s (PLX_TIMEOUT=%g)\n", me,
               (int)st, plx_strerror(st), dt, tmo);
        if (st != PLX_ERR_TIMEOUT) {
            printf("timeout_check: R%d: FAIL expected PLX_ERR_TIMEOUT\n", me);
            fails++;
        }
        if (dt < 0.75 * tmo || dt > tmo + 4.0) {
            printf("timeout_check: R%d: FAIL returned after %.2f s, expected about %g s\n", me, dt, tmo);
            fails++;
        }
    } else {
        printf("timeout_check: R1: skipping the allreduce on purpose\n");
    }

    sleep_until(start + tmo + 5.0);
    st = plx_finalize(&ctx);
    if (st != PLX_SUCCESS) {
        printf("timeout_check: R%d: FAIL plx_finalize after the abandoned allreduce: %d (%s)\n", me, (int)st,
               plx_strerror(st));
        fails++;
    }
    printf("timeout_check: R%d: %s\n", me, fails ? "FAIL" : "ok");
    return fails ? 1 : 0;
}
