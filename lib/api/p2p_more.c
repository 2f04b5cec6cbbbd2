/*
 * lib/api/p2p_more.c — plx_sendrecv, plx_isendrecv, plx_iprobe, plx_probe:
 * argument checks, then the engine (both halves of a sendrecv as ordinary
 * p2p requests in flight together; probes in lib/engine/probe.c).
 */
#include "plx_internal.h"
#include "engine/request.h"
#include "engine/probe.h"

#include <stdlib.h>

static plx_status_t check_probe(const char *fn, int source, int tag, plx_comm_t comm)
{
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if (source != PLX_ANY_SOURCE && (source < 0 || source >= comm->size))
        return plx_bad_arg(fn, "source %d is not a rank of this communicator (size %d) nor "
                           "PLX_ANY_SOURCE", source, comm->size);
    if (tag < 0 && tag != PLX_ANY_TAG)
        return plx_bad_arg(fn, "tag %d is negative (0..PLX_TAG_MAX or PLX_ANY_TAG)", tag);
    return PLX_SUCCESS;
}

plx_status_t plx_iprobe(int source, int tag, plx_comm_t comm, int *found, plx_msg_info_t *info)
{
    PLX_CHECK(check_probe("plx_iprobe", source, tag, comm));
    if (!found) return plx_bad_arg("plx_iprobe", "found is NULL");
    return plx_engine_probe(comm, source, tag, 0, found, info);
}

plx_status_t plx_probe(int source, int tag, plx_comm_t comm, plx_msg_info_t *info)
{
    PLX_CHECK(check_probe("plx_probe", source, tag, comm));
    int found;
    return plx_engine_probe(comm, source, tag, 1, &found, info);
}

/* The checks of both halves, and that the buffers do not overlap. */
static plx_status_t check_sendrecv(const char *fn, const void *sendbuf, size_t sendcount,
                                   plx_dtype_t sendtype, int dest, int sendtag, void *recvbuf,
                                   size_t recvcount, plx_dtype_t recvtype, int source, int recvtag,
                                   plx_comm_t comm)
{
    PLX_CHECK(plx_p2p_check_args(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm));
    PLX_CHECK(plx_p2p_check_args(fn, recvbuf, recvcount, recvtype, source, recvtag, comm));
    size_t sb = sendcount * plx_dtype_size(sendtype), rb = recvcount * plx_dtype_size(recvtype);
    const char *s0 = sendbuf, *r0 = recvbuf;
    if (sb && rb && s0 < r0 + rb && r0 < s0 + sb)
        return plx_bad_arg(fn, "sendbuf and recvbuf overlap");
    return PLX_SUCCESS;
}

/* plx_isendrecv: one engine request (a hook) that ends when both halves,
 * ordinary p2p requests in flight on their own, have ended. */
typedef struct sendrecv_op {
    plx_request_t send, recv;
} sendrecv_op_t;

static int sendrecv_advance(void *arg, plx_status_t *st)
{
    sendrecv_op_t *op = arg;
    if (!plx_req_is_done(op->send) || !plx_req_is_done(op->recv)) return 0;
    plx_status_t ss = plx_req_collect_locked(&op->send);
    plx_status_t rs = plx_req_collect_locked(&op->recv);
    *st = rs != PLX_SUCCESS ? rs : ss;   /* the receive's status first: TRUNCATE */
    free(op);
    return 1;
}

/* finalize with the request in flight: the halves are freed with the
 * other requests of the engine */
static void sendrecv_cancel(void *arg) { free(arg); }

plx_status_t plx_isendrecv(const void *sendbuf, size_t sendcount, plx_dtype_t sendtype, int dest,
                           int sendtag, void *recvbuf, size_t recvcount, plx_dtype_t recvtype,
                           int source, int recvtag, plx_comm_t comm, size_t *received,
                           plx_request_t *req)
{
    const char *fn = "plx_isendrecv";
    if (!req) return plx_bad_arg(fn, "req is NULL");
    PLX_CHECK(check_sendrecv(fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm));
    sendrecv_op_t *op = calloc(1, sizeof *op);
    if (!op) return PLX_ERR_NO_MEMORY;
    plx_ctx_lock(comm->ctx);
    plx_status_t st = plx_p2p_start_locked(REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag,
                                           comm, received, &op->recv);
    if (st == PLX_SUCCESS) {
        st = plx_p2p_start_locked(REQ_SEND, (void *)(uintptr_t)sendbuf, sendcount, sendtype, dest,
                                  sendtag, comm, NULL, &op->send);
        if (st != PLX_SUCCESS) {
            /* withdraw the posted receive: nothing may write recvbuf later */
            plx_p2p_cancel(comm, source, &op->recv->treq);
            if (!plx_req_is_done(op->recv)) plx_req_finish_locked(op->recv, st);   /* off the active list */
            plx_req_collect_locked(&op->recv);
        }
    }
    if (st == PLX_SUCCESS) {
        plx_req_hook_t h = { .advance = sendrecv_advance, .cancel = sendrecv_cancel, .arg = op };
        st = plx_req_start_hook(comm->ctx, &h, req);
    } else {
        free(op);
    }
    plx_ctx_unlock(comm->ctx);
    return st;
}

plx_status_t plx_sendrecv(const void *sendbuf, size_t sendcount, plx_dtype_t sendtype, int dest,
                          int sendtag, void *recvbuf, size_t recvcount, plx_dtype_t recvtype,
                          int source, int recvtag, plx_comm_t comm, size_t *received)
{
    const char *fn = "plx_sendrecv";
    PLX_CHECK(check_sendrecv(fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm));
    plx_request_t rq[2] = { NULL, NULL };
    plx_ctx_lock(comm->ctx);
    /* the send first: if the receive cannot be posted, the send is still
     * waited for below, so no transfer outlives the call */
    plx_status_t st = plx_p2p_start_locked(REQ_SEND, (void *)(uintptr_t)sendbuf, sendcount, sendtype,
                                           dest, sendtag, comm, NULL, &rq[0]);
    plx_status_t rst = PLX_SUCCESS;
    if (st == PLX_SUCCESS)
        rst = plx_p2p_start_locked(REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm,
                                   received, &rq[1]);
    plx_ctx_unlock(comm->ctx);
    if (st != PLX_SUCCESS) return st;
    plx_status_t sts[2];
    plx_waitall(2, rq, sts);
    if (rst != PLX_SUCCESS) return rst;
    /* the receive's status first: TRUNCATE is what the caller must see */
    return sts[1] != PLX_SUCCESS ? sts[1] : sts[0];
}
