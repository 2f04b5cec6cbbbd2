/*
 * lib/mpi/errors.c — a Plexus failure as an MPI error.
 *
 * Each plx_status_t gets an MPI error code of the matching MPI class
 * (made once with MPI_Add_error_code, with MPI_Add_error_string giving it
 * Plexus' sentence, so MPI_Error_string and MPI's fatal handler say what
 * happened; where the MPI cannot do that — MPICH 4.0 — the class itself
 * is the code), and the failure goes to the communicator's error handler as
 * MPI does: MPI_ERRORS_ARE_FATAL unless the application set another.
 * Plexus has already logged the details (a timeout names the collective
 * and the ranks that never arrived).
 */
#include "layer.h"

#include <stdio.h>
#include <string.h>

static int codes[PLX_STATUS_COUNT];

static int class_of(plx_status_t st)
{
    switch (st) {
    case PLX_SUCCESS: return MPI_SUCCESS;
    case PLX_ERR_INVALID_ARG: return MPI_ERR_ARG;
    case PLX_ERR_NO_MEMORY: return MPI_ERR_NO_MEM;
    case PLX_ERR_NOT_SUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case PLX_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case PLX_ERR_INTERNAL: return MPI_ERR_INTERN;
    case PLX_ERR_MISMATCH: return MPI_ERR_ARG;
    default: return MPI_ERR_OTHER;      /* timeout, dead peer, transport, bootstrap */
    }
}

void pm_errors_init(void)
{
    /* a refusal must not trip MPI_COMM_WORLD's fatal handler */
    MPI_Errhandler saved;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int s = 1; s < PLX_STATUS_COUNT; s++) {
        int cls = class_of((plx_status_t)s), code;
        codes[s] = cls;
        if (PMPI_Add_error_code(cls, &code) != MPI_SUCCESS) continue;
        char msg[MPI_MAX_ERROR_STRING];
        snprintf(msg, sizeof msg, "Plexus: %s", plx_strerror((plx_status_t)s));
        if (PMPI_Add_error_string(code, msg) != MPI_SUCCESS) continue;
        /* MPICH 4.0 takes the code but decodes it as one of its own
         * messages: keep a code only when MPI gives our text back */
        char back[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (PMPI_Error_string(code, back, &len) == MPI_SUCCESS && !strcmp(back, msg))
            codes[s] = code;
    }
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, saved);
    PMPI_Errhandler_free(&saved);
}

int pm_error_code(plx_status_t st)
{
    if (st == PLX_SUCCESS) return MPI_SUCCESS;
    if ((int)st < 0 || st >= PLX_STATUS_COUNT || !codes[st]) return class_of(st);
    return codes[st];
}

int pm_raise(MPI_Comm comm, plx_status_t st)
{
    int code = pm_error_code(st);
    if (code != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, code);
    return code;
}
