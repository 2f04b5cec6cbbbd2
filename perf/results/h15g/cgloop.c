/* cgloop.c (perf/results/h15g) — instructions per MPI collective call under callgrind,
 * load-independent (no PMU in this VM): for each collective, 2000 calls at BYTES on
 * MPI_COMM_WORLD between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT, so each dump holds
 * exactly those calls.  Run plain and with libplexus-mpi preloaded: the difference per call
 * is what the layer adds (layer_cost.sh does both and prints it).
 *   mpicc -O2 cgloop.c -o cgloop; valgrind --tool=callgrind ./cgloop allreduce,reduce 8 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *which = argc > 1 ? argv[1] : "allreduce,reduce,bcast,allgather,alltoall,barrier";
    int bytes = argc > 2 ? atoi(argv[2]) : 8, calls = 2000;
    char *s = calloc(1 << 20, 1), *r = calloc(1 << 20, 1);
    const char *names[] = { "allreduce", "reduce", "bcast", "allgather", "alltoall", "barrier" };
    MPI_Comm w = MPI_COMM_WORLD;
    for (int k = 0; k < 6; k++) {
        if (!strstr(which, names[k])) continue;
        for (int pass = 0; pass < 2; pass++) {      /* pass 0 warms up (first-call work) */
            CALLGRIND_ZERO_STATS;
            for (int i = 0; i < calls; i++) switch (k) {
                case 0: MPI_Allreduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, w); break;
                case 1: MPI_Reduce(s, r, bytes / 4, MPI_FLOAT, MPI_SUM, 0, w); break;
                case 2: MPI_Bcast(s, bytes, MPI_BYTE, 0, w); break;
                case 3: MPI_Allgather(s, bytes / n, MPI_BYTE, r, bytes / n, MPI_BYTE, w); break;
                case 4: MPI_Alltoall(s, bytes / n, MPI_BYTE, r, bytes / n, MPI_BYTE, w); break;
                case 5: MPI_Barrier(w); break;
            }
            if (pass) CALLGRIND_DUMP_STATS_AT(names[k]);
        }
    }
    MPI_Finalize();
    return 0;
}
