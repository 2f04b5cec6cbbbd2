/*
 * lib/mpi/coll_move.c — MPI_Allgather, MPI_Alltoall, MPI_Gather and
 * MPI_Scatter, blocking and nonblocking: data movement, so Plexus moves
 * bytes (uint8, count = bytes per rank) and any datatype goes (packed when
 * not dense, dtype_map.c).
 *
 * The bytes per rank come from the arguments every rank has in common (the
 * receive side, or the send side where only that exists); when this
 * rank's other side disagrees (type signatures that do not match, which
 * MPI calls erroneous) the call fails here with MPI_ERR_TRUNCATE through
 * the error handler instead of entering the collective with a wrong size.
 */
#include "layer.h"

/* bytes of count elements of type, or -1 */
static long span(int count, MPI_Datatype type)
{
    long size = pm_type_size(type);
    return count < 0 || size < 0 ? -1 : (long)count * size;
}

/* allgather and alltoall: every rank sends and receives ranks blocks */
static int all_to_all(pm_mirror_t *m, pm_coll_t coll, const void *sbuf, int scount,
                      MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
                      MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, coll, m, comm, mreq)) return PM_FALL;
    int n = c.size, in_place = sbuf == MPI_IN_PLACE;
    long per = span(rcount, rtype);
    if (per < 0 || (!in_place && span(scount, stype) < 0)) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    if (!pm_call_route(&c, PM_TO_PLEXUS, (size_t)per * (size_t)n)) return PM_FALL;
    if (!in_place && span(scount, stype) != per) return pm_call_abandon(&c, MPI_ERR_TRUNCATE);
    /* alltoall in place reads its input from the receive buffer; allgather
     * in place needs this rank's block there */
    void *sp = PLX_IN_PLACE, *rp;
    int rc = MPI_SUCCESS;
    if (!in_place)
        rc = pm_stage_open(&c.stage[c.nstage++], sbuf, scount, coll == PM_ALLTOALL ? n : 1, stype,
                           1, 0, &sp);
    if (rc == MPI_SUCCESS)
        rc = pm_stage_open(&c.stage[c.nstage++], rbuf, rcount, n, rtype, in_place, 1, &rp);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    plx_request_t preq = NULL;
    plx_status_t st = coll == PM_ALLTOALL
        ? plx_ialltoall(sp, rp, (size_t)per, PLX_UINT8, c.m->pc, &preq)
        : plx_iallgather(sp, rp, (size_t)per, PLX_UINT8, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

/* the size rule asks the receive side: the one every rank has */
PM_INTERCEPT(Allgather, Iallgather, PM_BIT(PM_ALLGATHER),
             pm_size_falls(pm_fast, m, PM_ALLGATHER, recvcount, recvtype, m->size),
             all_to_all(m, PM_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                        comm, pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

PM_INTERCEPT(Alltoall, Ialltoall, PM_BIT(PM_ALLTOALL),
             pm_size_falls(pm_fast, m, PM_ALLTOALL, recvcount, recvtype, m->size),
             all_to_all(m, PM_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                        comm, pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

/* gather (scatter = 0) and scatter (scatter = 1): the root's ranks blocks
 * <-> one block on every rank */
static int rooted(pm_mirror_t *m, int scatter, const void *sbuf, int scount, MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, scatter ? PM_SCATTER : PM_GATHER, m, comm, mreq)) return PM_FALL;
    int n = c.size, rank = c.rank;
    int is_root = rank == root;
    /* the root's many-block side, and the one block every rank has */
    const void *mbuf = scatter ? sbuf : rbuf;
    int mcount = scatter ? scount : rcount;
    MPI_Datatype mtype = scatter ? stype : rtype;
    const void *obuf = scatter ? rbuf : sbuf;
    int ocount = scatter ? rcount : scount;
    MPI_Datatype otype = scatter ? rtype : stype;
    int in_place = is_root && obuf == MPI_IN_PLACE;
    if (root < 0 || root >= n) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    long per = is_root ? span(mcount, mtype) : span(ocount, otype);
    if (per < 0 || (is_root && !in_place && span(ocount, otype) < 0)) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    if (!pm_call_route(&c, PM_TO_PLEXUS, (size_t)per * (size_t)n)) return PM_FALL;
    if (is_root && !in_place && span(ocount, otype) != per)
        return pm_call_abandon(&c, MPI_ERR_TRUNCATE);
    void *mp = NULL, *op = PLX_IN_PLACE;
    int rc = MPI_SUCCESS;
    if (is_root)
        rc = pm_stage_open(&c.stage[c.nstage++], mbuf, mcount, n, mtype, scatter || in_place,
                           !scatter, &mp);
    if (rc == MPI_SUCCESS && !in_place)
        rc = pm_stage_open(&c.stage[c.nstage++], obuf, ocount, 1, otype, !scatter, scatter, &op);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    plx_request_t preq = NULL;
    plx_status_t st = scatter
        ? plx_iscatter(mp, op, (size_t)per, PLX_UINT8, root, c.m->pc, &preq)
        : plx_igather(op, mp, (size_t)per, PLX_UINT8, root, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

/* the size rule asks the root's many-block side at the root, the one
 * block elsewhere (as rooted() does) */
PM_INTERCEPT(Gather, Igather, PM_BIT(PM_GATHER),
             (root == m->rank ? pm_size_falls(pm_fast, m, PM_GATHER, recvcount, recvtype, m->size)
                              : pm_size_falls(pm_fast, m, PM_GATHER, sendcount, sendtype, m->size)),
             rooted(m, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))

PM_INTERCEPT(Scatter, Iscatter, PM_BIT(PM_SCATTER),
             (root == m->rank ? pm_size_falls(pm_fast, m, PM_SCATTER, sendcount, sendtype, m->size)
                              : pm_size_falls(pm_fast, m, PM_SCATTER, recvcount, recvtype, m->size)),
             rooted(m, 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
