/*
 * lib/mpi/coll_scan.c — MPI_Scan and MPI_Exscan, blocking and nonblocking:
 * prefix reductions, routed like MPI_Allreduce (a datatype and op with
 * Plexus twins, user ops included) when PLX_MPI_COLLS names them; no
 * measurements yet, so the routing table leaves them to MPI.  Plexus
 * combines in rank order, so non-commutative user ops keep MPI's meaning.
 */
#include "layer.h"

static int scan(pm_mirror_t *m, int exclusive, const void *sbuf, void *rbuf, int count,
                MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, exclusive ? PM_EXSCAN : PM_SCAN, m, comm, mreq)) return PM_FALL;
    plx_dtype_t pdt;
    plx_op_t pop;
    long size = pm_type_size(dt);
    int bad = count < 0 || size < 0;
    size_t bytes = bad ? 0 : (size_t)count * (size_t)size;
    pm_why_t why = bad ? PM_WHY_ARGS : pm_route(c.m, c.coll, bytes);
    if (why == PM_TO_PLEXUS) why = pm_map_reduction(dt, op, &pdt, &pop);
    if (!pm_call_route(&c, why, bytes)) return PM_FALL;
    plx_request_t preq = NULL;
    plx_status_t st = exclusive
        ? plx_iexscan(pm_in_place(sbuf), rbuf, (size_t)count, pdt, pop, c.m->pc, &preq)
        : plx_iscan(pm_in_place(sbuf), rbuf, (size_t)count, pdt, pop, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Scan, Iscan, PM_BIT(PM_SCAN), pm_size_falls(pm_fast, m, PM_SCAN, count, datatype, 1),
             scan(m, 0, sendbuf, recvbuf, count, datatype, op, comm, pm_req),
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm),
             (sendbuf, recvbuf, count, datatype, op, comm))

PM_INTERCEPT(Exscan, Iexscan, PM_BIT(PM_EXSCAN), pm_size_falls(pm_fast, m, PM_EXSCAN, count, datatype, 1),
             scan(m, 1, sendbuf, recvbuf, count, datatype, op, comm, pm_req),
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm),
             (sendbuf, recvbuf, count, datatype, op, comm))
