/*
 * lib/api_p2p.c — plx_send / plx_recv: tagged point-to-point messages on a
 * communicator, carried by the transport that serves the peer, with the
 * same bounded wait as collectives.
 */
#include "plx_internal.h"

#include <string.h>

static plx_status_t check_p2p(const char *fn, const void *buf, size_t count, plx_dtype_t dt,
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

/* Drive progress until req completes; bounded by PLX_TIMEOUT, and a dead
 * peer ends the wait early. */
static plx_status_t wait_one(const char *fn, plx_comm_t comm, int peer, int tag, plx_tl_req_t *req)
{
    plx_context_t ctx = comm->ctx;
    plx_backoff_t bo = { 0 };
    double start = plx_now(), next_check = start + 0.1;
    for (unsigned iter = 1; !req->done; iter++) {
        if (plx_progress(ctx) > 0) plx_backoff_reset(&bo);
        else if (!req->done) plx_backoff_idle(&bo);
        /* look at the clock now and then, whether or not other traffic moves */
        if (req->done || (iter & 127)) continue;
        double now = plx_now();
        if (now < next_check) continue;
        next_check = now + 0.1;
        plx_status_t ps = plx_peer_status(ctx, comm->world_rank[peer]);
        if (ps != PLX_SUCCESS || now - start > ctx->cfg.timeout_s) {
            plx_p2p_cancel(comm, peer, req);
            if (req->done) break;   /* completed while we looked */
            if (ps != PLX_SUCCESS) {
                plx_error("%s on comm %u (rank %d of %d), tag %d: peer rank %d (world %d) failed",
                          fn, comm->id, comm->rank, comm->size, tag, peer, comm->world_rank[peer]);
                return ps;
            }
            plx_error("%s timed out after %.0f s on comm %u (rank %d of %d), tag %d: rank %d "
                      "(world %d) never %s", fn, ctx->cfg.timeout_s, comm->id, comm->rank,
                      comm->size, tag, peer, comm->world_rank[peer],
                      strcmp(fn, "plx_send") == 0 ? "took the message" : "sent a matching message");
            return PLX_ERR_TIMEOUT;
        }
    }
    return req->status;
}

plx_status_t plx_send(const void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                      plx_comm_t comm)
{
    PLX_CHECK(check_p2p("plx_send", buf, count, dt, peer, tag, comm));
    plx_tl_req_t req;
    memset(&req, 0, sizeof req);
    PLX_CHECK(plx_p2p_isend(comm, peer, plx_tag_p2p(comm, tag), buf, count * plx_dtype_size(dt), &req));
    return wait_one("plx_send", comm, peer, tag, &req);
}

plx_status_t plx_recv(void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                      plx_comm_t comm, size_t *received)
{
    PLX_CHECK(check_p2p("plx_recv", buf, count, dt, peer, tag, comm));
    size_t es = plx_dtype_size(dt);
    plx_tl_req_t req;
    memset(&req, 0, sizeof req);
    PLX_CHECK(plx_p2p_irecv(comm, peer, plx_tag_p2p(comm, tag), buf, count * es, &req));
    plx_status_t st = wait_one("plx_recv", comm, peer, tag, &req);
    if (received && (st == PLX_SUCCESS || st == PLX_ERR_TRUNCATE)) *received = req.bytes / es;
    if (st == PLX_ERR_TRUNCATE)
        plx_warn("plx_recv: message of %zu bytes from rank %d tag %d truncated to %zu", req.bytes,
                 peer, tag, count * es);
    return st;
}
