/*
 * lib/api/graph_vcoll.c — task-graph nodes for the v-collectives and the
 * prefix reductions (plx_graph_add_allgatherv ... plx_graph_add_exscan).
 * Same arguments and checks as the nonblocking calls; the node keeps
 * copies of the count and displacement arrays (lib/graph/build.c,
 * plx_graph_add_coll), so the user's arrays may go after the call.
 */
#include "api/vcoll.h"
#include "graph/graph.h"

plx_status_t plx_graph_add_allgatherv(plx_graph_t g, const void *sendbuf, size_t sendcount,
                                      void *recvbuf, const size_t recvcounts[],
                                      const size_t displs[], plx_dtype_t dt, plx_comm_t comm,
                                      plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHERV, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = sendcount, .dt = dt, .rcounts = recvcounts, .rdispls = displs };
    return plx_graph_add_coll("plx_graph_add_allgatherv", g, comm, &a, node);
}

plx_status_t plx_graph_add_alltoallv(plx_graph_t g, const void *sendbuf, const size_t sendcounts[],
                                     const size_t sdispls[], void *recvbuf,
                                     const size_t recvcounts[], const size_t rdispls[],
                                     plx_dtype_t dt, plx_comm_t comm, plx_graph_node_t *node)
{
    int in_place = sendbuf == PLX_IN_PLACE;
    coll_args_t a = { .coll = PLX_COLL_ALLTOALLV, .sbuf = sendbuf, .rbuf = recvbuf, .dt = dt,
                      .scounts = in_place ? NULL : sendcounts, .sdispls = in_place ? NULL : sdispls,
                      .rcounts = recvcounts, .rdispls = rdispls };
    return plx_graph_add_coll("plx_graph_add_alltoallv", g, comm, &a, node);
}

plx_status_t plx_graph_add_gatherv(plx_graph_t g, const void *sendbuf, size_t sendcount,
                                   void *recvbuf, const size_t recvcounts[], const size_t displs[],
                                   plx_dtype_t dt, int root, plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_GATHERV, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = sendcount, .dt = dt, .root = root, .rcounts = recvcounts,
                      .rdispls = displs };
    /* recvcounts/displs matter only at root: do not copy garbage elsewhere */
    if (plx_comm_ok(comm) && comm->rank != root) a.rcounts = a.rdispls = NULL;
    return plx_graph_add_coll("plx_graph_add_gatherv", g, comm, &a, node);
}

plx_status_t plx_graph_add_scatterv(plx_graph_t g, const void *sendbuf, const size_t sendcounts[],
                                    const size_t displs[], void *recvbuf, size_t recvcount,
                                    plx_dtype_t dt, int root, plx_comm_t comm,
                                    plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTERV, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = recvcount, .dt = dt, .root = root, .scounts = sendcounts,
                      .sdispls = displs };
    if (plx_comm_ok(comm) && comm->rank != root) a.scounts = a.sdispls = NULL;
    return plx_graph_add_coll("plx_graph_add_scatterv", g, comm, &a, node);
}

plx_status_t plx_graph_add_reduce_scatterv(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                           const size_t recvcounts[], plx_dtype_t dt, plx_op_t op,
                                           plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTERV, .sbuf = sendbuf, .rbuf = recvbuf,
                      .dt = dt, .op = op, .rcounts = recvcounts };
    return plx_graph_add_coll("plx_graph_add_reduce_scatterv", g, comm, &a, node);
}

plx_status_t plx_graph_add_scan(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                plx_dtype_t dt, plx_op_t op, plx_comm_t comm, plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_SCAN, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return plx_graph_add_coll("plx_graph_add_scan", g, comm, &a, node);
}

plx_status_t plx_graph_add_exscan(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dt, plx_op_t op, plx_comm_t comm,
                                  plx_graph_node_t *node)
{
    coll_args_t a = { .coll = PLX_COLL_EXSCAN, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return plx_graph_add_coll("plx_graph_add_exscan", g, comm, &a, node);
}
