/*
 * lib/api/local_rank.c — plx_local_rank: this process's place among the
 * ranks on its node, known BEFORE plx_init, so a GPU code can pick its
 * device (cudaSetDevice(local_rank % ndev)) before any CUDA context exists.
 *
 * Nothing is exchanged: each launcher already tells its processes, in its
 * own variables.  Read in this order, the first complete pair wins:
 *   PLX_LOCAL_RANK / PLX_LOCAL_SIZE          plexusrun, or plx_init (below)
 *   MPI_LOCALRANKID / MPI_LOCALNRANKS        MPICH's hydra (mpirun.mpich)
 *   OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE Open MPI's mpirun (PMIx)
 *   SLURM_LOCALID + this node's entry of SLURM_STEP_TASKS_PER_NODE
 *     (else SLURM_TASKS_PER_NODE, else SLURM_NTASKS_PER_NODE)   srun
 * The launchers that start the process directly come before Slurm because
 * Slurm's variables are inherited by everything started inside an
 * allocation: an mpirun in a batch script hands every rank the script's
 * SLURM_LOCALID=0.  PMIx exports no local-rank variable (OpenPMIx under
 * Open MPI sets only PMIX_RANK / PMIX_NAMESPACE / the server URI; the local
 * rank is a PMIx_Get, which needs PMIx_Init, i.e. plx_init): the PMIx
 * launchers (mpirun, srun --mpi=pmix) set the Open MPI / Slurm pair anyway.
 *
 * After plx_init, plx_local_rank_publish sets PLX_LOCAL_RANK/SIZE from
 * what node discovery found (ranks with the same hostname + boot id, or
 * PLX_NODE_ID), unless a launcher already set PLX_LOCAL_RANK, so later
 * code and child processes see it under any launcher.
 */
#include "plx_internal.h"
#include "local_rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOCAL_MAX (1 << 20)   /* as the PLX_LOCAL_* rows of lib/core/config.c */

/* -1: unset; -2: set but not a whole number in [lo, LOCAL_MAX]; else the value. */
static long read_int(const char *name, long lo)
{
    const char *s = getenv(name);
    if (!s) return -1;
    if (*s < '0' || *s > '9') return -2;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (*end || errno || v < lo || v > LOCAL_MAX) ? -2 : v;
}

/* The entry for node `node` of a Slurm tasks-per-node list such as
 * "2(x3),1" (three nodes with 2 tasks, then one with 1); -1 if the list is
 * malformed or has no such node. */
static long slurm_tasks_on_node(const char *list, long node)
{
    const char *p = list;
    long seen = 0;
    while (*p) {
        char *end;
        errno = 0;
        long n = strtol(p, &end, 10);
        if (end == p || errno || n < 0) return -1;
        long reps = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x') return -1;
            reps = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || reps < 1) return -1;
            p = end + 1;
        }
        if (node < seen + reps) return n;
        seen += reps;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return -1;
}

/* Slurm's pair: 1 found, 0 not there, -1 malformed (*bad names it). */
static int from_slurm(long *lr, long *ls, const char **bad)
{
    long id = read_int("SLURM_LOCALID", 0);
    if (id == -1) return 0;
    if (id == -2) { *bad = "SLURM_LOCALID"; return -1; }
    long node = read_int("SLURM_NODEID", 0);
    static const char *const lists[] = { "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE" };
    for (size_t i = 0; i < 2; i++) {
        const char *s = getenv(lists[i]);
        if (!s) continue;
        long n = slurm_tasks_on_node(s, node >= 0 ? node : 0);
        if (n < 1 || n <= id) { *bad = lists[i]; return -1; }
        *lr = id;
        *ls = n;
        return 1;
    }
    long n = read_int("SLURM_NTASKS_PER_NODE", 1);
    if (n == -1) return 0;   /* SLURM_LOCALID alone: no size */
    if (n == -2 || n <= id) { *bad = "SLURM_NTASKS_PER_NODE"; return -1; }
    *lr = id;
    *ls = n;
    return 1;
}

plx_status_t plx_local_rank(int *local_rank, int *local_size)
{
    if (local_rank) *local_rank = -1;
    if (local_size) *local_size = -1;
    static const char *const pairs[][2] = {
        { "PLX_LOCAL_RANK", "PLX_LOCAL_SIZE" },
        { "MPI_LOCALRANKID", "MPI_LOCALNRANKS" },
        { "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE" },
    };
    long lr = -1, ls = -1;
    const char *bad = NULL, *from = NULL;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && !from && !bad; i++) {
        long r = read_int(pairs[i][0], 0), s = read_int(pairs[i][1], 1);
        if (r == -1 && s == -1) continue;
        if (r < 0) bad = pairs[i][0];
        else if (s < 0 || r >= s) bad = pairs[i][1];
        else { lr = r; ls = s; from = pairs[i][0]; }
    }
    if (!from && !bad && from_slurm(&lr, &ls, &bad) == 1) from = "SLURM_LOCALID";
    if (bad) {
        const char *v = getenv(bad);
        return plx_bad_arg("plx_local_rank", "%s='%.40s' is not a valid local rank/size (set: "
                           "PLX_LOCAL_RANK=%.12s PLX_LOCAL_SIZE=%.12s)", bad, v ? v : "(unset)",
                           getenv("PLX_LOCAL_RANK") ? getenv("PLX_LOCAL_RANK") : "(unset)",
                           getenv("PLX_LOCAL_SIZE") ? getenv("PLX_LOCAL_SIZE") : "(unset)");
    }
    if (!from) {
        plx_debug("plx_local_rank: no launcher variable says where this process is on its node "
                  "(PLX_LOCAL_RANK, MPI_LOCALRANKID, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID)");
        return PLX_ERR_NOT_SUPPORTED;
    }
    if (local_rank) *local_rank = (int)lr;
    if (local_size) *local_size = (int)ls;
    return PLX_SUCCESS;
}

void plx_local_rank_publish(const int *node_of, int size, int rank)
{
    if (getenv("PLX_LOCAL_RANK") || !node_of || rank < 0 || rank >= size) return;
    int lr = 0, ls = 0;
    for (int q = 0; q < size; q++)
        if (node_of[q] == node_of[rank]) {
            if (q < rank) lr++;
            ls++;
        }
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", lr);
    snprintf(b, sizeof b, "%d", ls);
    if (setenv("PLX_LOCAL_SIZE", b, 1) == 0) setenv("PLX_LOCAL_RANK", a, 1);
}
