/*
 * tests/mr/launch_check.c — the program other launchers start in
 * tests/launchers.sh and tests/slurm.sh (mpirun.mpich, mpirun.openmpi,
 * srun): it proves the job is one real job of N ranks, not N singletons.
 *
 *   launch_check --size N
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

static const char *first_env(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v) return v;
    }
    return "?";
}

int main(int argc, char **argv)
{
    long want = -1;
    if (argc == 3 && strcmp(argv[1], "--size") == 0) want = strtol(argv[2], NULL, 10);
    if (want < 1) {
        fprintf(stderr, "usage: launch_check --size N\n");
        return 2;
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
    static const char *const lr[] = { "PLX_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID",
                                      "OMPI_COMM_WORLD_LOCAL_RANK", NULL };
    static const char *const ls[] = { "PLX_LOCAL_SIZE", "SLURM_STEP_TASKS_PER_NODE", "MPI_LOCALNRANKS",
                                      "OMPI_COMM_WORLD_LOCAL_SIZE", NULL };
    if (!bad) printf("launch_check: rank %d of %d ok (local rank %s of %s)\n", rank, size,
                     first_env(lr), first_env(ls));
    fflush(stdout);
    st = plx_finalize(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "launch_check: rank %d: plx_finalize: %s\n", rank, plx_strerror(st));
        bad = 1;
    }
    return bad;
}
