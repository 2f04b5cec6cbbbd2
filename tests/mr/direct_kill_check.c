/*
 * tests/mr/direct_kill_check.c — a rank dies by SIGKILL in the middle of a
 * loop of large collectives, and every other rank must get
 * PLX_ERR_PEER_FAILED back (not a hang, not a timeout, not a wrong result).
 * run_direct.sh runs it with the single-copy ("direct") algorithms forced
 * through PLX_TUNE, and with PLX_SHM_CMA=0 (their fallback).
 *
 * `direct_kill_check --coll NAME [--victim V] [--root R] [--iters N] [--count C] [--huge]`
 * --huge: each buffer 2 MiB-aligned and touched whole to a 2 MiB multiple,
 * so that PLX_DIRECT_THP can collapse all of it (allgather, alltoall and
 * 2-rank reduce_scatter then read their peers' inputs with CMA instead of
 * staging them where lib/coll/node_direct.c's huge_read says so).
 * NAME: allreduce, reduce_scatter, reduce, bcast, allgather, alltoall,
 * gather, scatter.  The victim forks before plx_init: the child becomes
 * the rank and the parent (which plexusrun watches) only waits for it, so
 * plexusrun does not stop the job when the rank dies and the survivors
 * have all the time PLX_TIMEOUT gives them to notice.  After iteration 2
 * the child arms a 1 ms timer that SIGKILLs it, i.e. while inside a
 * collective.  Exit status: survivors 0 if their first error is
 * PLX_ERR_PEER_FAILED, 1 otherwise (another error, or the loop finished);
 * the victim's parent 0 if the child died by SIGKILL.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plexus.h"

static void die_now(int sig)
{
    (void)sig;
    kill(getpid(), SIGKILL);
}

static plx_status_t run_one(const char *coll, float *in, float *out, size_t count, int root,
                            plx_comm_t world)
{
    if (!strcmp(coll, "allreduce")) return plx_allreduce(in, out, count, PLX_FLOAT32, PLX_SUM, world);
    if (!strcmp(coll, "reduce_scatter"))
        return plx_reduce_scatter(in, out, count, PLX_FLOAT32, PLX_SUM, world);
    if (!strcmp(coll, "reduce")) return plx_reduce(in, out, count, PLX_FLOAT32, PLX_SUM, root, world);
    if (!strcmp(coll, "bcast")) return plx_bcast(out, count, PLX_FLOAT32, root, world);
    if (!strcmp(coll, "allgather")) return plx_allgather(in, out, count, PLX_FLOAT32, world);
    if (!strcmp(coll, "alltoall")) return plx_alltoall(in, out, count, PLX_FLOAT32, world);
    if (!strcmp(coll, "gather")) return plx_gather(in, out, count, PLX_FLOAT32, root, world);
    if (!strcmp(coll, "scatter")) return plx_scatter(in, out, count, PLX_FLOAT32, root, world);
    return PLX_ERR_INVALID_ARG;
}

int main(int argc, char **argv)
{
    int victim = 1, iters = 200, root = 0, huge = 0;
    size_t count = 1u << 20;
    const char *coll = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--victim") && i + 1 < argc) victim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--root") && i + 1 < argc) root = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--coll") && i + 1 < argc) coll = argv[++i];
        else if (!strcmp(argv[i], "--huge")) huge = 1;
        else {
            fprintf(stderr, "usage: direct_kill_check --coll NAME [--victim V] [--root R] [--iters N] "
                            "[--count C] [--huge]\n");
            return 2;
        }
    }
    if (!coll) {
        fprintf(stderr, "direct_kill_check: --coll is required\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *r = getenv("PLX_RANK");
    int is_victim = r && atoi(r) == victim;
    if (is_victim) {
        pid_t child = fork();
        if (child < 0) {
            perror("direct_kill_check: fork");
            return 1;
        }
        if (child > 0) {
            int st = 0;
            if (waitpid(child, &st, 0) != child) return 1;
            int ok = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
            printf("direct_kill_check: victim R%d's process %s\n", victim,
                   ok ? "died by SIGKILL" : "did not die by SIGKILL");
            return ok ? 0 : 1;
        }
    }
    plx_context_t ctx = NULL;
    plx_comm_t world = NULL;
    int me = -1, n = 0;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "direct_kill_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &me);
    plx_comm_size(world, &n);
    size_t total = count * (size_t)n;   /* room for every collective's largest buffer */
    float *in = NULL, *out = NULL;
    if (huge) {
        size_t thp = (size_t)2 << 20, len = (total * sizeof(float) + thp - 1) / thp * thp;
        if (posix_memalign((void **)&in, thp, len) != 0 || posix_memalign((void **)&out, thp, len) != 0)
            in = out = NULL;
        else {
            memset(in, 0, len);
            memset(out, 0, len);
        }
    } else {
        in = malloc(total * sizeof(float));
        out = malloc(total * sizeof(float));
    }
    if (!in || !out) {
        fprintf(stderr, "direct_kill_check: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < total; i++) in[i] = out[i] = (float)((me + (int)i) % 5);

    for (int it = 0; it < iters; it++) {
        if (is_victim && it == 2) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = die_now;
            sigaction(SIGALRM, &sa, NULL);
            struct itimerval tv = {{0, 0}, {0, 1000}};
            setitimer(ITIMER_REAL, &tv, NULL);
        }
        st = run_one(coll, in, out, count, root, world);
        if (st != PLX_SUCCESS) {
            printf("direct_kill_check: R%d: %s %d returned %s\n", me, coll, it, plx_strerror(st));
            /* no finalize: a peer is dead, leave like an application would
             * on error; exit() rather than return keeps the unfinalized
             * context reachable for make check-sanitize's leak check (as
             * kill_check does), and the buffers go back */
            free(in);
            free(out);
            exit(st == PLX_ERR_PEER_FAILED ? 0 : 1);
        }
    }
    if (is_victim) raise(SIGKILL);
    printf("direct_kill_check: R%d: finished %d iterations although R%d should have died\n", me, iters,
           victim);
    return 1;
}
