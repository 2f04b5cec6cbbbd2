/*
 * transports/shm/shm.c — the shared-memory transport: the exported ops
 * table, init/finalize (segment set-up through the bootstrap), tag matching,
 * the eager path and progress().
 *
 * Hot path (see shm_ring.h): isend of a small message with nothing queued
 * writes one cell (and its payload) and does one release store, then
 * completes at once; the receiver's progress() polls one cell per local peer
 * and copies straight into the posted buffer.  No syscall, no malloc.
 * Messages above eager_max go through shm_large.c (RTS + CMA pull, or
 * CTS-driven staging when CMA is refused).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/log.h"
#include "core/config.h"
#include "shm_internal.h"
#include "shm_ring.h"

/* Most messages taken from one peer's ring per progress() call, so one busy
 * peer cannot starve the others. */
#define SHM_DRAIN_MAX 256

/* ---- small list helpers ------------------------------------------------ */

static void uq_push(shm_uq_t *q, shm_unexp_t *u) { PLX_TL_LIST_PUSH(q, u, next, prev); }
static void uq_remove(shm_uq_t *q, shm_unexp_t *u) { PLX_TL_LIST_REMOVE(q, u, next, prev); }

void shm_xlist_push(shm_xlist_t *l, shm_xfer_t *x)
{
    PLX_TL_LIST_PUSH(l, x, next, prev);
    x->list = l;
    l->n++;
    if (l->total) (*l->total)++;
}

void shm_xlist_remove(shm_xfer_t *x)
{
    shm_xlist_t *l = x->list;
    if (!l) return;
    PLX_TL_LIST_REMOVE(l, x, next, prev);
    x->list = NULL;
    l->n--;
    if (l->total) (*l->total)--;
}

shm_xfer_t *shm_xfer_get(shm_tl_t *t)
{
    shm_xfer_t *x = t->xfer_free;
    if (x) t->xfer_free = x->next;
    else if (!(x = malloc(sizeof *x))) return NULL;
    memset(x, 0, sizeof *x);
    return x;
}

void shm_xfer_put(shm_tl_t *t, shm_xfer_t *x)
{
    shm_xlist_remove(x);
    x->next = t->xfer_free;
    t->xfer_free = x;
}

/* ---- control messages -------------------------------------------------- */

int shm_ctrl_send(shm_tl_t *t, int p, uint32_t type, uint64_t id, uint64_t val)
{
    shm_peer_t *pe = &t->peers[p];
    shm_ctl_t c = { .id = id, .val = val };
    if (!pe->ctrl_head &&
        shm_ring_push(&pe->out, t->lay.ncells, t->lay.ring_bytes, type, 0, &c, sizeof c))
        return 1;
    shm_ctrl_t *n = t->ctrl_free;
    if (n) t->ctrl_free = n->next;
    else if (!(n = malloc(sizeof *n))) {
        plx_error("shm: out of memory queueing a control message to rank %d; it is lost", pe->world);
        return 0;
    }
    n->next = NULL;
    n->type = type;
    n->c = c;
    if (pe->ctrl_tail) pe->ctrl_tail->next = n; else pe->ctrl_head = n;
    pe->ctrl_tail = n;
    t->n_ctrlq++;
    return 0;
}

/* ---- ops: reachability and argument checks ----------------------------- */

static int shm_reachable(void *tlp, int peer)
{
    shm_tl_t *t = tlp;
    return t && peer >= 0 && peer < t->size && t->local_of[peer] >= 0;
}

static void *shm_coll_window(void *tlp, int channel, int peer, size_t *bytes)
{
    shm_tl_t *t = tlp;
    if (!t || channel < 0 || channel >= SHM_COLL_CHANNELS || peer < 0 || peer >= t->size ||
        t->local_of[peer] < 0)
        return NULL;
    if (bytes) *bytes = channel < SHM_COLL_DATA_CHANNELS ? t->lay.coll_win : SHM_COLL_CTL_WIN;
    return shm_seg_coll_window(t, t->local_of[peer], channel);
}

static void *shm_coll_stage(void *tlp, int peer, size_t *bytes)
{
    shm_tl_t *t = tlp;
    if (!t || t->lay.dstage_bytes == 0 || peer < 0 || peer >= t->size || t->local_of[peer] < 0)
        return NULL;
    if (peer == t->rank && !t->dstage_ok) return NULL;   /* not reserved: never written */
    if (bytes) *bytes = t->lay.dstage_bytes;
    return shm_seg_dstage(t, t->local_of[peer]);
}

