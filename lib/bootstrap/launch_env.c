/*
 * lib/bootstrap/launch_env.c — the last check before plx_init runs a
 * process alone: does the environment show that it is one of several
 * processes started together by a launcher that Plexus could not join?
 *
 * Why: mpirun.mpich, srun --mpi=none or an Open MPI mpirun with a Plexus
 * built without PMIx would otherwise start N independent 1-rank jobs that
 * all "succeed" (N models trained, N allreduces of one rank each).  Each
 * launcher leaves its mark in the environment; when one shows more than
 * one process, plx_init fails with the variables it saw and the fix.
 * PLX_ALLOW_SINGLETON=1 runs such a process alone on purpose (a parameter
 * sweep of independent 1-rank runs).
 */
#include "plx_internal.h"
#include "bootstrap/oob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a PMIx launch could not be joined, by build. */
#if PLX_HAVE_PMIX
#define PMIX_WHY "the launcher's PMIx server did not answer PMIx_Init."
#else
#define PMIX_WHY "this Plexus was built without PMIx (install libpmix-dev, rerun configure)."
#endif

/* The value of name as a non-negative integer, or -1 (unset, not a number). */
static long int_var(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (*end || errno || v < 0) ? -1 : v;
}

/* The value of name when it is a size > 1 (a job of several), else 0. */
static long size_var(const char *name)
{
    long v = int_var(name);
    return v >= 2 ? v : 0;
}

/* Append " NAME=value" for each name that is set. */
static void note(char *seen, size_t cap, const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        size_t n = strlen(seen);
        if (v && n + 1 < cap) snprintf(seen + n, cap - n, " %s=%.24s", *names, v);
    }
}

plx_status_t plx_launch_env_check(void)
{
    const char *allow = getenv("PLX_ALLOW_SINGLETON");
    if (allow && strcmp(allow, "0") && strcmp(allow, "1")) {
        plx_error("plx_init: PLX_ALLOW_SINGLETON='%.40s' is not 0 or 1 (1: run alone even when "
                  "the environment shows a launch of several processes)", allow);
        return PLX_ERR_INVALID_ARG;
    }
    if (allow && strcmp(allow, "1") == 0) return PLX_SUCCESS;

    char seen[512] = "", why[512] = "";
    long n = 0;
    if (size_var("PMI_SIZE")) {   /* hydra (mpirun.mpich), srun --mpi=pmi2 */
        static const char *const v[] = { "PMI_RANK", "PMI_SIZE", "PMI_FD", "PMI_PORT", NULL };
        note(seen, sizeof seen, v);
        n = size_var("PMI_SIZE");
        snprintf(why + strlen(why), sizeof why - strlen(why), " %s",
                 getenv("PMI_FD") ? "PMI_FD is not a descriptor this process holds (a child of a PMI process?)."
                                  : "neither PMI_FD nor PMI_PORT says where the PMI server is.");
    }
    if (size_var("OMPI_COMM_WORLD_SIZE")) {   /* Open MPI's mpirun */
        static const char *const v[] = { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", NULL };
        note(seen, sizeof seen, v);
        if (!n) n = size_var("OMPI_COMM_WORLD_SIZE");
        snprintf(why + strlen(why), sizeof why - strlen(why), " %s", PMIX_WHY);
    }
    if (size_var("SLURM_STEP_NUM_TASKS") && getenv("SLURM_PROCID")) {   /* srun */
        static const char *const v[] = { "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_MPI_TYPE", NULL };
        note(seen, sizeof seen, v);
        if (!n) n = size_var("SLURM_STEP_NUM_TASKS");
        if (getenv("PMIX_RANK"))   /* srun --mpi=pmix */
            snprintf(why + strlen(why), sizeof why - strlen(why), " srun --mpi=pmix: %s", PMIX_WHY);
        else if (!getenv("PMI_SIZE"))
            snprintf(why + strlen(why), sizeof why - strlen(why), " %s",
                     "srun gave no PMI (srun --mpi=none, or a default MpiDefault=none): use srun --mpi=pmix or --mpi=pmi2.");
    }
    if (!n && int_var("PMIX_RANK") >= 1) {   /* another PMIx launcher (prterun...): rank > 0 */
        static const char *const v[] = { "PMIX_RANK", "PMIX_NAMESPACE", NULL };
        note(seen, sizeof seen, v);
        n = -1;   /* several, how many unknown */
        snprintf(why + strlen(why), sizeof why - strlen(why), " %s", PMIX_WHY);
    }
    if (size_var("MPI_LOCALNRANKS") && !n) {   /* hydra without PMI_SIZE (unusual) */
        static const char *const v[] = { "MPI_LOCALRANKID", "MPI_LOCALNRANKS", NULL };
        note(seen, sizeof seen, v);
        n = size_var("MPI_LOCALNRANKS");
        snprintf(why + strlen(why), sizeof why - strlen(why), " hydra's PMI variables are missing.");
    }
    if (!n) return PLX_SUCCESS;
    char count[24] = "N";
    if (n > 0) snprintf(count, sizeof count, "%ld", n);
    plx_error("plx_init: this process is one of %s started together (%s), but Plexus cannot join "
              "their launcher:%s Running alone would make %s separate 1-rank jobs, so plx_init "
              "refuses.  Start the program with plexusrun -n %s, mpirun.mpich -n %s, srun "
              "--mpi=pmix or --mpi=pmi2, or Open MPI's mpirun with a PMIx build of Plexus; "
              "PLX_ALLOW_SINGLETON=1 runs each process alone on purpose.",
              n > 0 ? count : "several", seen + 1, why, count, count, count);
    return PLX_ERR_BOOTSTRAP;
}
