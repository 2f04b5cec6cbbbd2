/*
 * tests/mr/kill_check.c — a rank dies by SIGKILL in the middle of a loop of
 * large allreduces.  Used by tests/devshm.sh to check that plexusrun exits
 * non-zero naming the dead rank and its signal, kills the other ranks, and
 * that nothing of the job is left in /dev/shm (README: segments are
 * unlinked as soon as every rank has mapped them, so a crash leaves
 * nothing).
 *
 * `kill_check [--victim V] [--iters N] [--count C] [--die-in-init USEC] [--tag X]`
 * Every rank runs N (default 40) allreduces of C (default 1<<20) float32
 * and checks two elements of each result.  After iteration 3 the victim
 * (default rank 2) arms a 2 ms one-shot timer whose handler sends SIGKILL to
 * its own process, so it dies while inside a collective; should it survive
 * to the end of the loop, it raises SIGKILL there.  The other ranks can
 * never finish: they either get an error back (printed; exit 3) or are
 * killed by plexusrun.  A surviving rank that completed the loop exits 1 —
 * that would mean the victim did not die.
 * --die-in-init USEC: instead, the victim (found by PLX_RANK) arms the timer
 * USEC microseconds before calling plx_init, so it dies while the job is
 * setting up (segments created but not yet mapped by everyone): the most
 * likely moment for a leak in /dev/shm.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "plexus.h"

static void die_now(int sig)
{
    (void)sig;
    kill(getpid(), SIGKILL);
}

int main(int argc, char **argv)
{
    int victim = 2, iters = 40;
    long init_usec = -1;
    size_t count = 1u << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--victim") && i + 1 < argc) victim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--die-in-init") && i + 1 < argc) init_usec = atol(argv[++i]);
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc) i++;
        else {
            fprintf(stderr, "usage: kill_check [--victim V] [--iters N] [--count C] [--die-in-init USEC] [--tag X]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (init_usec >= 0) {
        /* the victim is known by PLX_RANK before plx_init */
        const char *r = getenv("PLX_RANK");
        if (r && atoi(r) == victim) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = die_now;
            sigaction(SIGALRM, &sa, NULL);
            struct itimerval tv = {{0, 0}, {init_usec / 1000000, init_usec % 1000000}};
            if (init_usec == 0) tv.it_value.tv_usec = 1;
            setitimer(ITIMER_REAL, &tv, NULL);
        }
    }
    plx_context_t ctx = NULL;
    plx_comm_t world = NULL;
    int me = -1, n = 0;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "kill_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &me);
    plx_comm_size(world, &n);
    if (victim < 0 || victim >= n) {
        fprintf(stderr, "kill_check: victim %d out of range (size %d)\n", victim, n);
        return 2;
    }
    float *in = malloc(count * sizeof(float)), *out = malloc(count * sizeof(float));
    if (!in || !out) {
        fprintf(stderr, "kill_check: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < count; i++) in[i] = (float)((me + (int)i) % 5);

    for (int it = 0; it < iters; it++) {
        if (me == victim && it == 3) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = die_now;
            sigaction(SIGALRM, &sa, NULL);
            struct itimerval tv = {{0, 0}, {0, 2000}};
            setitimer(ITIMER_REAL, &tv, NULL);
            printf("kill_check: victim R%d arms SIGKILL during iteration %d\n", me, it);
        }
        st = plx_allreduce(in, out, count, PLX_FLOAT32, PLX_SUM, world);
        if (st != PLX_SUCCESS) {
            printf("kill_check: R%d: allreduce %d returned %d (%s)\n", me, it, (int)st, plx_strerror(st));
            /* the expected end; exit() rather than return keeps the
             * unfinalized context reachable for make check-sanitize's
             * leak check (a peer died: no finalize here) */
            free(in);
            free(out);
            exit(3);
        }
        float want0 = 0, want1 = 0;
        for (int r = 0; r < n; r++) {
            want0 += (float)(r % 5);
            want1 += (float)((r + (int)(count - 1)) % 5);
        }
        if (out[0] != want0 || out[count - 1] != want1) {
            printf("kill_check: R%d: allreduce %d wrong result\n", me, it);
            return 4;
        }
    }
    if (me == victim)
        raise(SIGKILL);
    printf("kill_check: R%d: finished the loop although R%d should have died\n", me, victim);
    plx_finalize(&ctx);
    return 1;
}
