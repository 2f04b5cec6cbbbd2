/*
 * lib/mpi/coll_reduce.c — MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block
 * and MPI_Reduce_scatter (equal counts: plx_reduce_scatter; unequal:
 * plx_reduce_scatterv), blocking and nonblocking.  Routed when the
 * datatype and op have Plexus twins (dtype_map.c, user ops included) and
 * the routing table agrees.  The table is asked first: it is the cheaper
 * test and says no to most calls, which then go to MPI at once (counted
 * as "size rule" or "not measured" even when the type would have kept
 * them there too).
 */
#include "layer.h"

static int reduce(pm_mirror_t *m, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_REDUCE, m, comm, mreq)) return PM_FALL;
    plx_dtype_t pdt;
    plx_op_t pop;
    long size = pm_type_size(dt);
    int bad = count < 0 || size < 0 || root < 0 || root >= c.size;
    size_t bytes = bad ? 0 : (size_t)count * (size_t)size;
    pm_why_t why = bad ? PM_WHY_ARGS : pm_route(c.m, PM_REDUCE, bytes);
    if (why == PM_TO_PLEXUS) why = pm_map_reduction(dt, op, &pdt, &pop);
    if (!pm_call_route(&c, why, bytes)) return PM_FALL;
    int rank = c.rank;
    plx_request_t preq = NULL;
    plx_status_t st = plx_ireduce(pm_in_place(sbuf), rank == root ? rbuf : NULL, (size_t)count,
                                  pdt, pop, root, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Reduce, Ireduce, PM_BIT(PM_REDUCE), pm_size_falls(pm_fast, m, PM_REDUCE, count, datatype, 1),
             reduce(m, sendbuf, recvbuf, count, datatype, op, root, comm, pm_req),
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm),
             (sendbuf, recvbuf, count, datatype, op, root, comm))

static int allreduce(pm_mirror_t *m, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                     MPI_Op op, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_ALLREDUCE, m, comm, mreq)) return PM_FALL;
    plx_dtype_t pdt;
    plx_op_t pop;
    long size = pm_type_size(dt);
    int bad = count < 0 || size < 0;
    size_t bytes = bad ? 0 : (size_t)count * (size_t)size;
    pm_why_t why = bad ? PM_WHY_ARGS : pm_route(c.m, PM_ALLREDUCE, bytes);
    if (why == PM_TO_PLEXUS) why = pm_map_reduction(dt, op, &pdt, &pop);
    if (!pm_call_route(&c, why, bytes)) return PM_FALL;
    plx_request_t preq = NULL;
    plx_status_t st = plx_iallreduce(pm_in_place(sbuf), rbuf, (size_t)count, pdt, pop, c.m->pc,
                                     &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Allreduce, Iallreduce, PM_BIT(PM_ALLREDUCE),
             pm_size_falls(pm_fast, m, PM_ALLREDUCE, count, datatype, 1),
             allreduce(m, sendbuf, recvbuf, count, datatype, op, comm, pm_req),
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm),
             (sendbuf, recvbuf, count, datatype, op, comm))

/* block: the _block form with recvcount, else recvcounts; unequal counts
 * go to plx_reduce_scatterv, counted as reduce_scatterv */
static int reduce_scatter(pm_mirror_t *m, const void *sbuf, void *rbuf, int block, int recvcount,
                          const int *recvcounts, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_REDUCE_SCATTER, m, comm, mreq)) return PM_FALL;
    plx_dtype_t pdt;
    plx_op_t pop;
    pm_why_t why = pm_map_reduction(dt, op, &pdt, &pop);
    long size = pm_type_size(dt);
    size_t total = 0;
    if (!block && !recvcounts) {
        recvcount = -1;                 /* MPI reports it */
    } else if (!block) {
        recvcount = recvcounts[0];
        for (int i = 0; i < c.size; i++) {
            if (recvcounts[i] != recvcount) c.coll = PM_REDUCE_SCATTERV;
            if (recvcounts[i] < 0) why = PM_WHY_ARGS;
            else total += (size_t)recvcounts[i];
        }
    } else {
        total = (size_t)recvcount * (size_t)c.size;
    }
    if (recvcount < 0 || size < 0) why = PM_WHY_ARGS;
    size_t bytes = why == PM_WHY_ARGS ? 0 : total * (size_t)size;
    if (!pm_call_route(&c, why, bytes)) return PM_FALL;
    plx_request_t preq = NULL;
    plx_status_t st;
    if (c.coll == PM_REDUCE_SCATTERV) {
        size_t *counts = pm_mirror_scratch(c.m, 1);
        if (!counts) return pm_call_abandon(&c, MPI_ERR_NO_MEM);
        for (int i = 0; i < c.size; i++) counts[i] = (size_t)recvcounts[i];
        st = plx_ireduce_scatterv(pm_in_place(sbuf), rbuf, counts, pdt, pop, c.m->pc, &preq);
    } else {
        st = plx_ireduce_scatter(pm_in_place(sbuf), rbuf, (size_t)recvcount, pdt, pop, c.m->pc,
                                 &preq);
    }
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Reduce_scatter_block, Ireduce_scatter_block, PM_BIT(PM_REDUCE_SCATTER),
             pm_size_falls(pm_fast, m, PM_REDUCE_SCATTER, recvcount, datatype, m->size),
             reduce_scatter(m, sendbuf, recvbuf, 1, recvcount, NULL, datatype, op, comm, pm_req),
             (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm),
             (sendbuf, recvbuf, recvcount, datatype, op, comm))

/* equal or unequal counts: known only after reading recvcounts (no early size rule) */
PM_INTERCEPT(Reduce_scatter, Ireduce_scatter, PM_BIT(PM_REDUCE_SCATTER) | PM_BIT(PM_REDUCE_SCATTERV),
             0, reduce_scatter(m, sendbuf, recvbuf, 0, 0, recvcounts, datatype, op, comm, pm_req),
             (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm),
             (sendbuf, recvbuf, recvcounts, datatype, op, comm))
