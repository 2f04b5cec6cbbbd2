/*
 * lib/mpi/init.c — MPI_Init, MPI_Init_thread and MPI_Finalize of
 * libplexus-mpi: Plexus starts right after MPI, over a private duplicate
 * of MPI_COMM_WORLD (as plx_init_oob does for codes that call it
 * themselves), and ends right before MPI.
 *
 * A bad PLX_MPI / PLX_MPI_COLLS value, or a rank where Plexus cannot
 * start, fails MPI_Init: the message names the variable (or Plexus'
 * reason) and MPI_COMM_WORLD's error handler gets MPI_ERR_ARG / MPI_ERR_OTHER
 * (fatal by default).  Ranks agree on success first, so either every rank
 * routes or none does.
 */
#include "layer.h"

#include <stdio.h>
#include <stdlib.h>

pm_state_t pm;

static int oob_allgather(const void *sendbuf, void *recvbuf, size_t bytes, void *user)
{
    MPI_Comm comm = *(MPI_Comm *)user;
    if (bytes > (size_t)0x7fffffff) return -1;
    return PMPI_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, comm) ==
                   MPI_SUCCESS ? 0 : -1;
}

static int start(int provided)
{
    char err[512];
    int enabled = 1;
    pm.thread_level = provided;
    pm.counting = pm_log_info();
    PMPI_Comm_rank(MPI_COMM_WORLD, &pm.world_rank);
    if (pm_policy_load(&enabled, err, sizeof err) != 0) {
        fprintf(stderr, "libplexus-mpi: rank %d: MPI_Init fails: %s\n", pm.world_rank, err);
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
        return MPI_ERR_ARG;
    }
    if (!enabled) return MPI_SUCCESS;           /* PLX_MPI=0: plain MPI */

    int size;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &pm.oob);
    if (rc != MPI_SUCCESS) return rc;
    plx_oob_t oob = { .rank = pm.world_rank, .size = size, .allgather = oob_allgather,
                      .user = &pm.oob };
    plx_status_t st = plx_init_oob(&oob, &pm.ctx);
    int ok = st == PLX_SUCCESS, all_ok = 0;
    /* plx_init_oob is collective, but one rank may still fail alone */
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, pm.oob);
    if (!all_ok) {
        if (ok)
            fprintf(stderr, "libplexus-mpi: rank %d: MPI_Init fails: Plexus did not start on "
                    "every rank (PLX_MPI=0 runs plain MPI)\n", pm.world_rank);
        else
            fprintf(stderr, "libplexus-mpi: rank %d: MPI_Init fails: Plexus did not start: %s "
                    "(PLX_MPI=0 runs plain MPI)\n", pm.world_rank, plx_strerror(st));
        /* a context that did start cannot be ended alone (plx_finalize is
         * collective): leave it to the process exit */
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    pm_errors_init();
    pm_types_init();
    rc = pm_mirror_init();
    if (rc != MPI_SUCCESS) return rc;
    pm.active = 1;
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) return rc;
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    return start(provided);
}

/* The level the application asked for is passed on unchanged: Plexus is
 * thread-safe at any level (one lock per context) and the layer's own
 * tables have locks of their own. */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc != MPI_SUCCESS) return rc;
    return start(*provided);
}

int MPI_Finalize(void)
{
    if (pm.active) {
        pm_drain();
        pm_user_ops_finalize();
        pm_summary_print();
        pm.active = 0;
        pm_mirror_finalize();
        plx_status_t st = plx_finalize(&pm.ctx);
        if (st != PLX_SUCCESS)
            fprintf(stderr, "libplexus-mpi: rank %d: plx_finalize: %s\n", pm.world_rank,
                    plx_strerror(st));
        PMPI_Comm_free(&pm.oob);
    }
    return PMPI_Finalize();
}
