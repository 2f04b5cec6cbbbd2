/*
 * tests/mr/launch_check.c — the program other launchers start in
 * tests/launchers.sh and tests/slurm.sh (mpirun.mpich, mpirun.openmpi,
 * srun): it proves the job is one real job of N ranks, not N singletons.
 *
 *   launch_check --size N
 *   launch_check --local      only plx_local_rank(), no plx_init: prints
 *                             "local L of M", or the status's name
 *
 * plx_init, then: the world size must be N; an allreduce (sum) of rank+1
 * over int64 must give N(N+1)/2; an allgather of the ranks must give
 * 0..N-1 in order.  Prints
 *   launch_check: rank R of N ok (local rank L of M)
 * and exits 0, or prints what was wrong and exits 1.  The local rank is
 * what the launcher told the process (PLX_LOCAL_RANK under plexusrun,
 * SLURM_LOCALID, MPI_LOCALRANKID, OMPI_COMM_WORLD_LOCAL_RANK), "?" if none.
 */
#include <plexus.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long want = -1;
    if (argc == 2 && strcmp(argv[1], "--local") == 0) {
        int lr = -7, ls = -7;
        plx_status_t st = plx_local_rank(&lr, &ls);
        if (st == PLX_SUCCESS) printf("local %d of %d\n", lr, ls);
        else printf("%s (%d %d)\n", plx_strerror(st), lr, ls);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--size") == 0) want = strtol(argv[2], NULL, 10);
    if (want < 1) {
        fprintf(stderr, "usage: launch_check --size N\n");
        return 2;
    }
    int pre_lr = -1, pre_ls = -1;
    plx_status_t lst = plx_local_rank(&pre_lr, &pre_ls);   /* before plx_init */
    if (lst != PLX_SUCCESS && lst != PLX_ERR_NOT_SUPPORTED) {
        fprintf(stderr, "launch_check: plx_local_rank: %s\n", plx_strerror(lst));
        return 1;
    }
    plx_context_t ctx;
    plx_comm_t world;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "launch_check: plx_init: %s\n", plx_strerror(st));
        return 1;
    }
    int rank = -1, size = -1, bad = 0;
    if ((st = plx_comm_world(ctx, &world)) != PLX_SUCCESS ||
        (st = plx_comm_rank(world, &rank)) != PLX_SUCCESS ||
        (st = plx_comm_size(world, &size)) != PLX_SUCCESS) {
        fprintf(stderr, "launch_check: world: %s\n", plx_strerror(st));
        return 1;
    }
    if (size != want) {
        fprintf(stderr, "launch_check: rank %d: world size %d, expected %ld (separate jobs?)\n",
                rank, size, want);
        bad = 1;
    }
    int64_t v = rank + 1;
    st = plx_allreduce(PLX_IN_PLACE, &v, 1, PLX_INT64, PLX_SUM, world);
    if (st != PLX_SUCCESS || v != (int64_t)size * (size + 1) / 2) {
        fprintf(stderr, "launch_check: rank %d: allreduce gave %lld (%s), expected %lld\n", rank,
                (long long)v, plx_strerror(st), (long long)size * (size + 1) / 2);
        bad = 1;
    }
    int32_t me = rank, *all = calloc((size_t)size, sizeof *all);
    st = all ? plx_allgather(&me, all, 1, PLX_INT32, world) : PLX_ERR_NO_MEMORY;
    for (int r = 0; st == PLX_SUCCESS && r < size; r++)
        if (all[r] != r) st = PLX_ERR_INTERNAL;
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "launch_check: rank %d: allgather of the ranks is wrong (%s)\n", rank,
                plx_strerror(st));
        bad = 1;
    }
    free(all);
    /* after plx_init the pair is in the environment, whoever launched us */
    int post_lr = -1, post_ls = -1;
    const char *e_lr = getenv("PLX_LOCAL_RANK"), *e_ls = getenv("PLX_LOCAL_SIZE");
    if (!e_lr || !e_ls || plx_local_rank(&post_lr, &post_ls) != PLX_SUCCESS || post_lr != atoi(e_lr) ||
        post_ls != atoi(e_ls)) {
        fprintf(stderr, "launch_check: rank %d: after plx_init PLX_LOCAL_RANK=%s PLX_LOCAL_SIZE=%s\n",
                rank, e_lr ? e_lr : "(unset)", e_ls ? e_ls : "(unset)");
        bad = 1;
    } else if (lst == PLX_SUCCESS && (pre_lr != post_lr || pre_ls != post_ls)) {
        fprintf(stderr, "launch_check: rank %d: the launcher said local rank %d of %d, plx_init "
                "found %d of %d\n", rank, pre_lr, pre_ls, post_lr, post_ls);
        bad = 1;
    }
    if (!bad) printf("launch_check: rank %d of %d ok (local rank %d of %d%s)\n", rank, size,
                     post_lr, post_ls, lst == PLX_SUCCESS ? "" : ", found by plx_init");
    fflush(stdout);
    st = plx_finalize(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "launch_check: rank %d: plx_finalize: %s\n", rank, plx_strerror(st));
        bad = 1;
    }
    return bad;
}
