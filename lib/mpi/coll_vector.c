/*
 * lib/mpi/coll_vector.c — MPI_Allgatherv, MPI_Alltoallv, MPI_Gatherv and
 * MPI_Scatterv, blocking and nonblocking.  Like coll_move.c, Plexus moves
 * bytes (uint8), so any datatype goes (packed when not dense); MPI's int
 * counts and displacements become byte counts and displacements in the
 * communicator's scratch arrays (Plexus copies them when the call starts).
 * Displacements may be negative or overlap where MPI allows it:
 * pm_stage_open_v measures them from the lowest block, and Plexus accepts
 * overlapping blocks that are only read.  No measurements yet: these go to
 * Plexus only when PLX_MPI_COLLS names them (policy.c).
 *
 * An allgatherv whose receive blocks overlap (MPI calls it erroneous, but
 * MPI implementations accept it and MPICH's own allgatherv4 test does it)
 * stays with MPI ("arguments"): Plexus refuses blocks it would write twice.
 * recvcounts and displs are the same on every rank in practice, so every
 * rank decides alike; gatherv cannot (only the root sees its blocks).
 *
 * A send side whose size disagrees with this rank's own receive block
 * fails with MPI_ERR_TRUNCATE before the collective starts (as in
 * coll_move.c); disagreements between ranks are Plexus' to report.
 */
#include "layer.h"

#include <stdlib.h>

/* bytes of count elements of type, or -1 */
static long span(int count, MPI_Datatype type)
{
    long size = pm_type_size(type);
    return count < 0 || size < 0 ? -1 : (long)count * size;
}

/* bytes of all n blocks, or -1 (a negative count, no arrays, bad type) */
static long span_v(const int *counts, const void *displs, int n, MPI_Datatype type)
{
    long size = pm_type_size(type), total = 0;
    if (size < 0 || !counts || !displs) return -1;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) return -1;
        total += (long)counts[i] * size;
    }
    return total;
}

typedef struct block { long lo, hi; } block_t;

static int cmp_block(const void *a, const void *b)
{
    const block_t *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Do two of the n non-empty blocks [displs[i], displs[i] + counts[i])
 * (in elements) overlap?  One pass when they are in order (the usual
 * case), else sorted. */
static int blocks_overlap(const int *counts, const int *displs, int n)
{
    long end = 0;
    int first = 1, sorted = 1;
    for (int i = 0; i < n && sorted; i++) {
        if (!counts[i]) continue;
        if (!first && displs[i] < end) sorted = 0;
        end = (long)displs[i] + counts[i];
        first = 0;
    }
    if (sorted) return 0;
    block_t *b = malloc((size_t)n * sizeof *b);
    if (!b) return 1;                   /* cannot tell: MPI takes it */
    int m = 0, over = 0;
    for (int i = 0; i < n; i++)
        if (counts[i]) b[m++] = (block_t){ displs[i], (long)displs[i] + counts[i] };
    qsort(b, (size_t)m, sizeof *b, cmp_block);
    for (int i = 1; i < m && !over; i++) over = b[i].lo < b[i - 1].hi;
    free(b);
    return over;
}

static int allgatherv(pm_mirror_t *m, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm,
                      MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_ALLGATHERV, m, comm, mreq)) return PM_FALL;
    int n = c.size, in_place = sbuf == MPI_IN_PLACE;
    long total = span_v(rcounts, displs, n, rtype), sbytes = in_place ? 0 : span(scount, stype);
    if (total < 0 || sbytes < 0 || blocks_overlap(rcounts, displs, n)) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    if (!pm_call_route(&c, PM_TO_PLEXUS, (size_t)total)) return PM_FALL;
    if (!in_place && sbytes != span(rcounts[c.rank], rtype))
        return pm_call_abandon(&c, MPI_ERR_TRUNCATE);
    size_t *bc = pm_mirror_scratch(c.m, 2);
    if (!bc) return pm_call_abandon(&c, MPI_ERR_NO_MEM);
    void *sp = PLX_IN_PLACE, *rp;
    int rc = pm_stage_open_v(&c.stage[c.nstage++], rbuf, rcounts, displs, n, rtype, in_place, 1,
                             &rp, bc, bc + n);
    if (rc == MPI_SUCCESS && !in_place)
        rc = pm_stage_open(&c.stage[c.nstage++], sbuf, scount, 1, stype, 1, 0, &sp);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    plx_request_t preq = NULL;
    plx_status_t st = plx_iallgatherv(sp, in_place ? bc[c.rank] : (size_t)sbytes, rp, bc, bc + n,
                                      PLX_UINT8, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

/* the v-forms have no early size rule: their size is a sum over the counts */
PM_INTERCEPT(Allgatherv, Iallgatherv, PM_BIT(PM_ALLGATHERV), 0,
             allgatherv(m, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                        pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))

static int alltoallv(pm_mirror_t *m, const void *sbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, PM_ALLTOALLV, m, comm, mreq)) return PM_FALL;
    int n = c.size, in_place = sbuf == MPI_IN_PLACE;
    long total = span_v(rcounts, rdispls, n, rtype);
    if (total < 0 || (!in_place && span_v(scounts, sdispls, n, stype) < 0)) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    if (!pm_call_route(&c, PM_TO_PLEXUS, (size_t)total)) return PM_FALL;
    size_t *b = pm_mirror_scratch(c.m, 4);
    if (!b) return pm_call_abandon(&c, MPI_ERR_NO_MEM);
    size_t *rc_b = b, *rd_b = b + n, *sc_b = b + 2 * n, *sd_b = b + 3 * n;
    void *sp = PLX_IN_PLACE, *rp;
    /* in place: the data to send is read from the receive buffer */
    int rc = pm_stage_open_v(&c.stage[c.nstage++], rbuf, rcounts, rdispls, n, rtype, in_place, 1,
                             &rp, rc_b, rd_b);
    if (rc == MPI_SUCCESS && !in_place)
        rc = pm_stage_open_v(&c.stage[c.nstage++], sbuf, scounts, sdispls, n, stype, 1, 0, &sp,
                             sc_b, sd_b);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    plx_request_t preq = NULL;
    plx_status_t st = plx_ialltoallv(sp, in_place ? NULL : sc_b, in_place ? NULL : sd_b, rp, rc_b,
                                     rd_b, PLX_UINT8, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Alltoallv, Ialltoallv, PM_BIT(PM_ALLTOALLV), 0,
             alltoallv(m, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, pm_req),
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm),
             (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))

