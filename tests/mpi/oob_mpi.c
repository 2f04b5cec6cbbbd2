/*
 * tests/mpi/oob_mpi.c — an MPI program that starts Plexus over its own
 * communicator (plx_init_oob with an MPI_Allgather callback), then checks
 * Plexus collectives against MPI's own results.  Built and run by
 * tests/launchers.sh with mpicc / mpirun of Open MPI when they exist.
 * This is also the README's example of bootstrapping from MPI.
 */
#include <mpi.h>
#include <plexus.h>
#include <stdio.h>
#include <stdlib.h>

static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t bytes, void *user)
{
    MPI_Comm comm = *(MPI_Comm *)user;
    return MPI_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, comm) ==
                   MPI_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    plx_oob_t oob = { .rank = rank, .size = size, .allgather = mpi_allgather, .user = &comm };
    plx_context_t ctx;
    plx_status_t st = plx_init_oob(&oob, &ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "oob_mpi: rank %d: plx_init_oob: %s\n", rank, plx_strerror(st));
        MPI_Abort(comm, 1);
    }
    plx_comm_t world;
    plx_comm_world(ctx, &world);
    int prank = -1, psize = -1;
    plx_comm_rank(world, &prank);
    plx_comm_size(world, &psize);

    long fails = prank != rank || psize != size;
    enum { N = 100000 };
    double *in = malloc(N * sizeof *in), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++) in[i] = rank * 0.5 + i % 17;
    for (int n = 1; n <= N; n *= 10) {
        plx_allreduce(in, a, (size_t)n, PLX_FLOAT64, PLX_SUM, world);
        MPI_Allreduce(in, b, n, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < n; i++) fails += a[i] != b[i];
        int root = n % size;
        for (int i = 0; i < n; i++) a[i] = rank == root ? in[i] : -1;
        plx_bcast(a, (size_t)n, PLX_FLOAT64, root, world);
        for (int i = 0; i < n; i++) fails += a[i] != root * 0.5 + i % 17;
    }
    plx_finalize(&ctx);
    printf("oob_mpi: rank %d: plexus rank %d of %d, %ld failures\n", rank, prank, psize, fails);
    free(in);
    free(a);
    free(b);
    MPI_Finalize();
    return fails ? 1 : 0;
}
