/*
 * lib/bootstrap/oob.h — the out-of-band channel a context is started with: how the
 * ranks find each other before any transport exists (an allgather and a
 * barrier are all the core and the transports need from it).
 *
 * Backends, tried by plx_init in this order:
 *   tcp   plexusrun's (or rank 0's) authenticated rendezvous, when the PLX_*
 *         env interface is set (lib/bootstrap/, lib/bootstrap/oob_tcp.c);
 *   pmix  the launcher's PMIx server (mpirun of Open MPI, srun --mpi=pmix),
 *         when built with PMIx and one answers (lib/bootstrap/pmix.c);
 *   pmi   the launcher's PMI server on PMI_FD (MPICH's hydra: mpirun.mpich;
 *         srun --mpi=pmi2), lib/bootstrap/pmi.c;
 *   none  a process started alone: a 1-rank job, unless the environment
 *         shows a launch of several processes that none of the above could
 *         join (lib/bootstrap/launch_env.c: then plx_init fails).
 * plx_init_oob() takes a fourth, the application's own allgather (an MPI
 * code passes one over its communicator; lib/bootstrap/oob_user.c).
 */
#ifndef PLX_OOB_H
#define PLX_OOB_H

#include "plexus.h"
#include <stddef.h>

typedef struct plx_oob_ops {
    const char *name;
    /* Every rank contributes len bytes; all get size*len bytes in rank order. */
    plx_status_t (*allgather)(void *state, const void *mine, void *all, size_t len);
    plx_status_t (*barrier)(void *state);
    /* Release (no waiting for the other ranks). */
    void (*close)(void *state);
} plx_oob_ops_t;

/* What a backend reports when it opens. */
typedef struct plx_oob_info {
    int rank, size;
    char job_id[32];           /* short printable id, equal on all ranks */
} plx_oob_info_t;

/* tcp: the PLX_* env interface (lib/bootstrap/oob_tcp.c).  PLX_ERR_NOT_SUPPORTED when
 * the env interface is not set at all (then try the next backend). */
plx_status_t plx_oob_tcp_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                              void **state);

/* pmix (lib/bootstrap/pmix.c): PLX_ERR_NOT_SUPPORTED when not built with
 * PMIx or no PMIx server answers. */
plx_status_t plx_oob_pmix_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                               void **state);

/* pmi (lib/bootstrap/pmi.c): PLX_ERR_NOT_SUPPORTED when PMI_FD is not an
 * open descriptor of this process. */
plx_status_t plx_oob_pmi_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                              void **state);

/* Before running alone (lib/bootstrap/launch_env.c): PLX_ERR_BOOTSTRAP, with
 * a message naming the variables seen and the fix, when the environment
 * shows this process is one of several started by a launcher; also checks
 * PLX_ALLOW_SINGLETON (PLX_ERR_INVALID_ARG when not 0 or 1). */
plx_status_t plx_launch_env_check(void);

/* user: the application's allgather (lib/bootstrap/oob_user.c). */
plx_status_t plx_oob_user_open(const plx_oob_t *user, plx_oob_info_t *info,
                               const plx_oob_ops_t **ops, void **state);

#endif /* PLX_OOB_H */