/* gatherv (scatter = 0) and scatterv (scatter = 1): the root's n blocks
 * <-> one block on every rank.  The byte size counted is this rank's view
 * (root: all blocks; others: their own), which only the summary uses:
 * routing rows for these must not depend on it. */
static int rooted_v(pm_mirror_t *m, int scatter, const void *mbuf, const int *counts,
                    const int *displs, MPI_Datatype mtype, const void *obuf, int ocount,
                    MPI_Datatype otype, int root, MPI_Comm comm, MPI_Request *mreq)
{
    pm_call_t c;
    if (!pm_call_begin(&c, scatter ? PM_SCATTERV : PM_GATHERV, m, comm, mreq)) return PM_FALL;
    int n = c.size, is_root = c.rank == root;
    int in_place = is_root && obuf == MPI_IN_PLACE;
    long total = 0, obytes = in_place ? 0 : span(ocount, otype);
    if (root < 0 || root >= n) total = -1;
    else if (is_root) total = span_v(counts, displs, n, mtype);
    if (total < 0 || obytes < 0) {
        pm_call_route(&c, PM_WHY_ARGS, 0);
        return PM_FALL;
    }
    if (!pm_call_route(&c, PM_TO_PLEXUS, is_root ? (size_t)total : (size_t)obytes))
        return PM_FALL;
    if (is_root && !in_place && obytes != span(counts[root], mtype))
        return pm_call_abandon(&c, MPI_ERR_TRUNCATE);
    size_t *bc = pm_mirror_scratch(c.m, 2);
    if (!bc) return pm_call_abandon(&c, MPI_ERR_NO_MEM);
    void *mp = NULL, *op = PLX_IN_PLACE;
    int rc = MPI_SUCCESS;
    if (is_root)
        rc = pm_stage_open_v(&c.stage[c.nstage++], mbuf, counts, displs, n, mtype,
                             scatter || in_place, !scatter, &mp, bc, bc + n);
    if (rc == MPI_SUCCESS && !in_place)
        rc = pm_stage_open(&c.stage[c.nstage++], obuf, ocount, 1, otype, !scatter, scatter, &op);
    if (rc != MPI_SUCCESS) return pm_call_abandon(&c, rc);
    size_t ob = in_place ? bc[root] : (size_t)obytes;
    const size_t *pc = is_root ? bc : NULL, *pd = is_root ? bc + n : NULL;
    plx_request_t preq = NULL;
    plx_status_t st = scatter
        ? plx_iscatterv(mp, pc, pd, op, ob, PLX_UINT8, root, c.m->pc, &preq)
        : plx_igatherv(op, ob, mp, pc, pd, PLX_UINT8, root, c.m->pc, &preq);
    return pm_call_finish(&c, st, preq, mreq);
}

PM_INTERCEPT(Gatherv, Igatherv, PM_BIT(PM_GATHERV), 0,
             rooted_v(m, 0, recvbuf, recvcounts, displs, recvtype, sendbuf, sendcount, sendtype, root,
                      comm, pm_req),
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm),
             (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))

PM_INTERCEPT(Scatterv, Iscatterv, PM_BIT(PM_SCATTERV), 0,
             rooted_v(m, 1, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                      comm, pm_req),
             (const void *sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm),
             (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))