/* ---- send -------------------------------------------------------------- */

static int handle_cell(shm_tl_t *t, int p, shm_cell_t *c);
static void eager_deliver(plx_tl_req_t *r, const void *data, uint64_t len);

/* Put a send (eager or RTS) into the ring; 0 if the ring is full. */
static int send_push(shm_tl_t *t, shm_peer_t *pe, plx_tl_req_t *r)
{
    shm_xfer_t *x = RQ_XFER(r);
    if (!x) {
        if (!shm_ring_push(&pe->out, t->lay.ncells, t->lay.ring_bytes, SHM_T_EAGER, RQ_TAG(r),
                           RQ_BUF(r), (uint32_t)RQ_LEN(r)))
            return 0;
        r->bytes = RQ_LEN(r);
        shm_req_complete(r, PLX_SUCCESS);
        return 1;
    }
    shm_rts_t rts = { .addr = (uint64_t)(uintptr_t)x->buf, .len = x->len, .id = x->id };
    if (!shm_ring_push(&pe->out, t->lay.ncells, t->lay.ring_bytes, SHM_T_RTS, RQ_TAG(r), &rts,
                       sizeof rts))
        return 0;
    RQ_STATE(r) = SHM_RS_SEND_LARGE;
    shm_xlist_push(&pe->large_out, x);
    return 1;
}

