/*
 * lib/api/abort.c — plx_abort: end the whole job now, as MPI_Abort.
 *
 * This process says why on stderr and exits at once (_exit: no atexit
 * handlers, no collective teardown that would wait for the peers; the shm
 * segments were unlinked at init, so nothing is left in /dev/shm).  Under
 * plexusrun it first writes "ABORT <world rank> <code>" to the pipe named
 * by PLX_ABORT_FD, so the launcher reports the abort as such and stops the
 * other ranks at once; other launchers see a failed rank.
 */
#include "plx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

plx_status_t plx_abort(plx_comm_t comm, int code)
{
    if (!plx_comm_ok(comm)) return plx_bad_arg("plx_abort", "invalid or freed communicator");
    int status = code >= 1 && code <= 255 ? code : 1;
    int world = comm->world_rank[comm->rank];
    /* always shown, whatever PLX_LOG says: the job is about to end */
    fprintf(stderr, "plexus[rank %d]: rank %d (world %d) called plx_abort with code %d on comm %u; "
            "ending the job (exit status %d)\n", world, comm->rank, world, code, comm->id, status);
    const char *fdv = getenv("PLX_ABORT_FD");
    if (fdv && *fdv) {
        char *end;
        long fd = strtol(fdv, &end, 10);
        if (*end == '\0' && fd > 2 && fd < 65536) {
            char line[64];
            int n = snprintf(line, sizeof line, "ABORT %d %d\n", world, code);
            /* one write under PIPE_BUF: never interleaved with another rank's */
            ssize_t w = write((int)fd, line, (size_t)n);
            (void)w;
        }
    }
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}
