/*
 * lib/mpi/call.c — one path for every routed collective call: find the
 * communicator's twin, decide (counting why), and after the plx_i* call
 * either wait (blocking MPI call) or hand back an MPI request
 * (nonblocking one, requests.c).
 *
 * The twin is looked up last (comm_mirror.c); a blocking call may make
 * it there, a nonblocking one never does (it stays with MPI until a
 * blocking routed call has made the twin).
 *
 * A blocking call waits with plx_test plus, after a short spin, a poke of
 * MPI's progress engine and a yield each round: MPI promises progress for
 * the application's own pending MPI requests while it sits in any MPI
 * call (an Isend posted before the collective must still move), and on an
 * oversubscribed node the peer we wait for may need this core.  Plexus
 * ends a request that waits longer than PLX_TIMEOUT, so the loop is
 * bounded.
 */
#include "layer.h"

#include <sched.h>

/* PM_TO_PLEXUS with the twin made, or why the call stays with MPI */
int pm_call_twin(pm_call_t *c)
{
    pm_mirror_t *m = c->m;
    if (m->twin == PM_TWIN_NEVER) return PM_WHY_COMM;
    if (!c->blocking) return PM_WHY_LAZY;
    return pm_mirror_make_twin(m) ? PM_TO_PLEXUS : PM_WHY_COMM;
}

int pm_call_abandon(pm_call_t *c, int mpi_code)
{
    for (int i = 0; i < c->nstage; i++) {
        c->stage[i].out = 0;
        pm_stage_close(&c->stage[i]);
    }
    PMPI_Comm_call_errhandler(c->comm, mpi_code);
    return mpi_code;
}

static plx_status_t wait_plx(plx_request_t *preq)
{
    for (unsigned i = 0;; i++) {
        int done = 0;
        plx_status_t st = plx_test(preq, &done);
        if (done || st != PLX_SUCCESS) return st;
        if (i >= 64) {
            if ((i & 15) == 0) pm_poke_mpi();
            sched_yield();
        }
    }
}

int pm_call_finish(pm_call_t *c, plx_status_t st, plx_request_t preq, MPI_Request *mreq)
{
    if (st == PLX_SUCCESS && mreq) return pm_bridge(c, preq, mreq);
    if (mreq) *mreq = MPI_REQUEST_NULL;
    if (st == PLX_SUCCESS) st = wait_plx(&preq);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->nstage; i++) {
        if (st != PLX_SUCCESS) c->stage[i].out = 0;
        int r = pm_stage_close(&c->stage[i]);
        if (rc == MPI_SUCCESS) rc = r;
    }
    if (st != PLX_SUCCESS) return pm_raise(c->comm, st);
    if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(c->comm, rc);
    return rc;
}
