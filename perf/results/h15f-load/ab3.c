/* ab3.c (perf/results/h15f-load) — ab.c with what runs between the layer's batches chosen by
 * environment: AB_SAME (the layer again), AB_PB (PMPI_Barrier), AB_PB2 (PMPI_Allreduce on other
 * buffers), none (PMPI_X on the same buffers); see ab-alternation.txt.
 * As ab.c: batches of MPI_X
 * (through libplexus-mpi when preloaded) alternate with batches of PMPI_X
 * (the MPI itself), so both see the same placement and the same load.
 * Per collective and size: median and minimum per-call time of each, ratio.
 *   mpicc -O2 ab.c -o ab; mpirun -n 2 -x LD_PRELOAD=.../libplexus-mpi-openmpi.so ./ab 8,64,512,4096,32768 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static int n;
static void run(int k, int layer, char *s, char *r, int bytes)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int per = bytes / n > 0 ? bytes / n : 1;
    switch (k) {
    case 0: layer ? MPI_Allreduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, w) : PMPI_Allreduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, w); break;
    case 1: layer ? MPI_Reduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, 0, w) : PMPI_Reduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, 0, w); break;
    case 2: layer ? MPI_Bcast(s, bytes, MPI_BYTE, 0, w) : PMPI_Bcast(s, bytes, MPI_BYTE, 0, w); break;
    case 3: layer ? MPI_Allgather(s, per, MPI_BYTE, r, per, MPI_BYTE, w) : PMPI_Allgather(s, per, MPI_BYTE, r, per, MPI_BYTE, w); break;
    case 4: layer ? MPI_Alltoall(s, per, MPI_BYTE, r, per, MPI_BYTE, w) : PMPI_Alltoall(s, per, MPI_BYTE, r, per, MPI_BYTE, w); break;
    case 5: layer ? MPI_Barrier(w) : PMPI_Barrier(w); break;
    }
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *names[] = { "allreduce", "reduce", "bcast", "allgather", "alltoall", "barrier" };
    char sizes[256]; strncpy(sizes, argc > 1 ? argv[1] : "8,64,512,4096", sizeof sizes - 1); sizes[255] = 0;
    int nb = argc > 2 ? atoi(argv[2]) : 100;
    char *s = calloc(1 << 24, 1), *r = calloc(1 << 24, 1);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int bytes = atoi(tok);
        for (int k = 0; k < 6; k++) {
            if (k == 5 && bytes != 8) continue;
            int per = bytes <= 4096 ? 100 : bytes <= 262144 ? 10 : 2;
            double *t[2] = { malloc(nb * sizeof(double)), malloc(nb * sizeof(double)) };
            for (int i = 0; i < 3; i++) { run(k, 0, s, r, bytes); run(k, 1, s, r, bytes); }
            for (int b = 0; b < 2 * nb; b++) {
                int layer = getenv("AB_SAME") ? 1 : (b & 1);
                PMPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < per; i++) { if (!layer && getenv("AB_PB")) PMPI_Barrier(MPI_COMM_WORLD); else if (!layer && getenv("AB_PB2")) PMPI_Allreduce(r + (1<<23), s + (1<<23), bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); else run(k, layer, s, r, bytes); }
                double dt = (MPI_Wtime() - t0) / per * 1e6, mx;
                PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[layer][b / 2] = mx;
            }
            qsort(t[0], nb, sizeof(double), cmp); qsort(t[1], nb, sizeof(double), cmp);
            if (!rank) printf("%-9s %8d B  plain med %9.2f min %9.2f  layer med %9.2f min %9.2f us  ratio med %5.2f min %5.2f\n",
                              names[k], bytes, t[0][nb / 2], t[0][0], t[1][nb / 2], t[1][0], t[1][nb / 2] / t[0][nb / 2], t[1][0] / t[0][0]);
            free(t[0]); free(t[1]);
        }
    }
    MPI_Finalize();
    return 0;
}
