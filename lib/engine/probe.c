/*
 * lib/engine/probe.c — plx_iprobe / plx_probe underneath: move every
 * request, then ask the transport serving each candidate source for its
 * oldest unexpected message with a matching tag (transport op probe).
 *
 * Tags are 64-bit match keys (plx_internal.h): communicator id, the
 * collective flag, the user tag.  A probe for one tag compares all of it;
 * PLX_ANY_TAG compares only the communicator id and the collective flag,
 * so a probe never reports another communicator's messages or a
 * collective's internal ones.  PLX_ANY_SOURCE tries the ranks of the
 * communicator in order.
 */
#include "engine/probe.h"
#include "engine/request.h"

#include <stdio.h>

#define TAG_MASK_COMM ((uint64_t)0xffffff8000000000ull)   /* bits 63..39: comm id + collective flag */

/* One look (lock held).  1 if found; *st = PLX_ERR_NOT_SUPPORTED when a
 * candidate's transport cannot probe. */
static int probe_once(plx_comm_t comm, int source, int tag, plx_msg_info_t *info, plx_status_t *st)
{
    plx_context_t ctx = comm->ctx;
    uint64_t key = plx_tag_p2p(comm, tag < 0 ? 0 : tag);
    uint64_t mask = tag == PLX_ANY_TAG ? TAG_MASK_COMM : ~(uint64_t)0;
    int lo = source == PLX_ANY_SOURCE ? 0 : source;
    int hi = source == PLX_ANY_SOURCE ? comm->size : source + 1;
    for (int r = lo; r < hi; r++) {
        int w = comm->world_rank[r];
        int t = ctx->peer_tl[w];
        if (!ctx->tl[t].ops->probe) {
            plx_error("plx_probe: transport %s (rank %d, world %d) cannot probe", ctx->tl[t].ops->name,
                      r, w);
            *st = PLX_ERR_NOT_SUPPORTED;
            return 0;
        }
        uint64_t got = 0;
        size_t bytes = 0;
        if (ctx->tl[t].ops->probe(ctx->tl[t].state, w, key, mask, &got, &bytes)) {
            if (info) {
                info->source = r;
                info->tag = (int)((got >> 8) & 0x7fffffffu);
                info->bytes = bytes;
            }
            return 1;
        }
    }
    return 0;
}

/* The sources a blocking probe waits for, all dead?  (lock held) */
static int sources_dead(plx_comm_t comm, int source)
{
    if (source != PLX_ANY_SOURCE)
        return plx_peer_status(comm->ctx, comm->world_rank[source]) != PLX_SUCCESS;
    int alive = 0;
    for (int r = 0; r < comm->size && !alive; r++)
        alive = r == comm->rank || plx_peer_status(comm->ctx, comm->world_rank[r]) == PLX_SUCCESS;
    return !alive;
}

static void describe(plx_comm_t comm, int source, int tag, char *buf, size_t len)
{
    char src[48], tg[24];
    if (source == PLX_ANY_SOURCE) snprintf(src, sizeof src, "any rank");
    else snprintf(src, sizeof src, "rank %d (world %d)", source, comm->world_rank[source]);
    if (tag == PLX_ANY_TAG) snprintf(tg, sizeof tg, "any tag");
    else snprintf(tg, sizeof tg, "tag %d", tag);
    snprintf(buf, len, "comm %u (rank %d of %d): no message from %s with %s", comm->id, comm->rank,
             comm->size, src, tg);
}

plx_status_t plx_engine_probe(plx_comm_t comm, int source, int tag, int block, int *found,
                              plx_msg_info_t *info)
{
    plx_context_t ctx = comm->ctx;
    plx_status_t st = PLX_SUCCESS;
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    double start = 0, limit = ctx->cfg.timeout_s, next_check = 0;
    *found = 0;
    plx_ctx_lock(ctx);
    for (unsigned iter = 0;; iter++) {
        int events = plx_engine_progress(ctx);
        if (probe_once(comm, source, tag, info, &st)) {
            *found = 1;
            break;
        }
        if (st != PLX_SUCCESS || !block) break;
        if ((iter & 63) == 0) {
            plx_engine_check_deadlines(ctx);   /* the other requests' deadlines go on */
            double now = plx_now();
            if (start == 0) start = now;
            if (now >= next_check) {
                next_check = now + 0.1;
                char what[160];
                if (sources_dead(comm, source)) {
                    describe(comm, source, tag, what, sizeof what);
                    plx_error("plx_probe on %s: the rank(s) it waits for died", what);
                    st = PLX_ERR_PEER_FAILED;
                    break;
                }
                if (now - start >= limit) {
                    describe(comm, source, tag, what, sizeof what);
                    plx_error("plx_probe timed out after %g s on %s", limit, what);
                    st = PLX_ERR_TIMEOUT;
                    break;
                }
            }
        }
        plx_ctx_unlock(ctx);
        if (events > 0) plx_backoff_reset(&bo);
        else plx_backoff_idle(&bo);
        plx_ctx_lock(ctx);
    }
    plx_ctx_unlock(ctx);
    return st;
}