static plx_status_t shm_isend(void *tlp, int peer, uint64_t tag, const void *buf, size_t len,
                              plx_tl_req_t *req)
{
    shm_tl_t *t = tlp;
    if (!t || !req || (!buf && len) || !shm_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    int p = t->local_of[peer];
    shm_peer_t *pe = &t->peers[p];
    plx_tl_req_init(req, tag, (void *)(uintptr_t)buf, len, p);

    if (len > t->lay.eager_max && p == t->me) {
        /* A large message to oneself: the receiver is this very thread, so a
         * rendezvous would wait for a receive that a blocking caller can
         * never post.  Deliver it now (posted receive) or keep a private
         * copy (unexpected), after draining what we sent ourselves earlier
         * so same-tag order holds.  With older self-sends still queued
         * behind a full ring, take the normal path to keep the order. */
        shm_cell_t *c;
        while ((c = shm_ring_peek(&pe->in, t->lay.ncells)) && handle_cell(t, p, c)) {}
        if (!pe->sendq.head && !shm_ring_peek(&pe->in, t->lay.ncells)) {
            plx_tl_req_t *r = plx_tl_match_posted(&pe->posted, tag);
            if (r) {
                eager_deliver(r, buf, len);
            } else {
                shm_unexp_t *u = malloc(sizeof *u + len);
                if (!u) return PLX_ERR_NO_MEMORY;
                u->tag = tag;
                u->len = len;
                u->type = SHM_T_EAGER;
                memcpy(u->data, buf, len);
                uq_push(&pe->unexp, u);
            }
            req->bytes = len;
            shm_req_complete(req, PLX_SUCCESS);
            return PLX_SUCCESS;
        }
    }
    if (len > t->lay.eager_max) {
        shm_xfer_t *x = shm_xfer_get(t);
        if (!x) return PLX_ERR_NO_MEMORY;
        x->req = req;
        x->peer = p;
        x->id = t->next_id++;
        x->tag = tag;
        x->len = len;
        x->buf = (unsigned char *)(uintptr_t)buf;
        RQ_XFER(req) = x;
    }
    /* fast path: nothing queued ahead of us (FIFO) and the ring has room */
    if (!pe->sendq.head && send_push(t, pe, req)) return PLX_SUCCESS;
    RQ_STATE(req) = SHM_RS_SENDQ;
    plx_tl_rq_push(&pe->sendq, req);
    t->n_sendq++;
    return PLX_SUCCESS;
}

/* ---- receive ----------------------------------------------------------- */

static void eager_deliver(plx_tl_req_t *r, const void *data, uint64_t len)
{
    shm_req_complete(r, plx_tl_eager_copy(r, data, len));
}

static plx_status_t shm_irecv(void *tlp, int peer, uint64_t tag, void *buf, size_t len,
                              plx_tl_req_t *req)
{
    shm_tl_t *t = tlp;
    if (!t || !req || (!buf && len) || !shm_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    int p = t->local_of[peer];
    shm_peer_t *pe = &t->peers[p];
    plx_tl_req_init(req, tag, buf, len, p);

    /* the oldest unexpected message with this tag, if any */
    for (shm_unexp_t *u = pe->unexp.head; u; u = u->next) {
        if (u->tag != tag) continue;
        uq_remove(&pe->unexp, u);
        if (u->type == SHM_T_EAGER) eager_deliver(req, u->data, u->len);
        else shm_large_recv_start(t, p, req, tag, &u->rts);
        free(u);
        return PLX_SUCCESS;
    }
    RQ_STATE(req) = SHM_RS_POSTED;
    plx_tl_rq_push(&pe->posted, req);
    return PLX_SUCCESS;
}

/* Handle one incoming cell from local peer p.  Returns 0 if it must stay in
 * the ring (out of memory: retried on the next progress). */
static int handle_cell(shm_tl_t *t, int p, shm_cell_t *c)
{
    shm_peer_t *pe = &t->peers[p];
    shm_in_t *in = &pe->in;
    uint64_t dsize = t->lay.ring_bytes;
    uint32_t type = c->type;
    uint64_t tag = c->tag;

    if (type == SHM_T_EAGER) {
        const unsigned char *data = shm_ring_payload(in, c, dsize);
        plx_tl_req_t *r = plx_tl_match_posted(&pe->posted, tag);
        if (r) {
            eager_deliver(r, data, c->len);
        } else {
            shm_unexp_t *u = malloc(sizeof *u + c->len);
            if (!u) return 0;
            u->tag = tag;
            u->len = c->len;
            u->type = SHM_T_EAGER;
            memcpy(u->data, data, c->len);
            uq_push(&pe->unexp, u);
        }
        shm_ring_pop(in, c, dsize);
        return 1;
    }
    if (type == SHM_T_RTS) {
        shm_rts_t rts;
        memcpy(&rts, c->inl, sizeof rts);
        plx_tl_req_t *r = plx_tl_match_posted(&pe->posted, tag);
        if (!r) {
            shm_unexp_t *u = malloc(sizeof *u);
            if (!u) return 0;
            u->tag = tag;
            u->len = rts.len;
            u->type = SHM_T_RTS;
            u->rts = rts;
            uq_push(&pe->unexp, u);
        }
        shm_ring_pop(in, c, dsize);
        if (r) shm_large_recv_start(t, p, r, tag, &rts);
        return 1;
    }
    shm_ctl_t ctl;
    memcpy(&ctl, c->inl, sizeof ctl);
    shm_ring_pop(in, c, dsize);
    if (type == SHM_T_CTS) shm_large_on_cts(t, p, &ctl);
    else if (type == SHM_T_FIN) shm_large_on_fin(t, p, &ctl);
    else plx_warn("shm: unknown message type %u from rank %d ignored", type, pe->world);
    return 1;
}

/* Push queued control messages, then queued sends, while the rings have room. */
static int push_pending(shm_tl_t *t)
{
    int ev = 0;
    for (int p = 0; p < t->nlocal && (t->n_ctrlq || t->n_sendq); p++) {
        shm_peer_t *pe = &t->peers[p];
        shm_ctrl_t *n;
        while ((n = pe->ctrl_head) &&
               shm_ring_push(&pe->out, t->lay.ncells, t->lay.ring_bytes, n->type, 0, &n->c,
                             sizeof n->c)) {
            pe->ctrl_head = n->next;
            if (!pe->ctrl_head) pe->ctrl_tail = NULL;
            n->next = t->ctrl_free;
            t->ctrl_free = n;
            t->n_ctrlq--;
            ev++;
        }
        plx_tl_req_t *r;
        while ((r = pe->sendq.head)) {
            plx_tl_rq_remove(&pe->sendq, r);
            if (!send_push(t, pe, r)) {   /* still full: put it back at the front */
                r->tl_prev = NULL;
                r->tl_next = pe->sendq.head;
                if (pe->sendq.head) pe->sendq.head->tl_prev = r; else pe->sendq.tail = r;
                pe->sendq.head = r;
                break;
            }
            t->n_sendq--;
            ev++;
        }
    }
    return ev;
}

static int shm_progress(void *tlp)
{
    shm_tl_t *t = tlp;
    if (!t) return 0;
    int ev = 0;
    /* incoming: one acquire load per local peer when idle */
    for (int p = 0; p < t->nlocal; p++) {
        shm_in_t *in = &t->peers[p].in;
        shm_cell_t *c;
        for (int k = 0; k < SHM_DRAIN_MAX && (c = shm_ring_peek(in, t->lay.ncells)); k++) {
            if (!handle_cell(t, p, c)) break;
            ev++;
        }
    }
    if (t->n_ctrlq || t->n_sendq) ev += push_pending(t);
    if (t->pulls.n || t->n_stage) ev += shm_large_progress(t);
    return ev;
}

/* ---- probe -------------------------------------------------------------- */

/* The oldest unexpected message from peer matching tag under mask: what
 * shm_irecv would take first (plx_iprobe). */
static int shm_probe(void *tlp, int peer, uint64_t tag, uint64_t mask, uint64_t *tag_out,
                     size_t *bytes)
{
    shm_tl_t *t = tlp;
    if (!t || !shm_reachable(t, peer)) return 0;
    for (shm_unexp_t *u = t->peers[t->local_of[peer]].unexp.head; u; u = u->next) {
        if ((u->tag & mask) != (tag & mask)) continue;
        *tag_out = u->tag;
        *bytes = (size_t)u->len;
        return 1;
    }
    return 0;
}

/* ---- cancel / peer status ---------------------------------------------- */

static void shm_cancel(void *tlp, plx_tl_req_t *req)
{
    shm_tl_t *t = tlp;
    if (!t || !req || req->done) return;
    int p = (int)RQ_PEER(req);
    if (p < 0 || p >= t->nlocal) return;
    shm_peer_t *pe = &t->peers[p];
    switch (RQ_STATE(req)) {
    case SHM_RS_SENDQ:
        plx_tl_rq_remove(&pe->sendq, req);
        t->n_sendq--;
        if (RQ_XFER(req)) shm_xfer_put(t, RQ_XFER(req));
        break;
    case SHM_RS_POSTED:
        plx_tl_rq_remove(&pe->posted, req);
        break;
    case SHM_RS_SEND_LARGE:
    case SHM_RS_RECV_LARGE:
        shm_large_cancel(t, req);
        break;
    default:
        break;
    }
    RQ_STATE(req) = SHM_RS_NONE;
    RQ_XFER(req) = NULL;
    req->tl_next = req->tl_prev = NULL;
}

plx_status_t shm_peer_status(void *tlp, int peer)
{
    shm_tl_t *t = tlp;
    if (!shm_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    int p = t->local_of[peer];
    if (p == t->me) return PLX_SUCCESS;
    shm_peer_t *pe = &t->peers[p];
    if (pe->pidfd >= 0) return plx_tl_pidfd_exited(pe->pidfd) ? PLX_ERR_PEER_FAILED : PLX_SUCCESS;
    if (kill(pe->pid, 0) != 0 && errno == ESRCH) return PLX_ERR_PEER_FAILED;
    return PLX_SUCCESS;
}

/* ---- finalize ---------------------------------------------------------- */

static void shm_finalize(void *tlp)
{
    shm_tl_t *t = tlp;
    if (!t) return;
    if (t->peers) {
        for (int p = 0; p < t->nlocal; p++) {
            shm_peer_t *pe = &t->peers[p];
            if (pe->pidfd >= 0) close(pe->pidfd);
            for (shm_unexp_t *u = pe->unexp.head, *nx; u; u = nx) {
                nx = u->next;
                free(u);
            }
            for (shm_ctrl_t *n = pe->ctrl_head, *nx; n; n = nx) {
                nx = n->next;
                free(n);
            }
        }
    }
    shm_large_free_all(t);
    for (shm_ctrl_t *n = t->ctrl_free, *nx; n; n = nx) {
        nx = n->next;
        free(n);
    }
    if (t->seg) munmap(t->seg, t->seg_len);
    free(t->peers);
    free(t->local_of);
    free(t);
}

/* ---- init -------------------------------------------------------------- */

/* What every rank contributes to the first allgather. */
typedef struct shm_blob {
    char name[SHM_NAME_MAX];   /* segment name (node leader only) */
    int32_t pid;
    int32_t status;            /* leader: did creating the segment work */
    uint64_t probe_addr;       /* address of probe_word, for the CMA probe */
    uint64_t probe_val;
} shm_blob_t;

/* PLX_SHM_CMA (checked by lib/core/config.c): auto|0|1|off|on|no|yes. */
static int parse_cma_mode(void)
{
    static const int mode[] = { SHM_CMA_AUTO, SHM_CMA_OFF, SHM_CMA_ON, SHM_CMA_OFF, SHM_CMA_ON,
                                SHM_CMA_OFF, SHM_CMA_ON };
    int i;
    return plx_env_choice("PLX_SHM_CMA", &i) > 0 && i >= 0 && i < 7 ? mode[i] : SHM_CMA_AUTO;
}

/* Map the segment, learn the peers, probe CMA.  Runs between the two
 * allgathers; any failure is reported through the second one. */
static plx_status_t attach_and_probe(shm_tl_t *t, const shm_blob_t *all, const int *world_of,
                                     int *fd, int created)
{
    plx_status_t st;
    const shm_blob_t *lb = &all[world_of[0]];
    if (!created) {
        if (lb->status != PLX_SUCCESS || !lb->name[0] || memchr(lb->name, 0, SHM_NAME_MAX) == NULL)
            return PLX_ERR_TRANSPORT;   /* the leader already said why */
        st = shm_seg_attach(lb->name, fd, &t->seg, &t->seg_len, &t->lay);
        if (st != PLX_SUCCESS) return st;
        if (t->lay.nlocal != (uint32_t)t->nlocal) {
            plx_error("shm: segment is for %u local ranks, this rank counts %d", t->lay.nlocal,
                      t->nlocal);
            return PLX_ERR_TRANSPORT;
        }
    }
    t->peers = calloc((size_t)t->nlocal, sizeof *t->peers);
    if (!t->peers) return PLX_ERR_NO_MEMORY;
    for (int p = 0; p < t->nlocal; p++) {
        shm_peer_t *pe = &t->peers[p];
        pe->world = world_of[p];
        pe->pid = (pid_t)all[world_of[p]].pid;
        pe->pidfd = p == t->me ? -1 : plx_tl_pidfd_open(pe->pid);
        pe->stage_out.total = &t->n_stage;
        pe->stage_in.total = &t->n_stage;
    }
    shm_seg_wire(t);

    int refused = 0, first = -1, first_err = 0;
    for (int p = 0; p < t->nlocal; p++) {
        shm_peer_t *pe = &t->peers[p];
        if (t->cma_mode == SHM_CMA_OFF) pe->cma_ok = 0;
        else if (p == t->me) pe->cma_ok = 1;   /* a plain memcpy, no kernel permission involved */
        else {
            const shm_blob_t *b = &all[pe->world];
            int err = shm_cma_probe(t, p, b->probe_addr, b->probe_val);
            pe->cma_ok = err == 0;
            if (err && refused++ == 0) {
                first = pe->world;
                first_err = err;
            }
        }
    }
    if (refused) {
        /* one line per rank, not one per peer: there may be hundreds */
        if (t->cma_mode == SHM_CMA_ON) {
            plx_error("shm: PLX_SHM_CMA=1 but process_vm_readv is refused for %d local peer(s) "
                      "(rank %d: %s)", refused, first, strerror(first_err));
            return PLX_ERR_NOT_SUPPORTED;
        }
        plx_warn("shm: process_vm_readv refused for %d local peer(s) (rank %d: %s); their large "
                 "messages use the staging copy", refused, first, strerror(first_err));
    }
    int need_stage = refused || t->cma_mode == SHM_CMA_OFF;
    /* (the direct collectives run only where CMA works) */
    if (!need_stage) t->dstage_ok = shm_seg_reserve_dstage(t, *fd);
    if (need_stage) return shm_seg_reserve_stage_in(t, *fd);
    return PLX_SUCCESS;
}

static plx_status_t shm_init(const plx_tl_env_t *env, void **out)
{
    if (!out) return PLX_ERR_INVALID_ARG;
    *out = NULL;
    if (!env || env->size <= 0 || env->rank < 0 || env->rank >= env->size || !env->node_of ||
        !env->allgather)
        return PLX_ERR_INVALID_ARG;

    shm_tl_t *t = calloc(1, sizeof *t);
    int *world_of = NULL;
    shm_blob_t *all = NULL;
    int32_t *stats = NULL;
    if (!t) return PLX_ERR_NO_MEMORY;
    t->rank = env->rank;
    t->size = env->size;
    t->node_of = env->node_of;
    t->timeout_s = env->timeout_s;
    t->pid = getpid();
    t->next_id = 1;
    t->local_of = malloc((size_t)env->size * sizeof *t->local_of);
    world_of = malloc((size_t)env->size * sizeof *world_of);
    all = calloc((size_t)env->size, sizeof *all);
    stats = calloc((size_t)env->size, sizeof *stats);
    if (!t->local_of || !world_of || !all || !stats) {
        /* cannot even join the collectives: the job's bootstrap will time out */
        free(world_of); free(all); free(stats);
        shm_finalize(t);
        return PLX_ERR_NO_MEMORY;
    }
    int mynode = env->node_of[env->rank];
    for (int r = 0; r < env->size; r++) {
        t->local_of[r] = -1;
        if (env->node_of[r] == mynode) {
            world_of[t->nlocal] = r;
            t->local_of[r] = t->nlocal++;
        }
    }
    t->me = t->local_of[env->rank];
    t->cma_mode = parse_cma_mode();
    if (getrandom((void *)&t->probe_word, sizeof t->probe_word, GRND_NONBLOCK) != sizeof t->probe_word)
        t->probe_word = 0x5a5a5a5a00000000ull ^ (uint64_t)t->pid ^ ((uint64_t)(uintptr_t)t << 7);

    /* 1. the leader creates the segment; everyone learns its name and the pids */
    shm_blob_t mine;
    memset(&mine, 0, sizeof mine);
    int fd = -1, created = 0;
    plx_status_t st = PLX_SUCCESS;
    if (t->me == 0) {
        shm_layout_compute(&t->lay, t->nlocal, 0);
        int big = t->lay.coll_big;
        st = shm_seg_create(env->job_id, &t->lay, mine.name, &fd, &t->seg, big);
        if (st == PLX_ERR_NO_MEMORY && big) {   /* /dev/shm too small for the larger windows */
            plx_info("shm: %" PRIu64 " bytes do not fit /dev/shm; the lean collective windows instead",
                     t->lay.stage_off);
            shm_layout_compute(&t->lay, t->nlocal, 1);
            st = shm_seg_create(env->job_id, &t->lay, mine.name, &fd, &t->seg, 0);
        }
        if (st == PLX_SUCCESS) {
            created = 1;
            t->seg_len = t->lay.total;
        }
    }
    mine.pid = (int32_t)t->pid;
    mine.status = (int32_t)st;
    mine.probe_addr = (uint64_t)(uintptr_t)&t->probe_word;
    mine.probe_val = t->probe_word;
    plx_status_t bst = env->allgather(env->boot, &mine, all, sizeof mine);

    /* 2. map it, probe CMA; then agree (this allgather is also the barrier
     * after which nobody needs the name any more) */
    if (bst == PLX_SUCCESS) {
        if (st == PLX_SUCCESS) st = attach_and_probe(t, all, world_of, &fd, created);
        stats[env->rank] = (int32_t)st;
        int32_t mst = (int32_t)st;
        bst = env->allgather(env->boot, &mst, stats, sizeof mst);
    }
    if (created) shm_unlink(mine.name);   /* all mapped (or gave up): leave nothing in /dev/shm */
    if (fd >= 0) close(fd);

    if (bst != PLX_SUCCESS) {
        plx_error("shm: bootstrap exchange failed (status %d)", (int)bst);
        st = bst == PLX_ERR_TIMEOUT ? PLX_ERR_TIMEOUT : PLX_ERR_BOOTSTRAP;
    } else if (st == PLX_SUCCESS) {
        for (int i = 0; i < t->nlocal; i++)
            if (stats[world_of[i]] != PLX_SUCCESS) {
                plx_debug("shm: local rank %d failed shm set-up", world_of[i]);
                st = PLX_ERR_TRANSPORT;
            }
    }
    free(world_of);
    free(all);
    free(stats);
    if (st != PLX_SUCCESS) {
        shm_finalize(t);
        return st;
    }
    plx_debug("shm: %d local ranks, segment %zu bytes, eager_max %u, ring %" PRIu64
              " B x %u cells, staging 2 x %" PRIu64 " B, CMA %s",
              t->nlocal, t->seg_len, t->lay.eager_max, t->lay.ring_bytes, t->lay.ncells,
              t->lay.stage_bytes, t->cma_mode == SHM_CMA_OFF ? "off" : "on");
    *out = t;
    return PLX_SUCCESS;
}

const plx_tl_ops_t plx_tl_shm_ops = {
    .name = "shm",
    .init = shm_init,
    .reachable = shm_reachable,
    .isend = shm_isend,
    .irecv = shm_irecv,
    .progress = shm_progress,
    .cancel = shm_cancel,
    .peer_status = shm_peer_status,
    .coll_window = shm_coll_window,
    .coll_stage = shm_coll_stage,
    .peer_read = shm_peer_read,
    .peer_write = shm_peer_write,
    .probe = shm_probe,
    .finalize = shm_finalize,
};
