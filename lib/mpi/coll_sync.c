/*
 * lib/mpi/coll_sync.c — MPI_Barrier and MPI_Bcast, blocking and
 * nonblocking: to Plexus (plx_ibarrier, plx_ibcast of the bytes) when
 * routed, else to PMPI_ unchanged.
 */
#include "layer.h"

static int barrier(pm_mirror_t *m, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_BARRIER, m, comm, mreq)) return PM_FALL;
    if (!pm_call_route(&c, PM_TO_PLEXUS, 0)) return PM_FALL;
    plx_request_t preq = NULL;
    plx_status_t st = plx_ibarrier(c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Barrier, Ibarrier, PM_BIT(PM_BARRIER), 0, barrier(m, comm, pm_req), (MPI_Comm comm),
             (comm))

static int bcast(pm_mirror_t *m, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                 MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_BCAST, m, comm, mreq)) return PM_FALL;
    long size = pm_type_size(dt);
    if (count < 0 || size < 0 || root < 0 || root >= c.size) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    size_t bytes = (size_t)count * (size_t)size;
    if (!pm_call_route(&c, PM_TO_PLEXUS, bytes)) return PM_FALL;
    int rank = c.rank;
    void *p;
    int rc = pm_stage_open(&c.stage[c.nstage++], buf, count, 1, dt, rank == root, rank != root, &p);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    plx_request_t preq = NULL;
    plx_status_t st = plx_ibcast(p, bytes, PLX_UINT8, root, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Bcast, Ibcast, PM_BIT(PM_BCAST), pm_size_falls(pm_fast, m, PM_BCAST, count, datatype, 1),
             bcast(m, buffer, count, datatype, root, comm, pm_req),
             (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
             (buffer, count, datatype, root, comm))
