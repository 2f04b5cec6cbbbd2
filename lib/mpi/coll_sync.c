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

static PM_NOINLINE int routed_Barrier(MPI_Comm comm)
{
    pm_mirror_t *m = pm_quick(PM_BIT(PM_BARRIER), comm);
    int rc = m ? barrier(m, comm, NULL) : PM_FALL;
    return rc == PM_FALL ? PMPI_Barrier(comm) : rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    if (pm_world_falls(PM_BIT(PM_BARRIER), comm))
        return PMPI_Barrier(comm);
    return routed_Barrier(comm);
}

static PM_NOINLINE int routed_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    pm_mirror_t *m = pm_quick(PM_BIT(PM_BARRIER), comm);
    int rc = m ? barrier(m, comm, request) : PM_FALL;
    return rc == PM_FALL ? PMPI_Ibarrier(comm, request) : rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    if (pm_world_falls(PM_BIT(PM_BARRIER), comm))
        return PMPI_Ibarrier(comm, request);
    return routed_Ibarrier(comm, request);
}

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

static PM_NOINLINE int routed_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm)
{
    pm_mirror_t *m = pm_quick(PM_BIT(PM_BCAST), comm);
    if (m && pm_size_falls(m, PM_BCAST, count, datatype, 1)) m = NULL;
    int rc = m ? bcast(m, buffer, count, datatype, root, comm, NULL) : PM_FALL;
    return rc == PM_FALL ? PMPI_Bcast(buffer, count, datatype, root, comm) : rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (pm_world_falls(PM_BIT(PM_BCAST), comm))
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    return routed_Bcast(buffer, count, datatype, root, comm);
}

static PM_NOINLINE int routed_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                     MPI_Comm comm, MPI_Request *request)
{
    pm_mirror_t *m = pm_quick(PM_BIT(PM_BCAST), comm);
    int rc = m ? bcast(m, buffer, count, datatype, root, comm, request) : PM_FALL;
    return rc == PM_FALL ? PMPI_Ibcast(buffer, count, datatype, root, comm, request) : rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    if (pm_world_falls(PM_BIT(PM_BCAST), comm))
        return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
    return routed_Ibcast(buffer, count, datatype, root, comm, request);
}
