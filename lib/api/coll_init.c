/*
 * lib/api/coll_init.c — the persistent forms of the collectives and of
 * send/recv (plx_allreduce_init, ..., plx_send_init, plx_recv_init).
 *
 * Each is one wrapper that packs its arguments exactly as its i-form does
 * (lib/api/coll.c, lib/api/p2p.c) and hands them to the common init path
 * (lib/engine/persist.c), which checks them with the same checks, selects
 * and builds once.  A new collective gets its _init with one such wrapper.
 * The v-collectives and prefix reductions pack with the macros of
 * api/vcoll.h that their plain and i-forms use.
 */
#include "engine/persist.h"
#include "api/vcoll.h"

plx_status_t plx_barrier_init(plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_BARRIER, .dt = PLX_UINT8 };
    return plx_persist_coll_init("plx_barrier_init", comm, &a, req);
}

plx_status_t plx_bcast_init(void *buf, size_t count, plx_dtype_t dt, int root, plx_comm_t comm,
                            plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_BCAST, .sbuf = buf, .rbuf = buf, .count = count, .dt = dt,
                      .root = root };
    return plx_persist_coll_init("plx_bcast_init", comm, &a, req);
}

plx_status_t plx_reduce_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                             plx_op_t op, int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op, .root = root };
    return plx_persist_coll_init("plx_reduce_init", comm, &a, req);
}

plx_status_t plx_allreduce_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .op = op };
    return plx_persist_coll_init("plx_allreduce_init", comm, &a, req);
}

plx_status_t plx_allgather_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                                plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLGATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return plx_persist_coll_init("plx_allgather_init", comm, &a, req);
}

plx_status_t plx_reduce_scatter_init(const void *sendbuf, void *recvbuf, size_t recvcount,
                                     plx_dtype_t dt, plx_op_t op, plx_comm_t comm,
                                     plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf,
                      .count = recvcount, .dt = dt, .op = op };
    return plx_persist_coll_init("plx_reduce_scatter_init", comm, &a, req);
}

plx_status_t plx_alltoall_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                               plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_ALLTOALL, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt };
    return plx_persist_coll_init("plx_alltoall_init", comm, &a, req);
}

plx_status_t plx_gather_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                             int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_GATHER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return plx_persist_coll_init("plx_gather_init", comm, &a, req);
}

plx_status_t plx_scatter_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                              int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = { .coll = PLX_COLL_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
                      .dt = dt, .root = root };
    return plx_persist_coll_init("plx_scatter_init", comm, &a, req);
}

plx_status_t plx_allgatherv_init(const void *sendbuf, size_t sendcount, void *recvbuf,
                                 const size_t recvcounts[], const size_t displs[], plx_dtype_t dt,
                                 plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = AGV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt);
    return plx_persist_coll_init("plx_allgatherv_init", comm, &a, req);
}

plx_status_t plx_alltoallv_init(const void *sendbuf, const size_t sendcounts[],
                                const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                const size_t rdispls[], plx_dtype_t dt, plx_comm_t comm,
                                plx_request_t *req)
{
    coll_args_t a = A2AV_ARGS(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dt);
    return plx_persist_coll_init("plx_alltoallv_init", comm, &a, req);
}

plx_status_t plx_gatherv_init(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t recvcounts[], const size_t displs[], plx_dtype_t dt,
                              int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = GV_ARGS(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, root);
    return plx_persist_coll_init("plx_gatherv_init", comm, &a, req);
}

plx_status_t plx_scatterv_init(const void *sendbuf, const size_t sendcounts[],
                               const size_t displs[], void *recvbuf, size_t recvcount,
                               plx_dtype_t dt, int root, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SV_ARGS(sendbuf, sendcounts, displs, recvbuf, recvcount, dt, root);
    return plx_persist_coll_init("plx_scatterv_init", comm, &a, req);
}

plx_status_t plx_reduce_scatterv_init(const void *sendbuf, void *recvbuf,
                                      const size_t recvcounts[], plx_dtype_t dt, plx_op_t op,
                                      plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = RSV_ARGS(sendbuf, recvbuf, recvcounts, dt, op);
    return plx_persist_coll_init("plx_reduce_scatterv_init", comm, &a, req);
}

plx_status_t plx_scan_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                           plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_SCAN, sendbuf, recvbuf, count, dt, op);
    return plx_persist_coll_init("plx_scan_init", comm, &a, req);
}

plx_status_t plx_exscan_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                             plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_EXSCAN, sendbuf, recvbuf, count, dt, op);
    return plx_persist_coll_init("plx_exscan_init", comm, &a, req);
}

plx_status_t plx_send_init(const void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                           plx_comm_t comm, plx_request_t *req)
{
    /* the transport only reads a send buffer */
    return plx_persist_p2p_init("plx_send_init", REQ_SEND, (void *)(uintptr_t)buf, count, dt,
                                peer, tag, comm, NULL, req);
}

plx_status_t plx_recv_init(void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                           plx_comm_t comm, size_t *received, plx_request_t *req)
{
    return plx_persist_p2p_init("plx_recv_init", REQ_RECV, buf, count, dt, peer, tag, comm,
                                received, req);
}
