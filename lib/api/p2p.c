/*
 * lib/api/p2p.c — plx_send / plx_recv: tagged point-to-point messages on a
 * communicator, carried by the transport that serves the peer, with the
 * same bounded wait as collectives.
 */
#include "plx_internal.h"
#include "engine/request.h"
#include "device/device.h"

#include <string.h>

plx_status_t plx_p2p_check_args(const char *fn, const void *buf, size_t count, plx_dtype_t dt,
                                int peer, int tag, plx_comm_t comm)
{
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if ((int)dt < 0 || dt >= PLX_DTYPE_COUNT) return plx_bad_arg(fn, "unknown datatype %d", (int)dt);
    if (peer < 0 || peer >= comm->size)
        return plx_bad_arg(fn, "peer %d is not a rank of this communicator (size %d)", peer, comm->size);
    if (tag < 0) return plx_bad_arg(fn, "tag %d is negative (0..PLX_TAG_MAX)", tag);
    if (count && (!buf || buf == PLX_IN_PLACE)) return plx_bad_arg(fn, "buf is NULL with count %zu", count);
    if (count && count > SIZE_MAX / plx_dtype_size(dt))
        return plx_bad_arg(fn, "count %zu overflows the address space", count);
    return PLX_SUCCESS;
}

plx_status_t plx_p2p_start_locked(int kind, void *buf, size_t count, plx_dtype_t dt, int peer,
                                  int tag, plx_comm_t comm, size_t *received, plx_request_t *req)
{
    struct plx_request *r = plx_req_alloc(comm->ctx);
    if (!r) return PLX_ERR_NO_MEMORY;
    r->kind = kind;
    r->comm = comm;
    r->peer = peer;
    r->tag = tag;
    r->elem_size = plx_dtype_size(dt);
    r->received = received;
    memset(&r->treq, 0, sizeof r->treq);
    uint64_t t = plx_tag_p2p(comm, tag);
    size_t len = count * r->elem_size;
    plx_status_t st = kind == REQ_SEND ? plx_p2p_isend(comm, peer, t, buf, len, &r->treq)
                                       : plx_p2p_irecv(comm, peer, t, buf, len, &r->treq);
    if (st == PLX_SUCCESS) {
        plx_req_activate(r);
        *req = r;
    } else {
        plx_req_release(r);   /* the transport refused it: hand the object straight back */
    }
    return st;
}

/* Start one transfer as a request (kind REQ_SEND or REQ_RECV) after the
 * argument checks; nothing is started when they fail. */
static plx_status_t start_p2p(const char *fn, int kind, void *buf, size_t count, plx_dtype_t dt,
                              int peer, int tag, plx_comm_t comm, size_t *received,
                              plx_request_t *req)
{
    if (!req) return plx_bad_arg(fn, "req is NULL");
    *req = NULL;                /* stays NULL when nothing is started */
    if (received) *received = 0;
    PLX_CHECK(plx_p2p_check_args(fn, buf, count, dt, peer, tag, comm));
    /* point to point on device memory is not carried yet (the shm and UCX
     * paths would touch it from the host): say so instead of crashing */
    if (__builtin_expect(comm->ctx->dev_on, 0) && count && plx_dev_is_device_buffer(buf)) {
        plx_error("%s: buffer %p is GPU memory; point-to-point on device buffers is not "
                  "supported yet (stage through host memory)", fn, buf);
        return PLX_ERR_NOT_SUPPORTED;
    }
    plx_ctx_lock(comm->ctx);
    plx_status_t st = plx_p2p_start_locked(kind, buf, count, dt, peer, tag, comm, received, req);
    plx_ctx_unlock(comm->ctx);
    return st;
}

plx_status_t plx_isend(const void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                       plx_comm_t comm, plx_request_t *req)
{
    /* the transport only reads a send buffer */
    return start_p2p("plx_isend", REQ_SEND, (void *)(uintptr_t)buf, count, dt, peer, tag, comm,
                     NULL, req);
}

plx_status_t plx_irecv(void *buf, size_t count, plx_dtype_t dt, int peer, int tag, plx_comm_t comm,
                       size_t *received, plx_request_t *req)
{
    return start_p2p("plx_irecv", REQ_RECV, buf, count, dt, peer, tag, comm, received, req);
}

plx_status_t plx_send(const void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                      plx_comm_t comm)
{
    plx_request_t req;
    PLX_CHECK(plx_isend(buf, count, dt, peer, tag, comm, &req));
    return plx_wait(&req);
}

plx_status_t plx_recv(void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                      plx_comm_t comm, size_t *received)
{
    plx_request_t req;
    PLX_CHECK(plx_irecv(buf, count, dt, peer, tag, comm, received, &req));
    return plx_wait(&req);
}
