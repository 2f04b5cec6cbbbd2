/*
 * transports/ucx/ucx.c — the UCX transport: the exported ops table,
 * init/finalize (worker addresses through the bootstrap), tag matching over
 * UCP active messages, the eager and RTS/CTS/DATA protocols, cancel, and
 * peer failure.  See ucx_internal.h for why active messages, and README.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "ucx_internal.h"

/* Room for the largest header in an op's data[] before a bounced payload. */
#define UCX_HDR_ROOM   64
#define UCX_BOUNCE_CAP (UCX_HDR_ROOM + UCX_EAGER_MAX)
_Static_assert(sizeof(ucx_rts_t) <= UCX_HDR_ROOM, "header room");

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- lists ----------------------------------------------------------------- */

static void mq_push(ucx_mq_t *q, ucx_msg_t *m) { PLX_TL_LIST_PUSH(q, m, next, prev); }
static void mq_remove(ucx_mq_t *q, ucx_msg_t *m) { PLX_TL_LIST_REMOVE(q, m, next, prev); }

static void mq_free_all(ucx_mq_t *q)
{
    for (ucx_msg_t *m = q->head, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    q->head = q->tail = NULL;
}

static void ol_push(ucx_oplist_t *l, ucx_op_t *o)
{
    PLX_TL_LIST_PUSH(l, o, next, prev);
    o->list = l;
    l->n++;
}

static void ol_remove(ucx_op_t *o)
{
    ucx_oplist_t *l = o->list;
    if (!l) return;
    PLX_TL_LIST_REMOVE(l, o, next, prev);
    o->list = NULL;
    l->n--;
}

/* ---- requests and operations ------------------------------------------------ */

static void req_complete(ucx_tl_t *t, plx_tl_req_t *r, plx_status_t st)
{
    r->status = st;
    RQ_STATE(r) = UCX_RS_DONE;
    RQ_OP(r) = NULL;
    r->tl_next = r->tl_prev = NULL;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    t->events++;
}

/* An op with room for cap bytes of header/payload. */
static ucx_op_t *op_get(ucx_tl_t *t, int kind, size_t cap)
{
    ucx_op_t *o;
    if (cap <= UCX_BOUNCE_CAP && t->bounce_free) {
        o = t->bounce_free;
        t->bounce_free = o->next;
        t->nbounce_free--;
        cap = o->cap;
    } else {
        if (kind == UCX_OP_BOUNCE && cap < UCX_BOUNCE_CAP) cap = UCX_BOUNCE_CAP;   /* poolable */
        o = malloc(sizeof *o + cap);
        if (!o) return NULL;
    }
    memset(o, 0, sizeof *o);
    o->tl = t;
    o->cap = cap;
    o->kind = kind;
    o->peer = -1;
    return o;
}

static void op_free(ucx_tl_t *t, ucx_op_t *o)
{
    free(o->tmp);
    o->tmp = NULL;
    if (o->cap == UCX_BOUNCE_CAP && t->nbounce_free < UCX_BOUNCE_POOL) {
        o->next = t->bounce_free;
        t->bounce_free = o;
        t->nbounce_free++;
    } else {
        free(o);
    }
}

/* Drop an op: out of its list; freed now, or when the action list pops it. */
static void op_put(ucx_tl_t *t, ucx_op_t *o)
{
    ol_remove(o);
    if (o->in_act) {
        o->zombie = 1;
        return;
    }
    op_free(t, o);
}

static void act_push(ucx_tl_t *t, ucx_op_t *o, int act)
{
    o->act = act;
    if (o->in_act) return;
    o->in_act = 1;
    o->anext = NULL;
    if (t->act_tail) t->act_tail->anext = o; else t->act_head = o;
    t->act_tail = o;
}

static plx_status_t map_status(ucx_tl_t *t, int p, ucs_status_t s)
{
    if (s == UCS_OK) return PLX_SUCCESS;
    if (p >= 0 && p < t->size && (t->peers[p].dead || t->peers[p].failing))
        return PLX_ERR_PEER_FAILED;
    switch (s) {
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_REJECTED:
        return PLX_ERR_PEER_FAILED;
    case UCS_ERR_NO_MEMORY:
        return PLX_ERR_NO_MEMORY;
    default:
        return PLX_ERR_TRANSPORT;
    }
}

/* ---- endpoints and failures --------------------------------------------------- */

static void ep_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    ucx_peer_t *pe = arg;
    (void)ep;
    if (pe->dead || pe->failing) return;
    pe->failing = 1;
    pe->fail_status = status;
    pe->tl->nfailing++;
    pe->tl->events++;
}

static plx_status_t get_ep(ucx_tl_t *t, int p, ucp_ep_h *out)
{
    ucx_peer_t *pe = &t->peers[p];
    if (pe->dead || pe->failing) return PLX_ERR_PEER_FAILED;
    if (!pe->ep) {
        if (pe->unreachable) return PLX_ERR_TRANSPORT;
        ucp_ep_params_t prm;
        memset(&prm, 0, sizeof prm);
        prm.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                         UCP_EP_PARAM_FIELD_ERR_HANDLER;
        prm.address = (const ucp_address_t *)(t->addrs + (size_t)p * t->addr_max);
        prm.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        prm.err_handler.cb = ep_err_cb;
        prm.err_handler.arg = pe;
        ucs_status_t s = ucp_ep_create(t->worker, &prm, &pe->ep);
        if (s == UCS_ERR_UNREACHABLE) {
            /* UCX 1.13's shared-memory transports (sysv, posix) have no peer
             * failure detection, so with UCX_TLS limited to them error mode
             * PEER finds no transport: connect without it (a failure of
             * this peer then shows through the pidfd or the core's timeout). */
            prm.err_mode = UCP_ERR_HANDLING_MODE_NONE;
            prm.field_mask &= ~(uint64_t)UCP_EP_PARAM_FIELD_ERR_HANDLER;
            s = ucp_ep_create(t->worker, &prm, &pe->ep);
            if (s == UCS_OK) {
                pe->no_err_mode = 1;
                if (!t->warned_err_mode++)
                    plx_warn("ucx: no UCX transport to rank %d can report a peer failure "
                             "(UCX_TLS=%s); connected without failure detection", p,
                             getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset)");
            }
        }
        if (s != UCS_OK) {
            pe->ep = NULL;
            pe->unreachable = 1;
            plx_error("ucx: cannot connect to rank %d: %s (check UCX_TLS / UCX_NET_DEVICES on "
                      "both sides)", p, ucs_status_string(s));
            return PLX_ERR_TRANSPORT;
        }
    }
    *out = pe->ep;
    return PLX_SUCCESS;
}

static void close_ep_force(ucx_tl_t *t, ucx_peer_t *pe)
{
    if (!pe->ep) return;
    ucp_ep_h ep = pe->ep;
    pe->ep = NULL;
    ucp_request_param_t prm;
    memset(&prm, 0, sizeof prm);
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* force needs error mode PEER on both sides; without it, flush (bounded
     * by finalize, and UCX gives up on a dead peer's transfers itself) */
    prm.flags = pe->no_err_mode ? 0 : UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t sp = ucp_ep_close_nbx(ep, &prm);
    if (UCS_PTR_IS_PTR(sp)) {
        if (t->nclosing == t->capclosing) {
            int cap = t->capclosing ? 2 * t->capclosing : 8;
            void **n = realloc(t->closing, (size_t)cap * sizeof *n);
            if (!n) {
                ucp_request_free(sp);   /* released by UCX once done */
                return;
            }
            t->closing = n;
            t->capclosing = cap;
        }
        t->closing[t->nclosing++] = sp;
    }
}

static void reap_closing(ucx_tl_t *t)
{
    for (int i = 0; i < t->nclosing;) {
        if (ucp_request_check_status(t->closing[i]) != UCS_INPROGRESS) {
            ucp_request_free(t->closing[i]);
            t->closing[i] = t->closing[--t->nclosing];
        } else {
            i++;
        }
    }
}

/* Peer p is gone: fail everything pending with it, close its endpoint. */
static void mark_dead(ucx_tl_t *t, int p, const char *why)
{
    ucx_peer_t *pe = &t->peers[p];
    if (pe->dead) return;
    if (pe->failing) t->nfailing--;
    pe->failing = 0;
    pe->dead = 1;
    /* A peer that finalized before us looks the same as one that died: say
     * it loudly only when something of ours was still waiting on it. */
    int waiting = pe->posted.head != NULL;
    for (ucx_op_t *o = pe->lsend.head; o && !waiting; o = o->next) waiting = o->req != NULL;
    for (ucx_op_t *o = pe->lrecv.head; o && !waiting; o = o->next) waiting = o->req != NULL;
    for (ucx_op_t *o = t->bounce.head; o && !waiting; o = o->next) waiting = o->peer == p && o->req;
    if (waiting && !t->finalizing) plx_warn("ucx: rank %d failed (%s)", p, why);
    else plx_debug("ucx: rank %d gone (%s)", p, why);
    t->events++;
    /* requests UCX is moving complete through their callbacks (the force
     * close cancels them: map_status gives PEER_FAILED now that dead is set) */
    close_ep_force(t, pe);
    plx_tl_req_t *r;
    while ((r = pe->posted.head)) {
        plx_tl_rq_remove(&pe->posted, r);
        req_complete(t, r, PLX_ERR_PEER_FAILED);
    }
    for (ucx_op_t *o = pe->lsend.head, *n; o; o = n) {
        n = o->next;
        if (o->state != UCX_OS_WAIT) continue;
        if (o->req) req_complete(t, o->req, PLX_ERR_PEER_FAILED);
        op_put(t, o);
    }
    for (ucx_op_t *o = pe->lrecv.head, *n; o; o = n) {
        n = o->next;
        if (o->state != UCX_OS_WAIT || o->desc) continue;
        if (o->req) req_complete(t, o->req, PLX_ERR_PEER_FAILED);
        op_put(t, o);
    }
    mq_free_all(&pe->early);   /* the gap before them will never fill */
    /* pe->unexp stays: what the peer sent before dying still matches */
}

static void handle_failures(ucx_tl_t *t)
{
    for (int p = 0; p < t->size && t->nfailing > 0; p++) {
        ucx_peer_t *pe = &t->peers[p];
        if (pe->failing) mark_dead(t, p, ucs_status_string(pe->fail_status));
    }
    t->nfailing = 0;
}

/* ---- sending AMs ------------------------------------------------------------- */

/* UCX finished sending op o (a bounce copy or a large send's DATA):
 * complete its request, if not cancelled, and release a canceller waiting
 * in wait_release (only large sends have one). */
static void send_done_cb(void *request, ucs_status_t status, void *user_data)
{
    ucx_op_t *o = user_data;
    ucx_tl_t *t = o->tl;
    ucp_request_free(request);
    o->ucx_req = NULL;
    if (o->req) {
        if (status == UCS_OK) o->req->bytes = o->len;
        req_complete(t, o->req, map_status(t, o->peer, status));
    }
    if (o->waiter) *o->waiter = 1;
    op_put(t, o);
}

/* Send an AM (header + optional payload) that UCX must not reference after
 * this returns: the short path on the caller's memory if UCX completes it at
 * once, else from a bounce copy.  *op_out is NULL if the send is complete,
 * else the bounce op (req attached, completed by send_done_cb).  On error the
 * message was not sent. */
static plx_status_t am_send_copy(ucx_tl_t *t, int p, const void *hdr, size_t hlen,
                                 const void *payload, size_t plen, plx_tl_req_t *req,
                                 ucx_op_t **op_out)
{
    *op_out = NULL;
    ucp_ep_h ep;
    plx_status_t st = get_ep(t, p, &ep);
    if (st != PLX_SUCCESS) return st;
    ucp_request_param_t prm;
    memset(&prm, 0, sizeof prm);
    prm.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL | UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t sp = ucp_am_send_nbx(ep, UCX_AM_ID, hdr, hlen, payload, plen, &prm);
    if (sp == NULL) return PLX_SUCCESS;
    if (UCS_PTR_IS_PTR(sp)) {
        /* Not expected with FORCE_IMM_CMPL (UCX would hold our memory):
         * wait for it, bounded, rather than return with the caller's
         * buffer still referenced. */
        double deadline = now_s() + UCX_CANCEL_WAIT_S;
        while (ucp_request_check_status(sp) == UCS_INPROGRESS && now_s() < deadline) {
            t->in_progress++;
            ucp_worker_progress(t->worker);
            t->in_progress--;
        }
        ucs_status_t s = ucp_request_check_status(sp);
        ucp_request_free(sp);
        return s == UCS_INPROGRESS ? PLX_ERR_TRANSPORT : map_status(t, p, s);
    }
    ucs_status_t s = UCS_PTR_STATUS(sp);
    if (s != UCS_ERR_NO_RESOURCE && s != UCS_ERR_UNSUPPORTED) return map_status(t, p, s);

    ucx_op_t *o = op_get(t, UCX_OP_BOUNCE, UCX_HDR_ROOM + plen);
    if (!o) return PLX_ERR_NO_MEMORY;
    o->peer = p;
    o->len = plen;
    memcpy(o->data, hdr, hlen);
    if (plen) memcpy(o->data + UCX_HDR_ROOM, payload, plen);
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                       UCP_OP_ATTR_FIELD_USER_DATA;
    prm.cb.send = send_done_cb;
    prm.user_data = o;
    sp = ucp_am_send_nbx(ep, UCX_AM_ID, o->data, hlen, o->data + UCX_HDR_ROOM, plen, &prm);
    if (sp == NULL) {
        op_free(t, o);
        return PLX_SUCCESS;
    }
    if (UCS_PTR_IS_ERR(sp)) {
        op_free(t, o);
        return map_status(t, p, UCS_PTR_STATUS(sp));
    }
    o->ucx_req = sp;
    o->req = req;
    o->state = UCX_OS_UCX;
    ol_push(&t->bounce, o);
    *op_out = o;
    return PLX_SUCCESS;
}

/* A header-only control message (CTS, ABORT), no request attached. */
static plx_status_t send_ctrl(ucx_tl_t *t, int p, uint32_t type, uint64_t id)
{
    ucx_hdr_t h = { .type = type, .src = t->rank, .seq = 0, .pad = 0, .tag = id };
    ucx_op_t *o;
    return am_send_copy(t, p, &h, sizeof h, NULL, 0, NULL, &o);
}

/* ---- large transfers ---------------------------------------------------------- */

/* Post the DATA of large send o (its CTS arrived): the user buffer, no copy;
 * UCX chooses eager or its zero-copy rendezvous. */
static void lsend_data(ucx_tl_t *t, ucx_op_t *o)
{
    ucp_ep_h ep;
    plx_status_t st = get_ep(t, o->peer, &ep);
    if (st == PLX_SUCCESS) {
        ucx_hdr_t h = { .type = UCX_T_DATA, .src = t->rank, .seq = 0, .pad = 0, .tag = o->id };
        memcpy(o->data, &h, sizeof h);   /* UCX may read the header until completion */
        ucp_request_param_t prm;
        memset(&prm, 0, sizeof prm);
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        prm.cb.send = send_done_cb;
        prm.user_data = o;
        ucs_status_ptr_t sp = ucp_am_send_nbx(ep, UCX_AM_ID, o->data, sizeof h, o->buf, o->len, &prm);
        if (UCS_PTR_IS_PTR(sp)) {
            o->ucx_req = sp;
            o->state = UCX_OS_UCX;
            return;
        }
        st = map_status(t, o->peer, UCS_PTR_STATUS(sp));
    }
    if (o->req) {
        if (st == PLX_SUCCESS) o->req->bytes = o->len;
        req_complete(t, o->req, st);
    }
    op_put(t, o);
}

static void lrecv_done(ucx_tl_t *t, ucx_op_t *o, ucs_status_t status, size_t length)
{
    plx_trace("ucx: large receive from rank %d ended: %s, %zu bytes", o->peer,
              ucs_status_string(status), length);
    plx_tl_req_t *r = o->req;
    if (r) {
        if (status != UCS_OK) {
            req_complete(t, r, map_status(t, o->peer, status));
        } else if (o->tmp) {
            memcpy(o->buf, o->tmp, o->buflen);   /* truncation keeps the prefix */
            r->bytes = o->len;
            req_complete(t, r, PLX_ERR_TRUNCATE);
        } else {
            r->bytes = length;
            req_complete(t, r, length > o->buflen ? PLX_ERR_TRUNCATE : PLX_SUCCESS);
        }
    }
    if (o->waiter) *o->waiter = 1;
    op_put(t, o);
}

static void lrecv_cb(void *request, ucs_status_t status, size_t length, void *user_data)
{
    ucx_op_t *o = user_data;
    ucp_request_free(request);
    o->ucx_req = NULL;
    lrecv_done(o->tl, o, status, length);
}

/* Receive the UCX rendezvous payload of large receive o (descriptor o->desc). */
static void lrecv_data(ucx_tl_t *t, ucx_op_t *o)
{
    void *desc = o->desc;
    o->desc = NULL;
    if (!o->req) {   /* cancelled meanwhile: drop it (the sender completes) */
        ucp_am_data_release(t->worker, desc);
        op_put(t, o);
        return;
    }
    unsigned char *dst = o->buf;
    if (o->len > o->buflen) {
        o->tmp = malloc(o->len);
        if (!o->tmp) {
            ucp_am_data_release(t->worker, desc);
            req_complete(t, o->req, PLX_ERR_NO_MEMORY);
            op_put(t, o);
            return;
        }
        dst = o->tmp;
    }
    ucp_request_param_t prm;
    memset(&prm, 0, sizeof prm);
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.cb.recv_am = lrecv_cb;
    prm.user_data = o;
    o->state = UCX_OS_UCX;
    ucs_status_ptr_t sp = ucp_am_recv_data_nbx(t->worker, desc, dst, o->len, &prm);
    if (UCS_PTR_IS_PTR(sp)) {
        o->ucx_req = sp;
        return;
    }
    lrecv_done(t, o, sp == NULL ? UCS_OK : UCS_PTR_STATUS(sp), o->len);
}

/* Send the CTS of large receive o. */
static void lrecv_cts(ucx_tl_t *t, ucx_op_t *o)
{
    plx_status_t st = send_ctrl(t, o->peer, UCX_T_CTS, o->id);
    if (st != PLX_SUCCESS) {
        if (o->req) req_complete(t, o->req, st);
        op_put(t, o);
    }
}

/* Run (or, inside ucp_worker_progress, schedule) action act of op o. */
static void op_act(ucx_tl_t *t, ucx_op_t *o, int act)
{
    if (t->in_progress) {
        act_push(t, o, act);
        return;
    }
    switch (act) {
    case UCX_ACT_CTS: lrecv_cts(t, o); break;
    case UCX_ACT_DATA: lsend_data(t, o); break;
    case UCX_ACT_RECV: lrecv_data(t, o); break;
    case UCX_ACT_ABORT:
        send_ctrl(t, o->peer, UCX_T_ABORT, o->id);
        op_put(t, o);
        break;
    default: break;
    }
}

static int run_actions(ucx_tl_t *t)
{
    int n = 0;
    ucx_op_t *o;
    while ((o = t->act_head)) {
        t->act_head = o->anext;
        if (!t->act_head) t->act_tail = NULL;
        o->anext = NULL;
        o->in_act = 0;
        if (o->zombie) {
            op_free(t, o);
            continue;
        }
        int act = o->act;
        o->act = UCX_ACT_NONE;
        op_act(t, o, act);
        n++;
    }
    return n;
}

/* A receive r matched the RTS of a large message from p. */
static void lrecv_start(ucx_tl_t *t, int p, plx_tl_req_t *r, uint64_t len, uint64_t id)
{
    ucx_op_t *o = op_get(t, UCX_OP_LRECV, 0);
    if (!o) {
        /* the sender keeps waiting for a CTS: the core's timeout ends it */
        req_complete(t, r, PLX_ERR_NO_MEMORY);
        return;
    }
    o->peer = p;
    o->req = r;
    o->id = id;
    o->len = len;
    o->buf = RQ_BUF(r);
    o->buflen = RQ_LEN(r);
    o->state = UCX_OS_WAIT;
    RQ_STATE(r) = UCX_RS_OP;
    RQ_OP(r) = o;
    ol_push(&t->peers[p].lrecv, o);
    if (t->peers[p].dead) {
        req_complete(t, r, PLX_ERR_PEER_FAILED);
        op_put(t, o);
        return;
    }
    op_act(t, o, UCX_ACT_CTS);
}

/* ---- matching ------------------------------------------------------------------- */

static void eager_deliver(ucx_tl_t *t, plx_tl_req_t *r, const void *data, uint64_t len)
{
    req_complete(t, r, plx_tl_eager_copy(r, data, len));
}

static ucx_msg_t *msg_new(uint32_t type, uint32_t seq, uint64_t tag, uint64_t len, uint64_t id,
                          const void *data, size_t dlen)
{
    ucx_msg_t *m = malloc(sizeof *m + dlen);
    if (!m) return NULL;
    m->next = m->prev = NULL;
    m->type = type;
    m->seq = seq;
    m->tag = tag;
    m->len = len;
    m->id = id;
    if (dlen) memcpy(m->data, data, dlen);
    return m;
}

/* Message number pe->recv_seq from p (or a self-send): match it or keep it.
 * m is its stored copy if it has one.  Returns 0 if it could not be kept
 * (out of memory). */
static int deliver(ucx_tl_t *t, int p, uint32_t type, uint64_t tag, uint64_t len, uint64_t id,
                   const void *data, ucx_msg_t *m)
{
    ucx_peer_t *pe = &t->peers[p];
    plx_tl_req_t *r = plx_tl_match_posted(&pe->posted, tag);
    if (r) {
        if (type == UCX_T_EAGER) eager_deliver(t, r, data, len);
        else lrecv_start(t, p, r, len, id);
        free(m);
        return 1;
    }
    if (!m) {
        m = msg_new(type, 0, tag, len, id, data, type == UCX_T_EAGER ? len : 0);
        if (!m) return 0;
    }
    mq_push(&pe->unexp, m);
    return 1;
}

/* An EAGER or RTS message numbered seq arrived from p. */
static void arrive(ucx_tl_t *t, int p, uint32_t type, uint32_t seq, uint64_t tag, uint64_t len,
                   uint64_t id, const void *data)
{
    ucx_peer_t *pe = &t->peers[p];
    if (seq != pe->recv_seq) {
        /* ahead of its turn: keep a copy until the gap fills */
        ucx_msg_t *m = msg_new(type, seq, tag, len, id, data, type == UCX_T_EAGER ? len : 0);
        if (!m) {
            plx_error("ucx: out of memory keeping a message from rank %d; it is lost", p);
            return;
        }
        mq_push(&pe->early, m);
        t->n_early++;
        return;
    }
    if (!deliver(t, p, type, tag, len, id, data, NULL))
        plx_error("ucx: out of memory keeping a message from rank %d; it is lost", p);
    pe->recv_seq++;
    while (pe->early.head) {
        ucx_msg_t *m = pe->early.head;
        while (m && m->seq != pe->recv_seq) m = m->next;
        if (!m) break;
        mq_remove(&pe->early, m);
        deliver(t, p, m->type, m->tag, m->len, m->id, m->data, m);
        pe->recv_seq++;
    }
}

static ucx_op_t *find_op(ucx_oplist_t *l, uint64_t id)
{
    for (ucx_op_t *o = l->head; o; o = o->next)
        if (o->id == id) return o;
    return NULL;
}

/* The one AM handler: runs inside ucp_worker_progress. */
static ucs_status_t am_cb(void *arg, const void *header, size_t hlen, void *data, size_t length,
                          const ucp_am_recv_param_t *param)
{
    ucx_tl_t *t = arg;
    ucx_hdr_t h;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    if (hlen < sizeof h) {
        plx_warn("ucx: dropped a message with a %zu-byte header", hlen);
        return UCS_OK;
    }
    memcpy(&h, header, sizeof h);
    int p = h.src;
    if (p < 0 || p >= t->size || p == t->rank) {
        plx_warn("ucx: dropped a message from unknown rank %d", p);
        return UCS_OK;
    }
    ucx_peer_t *pe = &t->peers[p];
    t->events++;
    switch (h.type) {
    case UCX_T_EAGER:
        if (rndv) {   /* we always send these with UCP_AM_SEND_FLAG_EAGER */
            plx_error("ucx: eager message from rank %d came as rendezvous; dropped", p);
            return UCS_OK;
        }
        arrive(t, p, UCX_T_EAGER, h.seq, h.tag, length, 0, data);
        return UCS_OK;
    case UCX_T_RTS: {
        ucx_rts_t rts;
        if (hlen < sizeof rts) break;
        memcpy(&rts, header, sizeof rts);
        arrive(t, p, UCX_T_RTS, h.seq, h.tag, rts.len, rts.id, NULL);
        return UCS_OK;
    }
    case UCX_T_CTS: {
        ucx_op_t *o = find_op(&pe->lsend, h.tag);
        if (o && o->state == UCX_OS_WAIT && !o->in_act) {
            op_act(t, o, UCX_ACT_DATA);
        } else if (!o) {
            /* the send was cancelled: tell the receiver */
            ucx_op_t *c = op_get(t, UCX_OP_CTRL, 0);
            if (c) {
                c->peer = p;
                c->id = h.tag;
                op_act(t, c, UCX_ACT_ABORT);
            }
        }
        return UCS_OK;
    }
    case UCX_T_DATA: {
        ucx_op_t *o = find_op(&pe->lrecv, h.tag);
        if (!o || o->state != UCX_OS_WAIT || o->desc) return UCS_OK;   /* unknown: drop */
        if (!o->req) {   /* cancelled: drop (a rendezvous sender completes) */
            op_put(t, o);
            return UCS_OK;
        }
        if (rndv) {
            o->desc = data;
            o->len = length;
            op_act(t, o, UCX_ACT_RECV);
            return UCS_INPROGRESS;
        }
        o->len = length;
        uint64_t n = length < o->buflen ? length : o->buflen;
        if (n) memcpy(o->buf, data, n);
        o->req->bytes = length;
        req_complete(t, o->req, length > o->buflen ? PLX_ERR_TRUNCATE : PLX_SUCCESS);
        op_put(t, o);
        return UCS_OK;
    }
    case UCX_T_ABORT: {
        ucx_op_t *o = find_op(&pe->lrecv, h.tag);
        if (!o || o->state != UCX_OS_WAIT || o->desc) return UCS_OK;
        if (o->req) {
            plx_warn("ucx: rank %d withdrew the %" PRIu64 "-byte message this receive matched",
                     p, o->len);
            req_complete(t, o->req, PLX_ERR_TRANSPORT);
        }
        op_put(t, o);
        return UCS_OK;
    }
    default:
        break;
    }
    plx_warn("ucx: dropped a malformed message (type %u) from rank %d", h.type, p);
    return UCS_OK;
}

/* For tests/unit/test_ucx.c only: hand the AM handler a message as if UCX
 * had delivered it (UCX never reorders in practice, so the sequence logic
 * is tested this way).  Hidden: libplexus.so does not export it. */
__attribute__((visibility("hidden"))) void plx_ucx_test_deliver(void *tlp, const void *hdr,
                                                                 size_t hlen, void *data,
                                                                 size_t len)
{
    ucx_tl_t *t = tlp;
    ucp_am_recv_param_t prm;
    memset(&prm, 0, sizeof prm);
    t->in_progress = 1;
    am_cb(t, hdr, hlen, data, len, &prm);
    t->in_progress = 0;
    run_actions(t);
}

/* ---- ops: reachability, send, receive ---------------------------------------------- */

static int ucx_reachable(void *tlp, int peer)
{
    ucx_tl_t *t = tlp;
    return t && peer >= 0 && peer < t->size;
}

static plx_status_t ucx_isend(void *tlp, int peer, uint64_t tag, const void *buf, size_t len,
                              plx_tl_req_t *req)
{
    ucx_tl_t *t = tlp;
    if (!t || !req || (!buf && len) || !ucx_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    plx_tl_req_init(req, tag, (void *)(uintptr_t)buf, len, peer);
    ucx_peer_t *pe = &t->peers[peer];

    if (peer == t->rank) {
        /* to myself: matched now or kept as a copy; never through UCX */
        if (!deliver(t, peer, UCX_T_EAGER, tag, len, 0, buf, NULL)) return PLX_ERR_NO_MEMORY;
        req->bytes = len;
        req_complete(t, req, PLX_SUCCESS);
        return PLX_SUCCESS;
    }
    if (pe->dead) return PLX_ERR_PEER_FAILED;

    if (len <= UCX_EAGER_MAX) {
        ucx_hdr_t h = { .type = UCX_T_EAGER, .src = t->rank, .seq = pe->send_seq, .pad = 0,
                        .tag = tag };
        ucx_op_t *o;
        plx_status_t st = am_send_copy(t, peer, &h, sizeof h, buf, len, req, &o);
        if (st != PLX_SUCCESS) return st;
        pe->send_seq++;
        if (o) {
            RQ_STATE(req) = UCX_RS_OP;
            RQ_OP(req) = o;
        } else {
            req->bytes = len;
            req_complete(t, req, PLX_SUCCESS);
        }
        return PLX_SUCCESS;
    }

    ucx_op_t *o = op_get(t, UCX_OP_LSEND, sizeof(ucx_hdr_t));
    if (!o) return PLX_ERR_NO_MEMORY;
    o->peer = peer;
    o->req = req;
    o->id = t->next_id++;
    o->len = len;
    o->buf = (unsigned char *)(uintptr_t)buf;
    o->state = UCX_OS_WAIT;
    ucx_rts_t rts;
    memset(&rts, 0, sizeof rts);
    rts.h.type = UCX_T_RTS;
    rts.h.src = t->rank;
    rts.h.seq = pe->send_seq;
    rts.h.tag = tag;
    rts.len = len;
    rts.id = o->id;
    ucx_op_t *b;
    ol_push(&pe->lsend, o);   /* listed before the RTS leaves: its CTS must find it */
    plx_status_t st = am_send_copy(t, peer, &rts, sizeof rts, NULL, 0, NULL, &b);
    if (st != PLX_SUCCESS) {
        o->req = NULL;
        op_put(t, o);
        return st;
    }
    pe->send_seq++;
    RQ_STATE(req) = UCX_RS_OP;
    RQ_OP(req) = o;
    return PLX_SUCCESS;
}

static plx_status_t ucx_irecv(void *tlp, int peer, uint64_t tag, void *buf, size_t len,
                              plx_tl_req_t *req)
{
    ucx_tl_t *t = tlp;
    if (!t || !req || (!buf && len) || !ucx_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    plx_tl_req_init(req, tag, buf, len, peer);
    ucx_peer_t *pe = &t->peers[peer];
    for (ucx_msg_t *m = pe->unexp.head; m; m = m->next) {
        if (m->tag != tag) continue;
        mq_remove(&pe->unexp, m);
        if (m->type == UCX_T_EAGER) eager_deliver(t, req, m->data, m->len);
        else lrecv_start(t, peer, req, m->len, m->id);
        free(m);
        return PLX_SUCCESS;
    }
    if (pe->dead) return PLX_ERR_PEER_FAILED;
    RQ_STATE(req) = UCX_RS_POSTED;
    plx_tl_rq_push(&pe->posted, req);
    return PLX_SUCCESS;
}

/* The oldest unexpected message from peer matching tag under mask: what
 * ucx_irecv would take first (plx_iprobe).  Messages still waiting for an
 * earlier one (early queue) are not yet in order, so not reported. */
static int ucx_probe(void *tlp, int peer, uint64_t tag, uint64_t mask, uint64_t *tag_out,
                     size_t *bytes)
{
    ucx_tl_t *t = tlp;
    if (!t || !ucx_reachable(t, peer)) return 0;
    for (ucx_msg_t *m = t->peers[peer].unexp.head; m; m = m->next) {
        if ((m->tag & mask) != (tag & mask)) continue;
        *tag_out = m->tag;
        *bytes = (size_t)m->len;
        return 1;
    }
    return 0;
}

/* ---- progress ------------------------------------------------------------------------ */

static int ucx_progress(void *tlp)
{
    ucx_tl_t *t = tlp;
    if (!t || !t->worker) return 0;
    t->events = 0;
    t->in_progress = 1;
    unsigned n = ucp_worker_progress(t->worker);
    t->in_progress = 0;
    int ev = (int)n + t->events;
    if (t->act_head) ev += run_actions(t);
    if (t->nfailing) handle_failures(t);
    if (t->nclosing) reap_closing(t);
    return ev;
}

/* ---- cancel / peer status ------------------------------------------------------------ */

/* UCX is moving the bytes of o (in or out of the caller's buffer), which no
 * UCX call can stop: wait until it is done, bounded.  The other side is
 * active (it sent the CTS, or it is sending the DATA), so this ends quickly
 * unless it dies, and then UCX errors the transfer. */
static void wait_release(ucx_tl_t *t, ucx_op_t *o)
{
    int released = 0;
    uint64_t len = o->len;   /* o is freed once released */
    int peer = o->peer;
    o->waiter = &released;
    double limit = t->timeout_s > 0 && t->timeout_s < UCX_CANCEL_WAIT_S ? t->timeout_s
                                                                          : UCX_CANCEL_WAIT_S;
    double deadline = now_s() + limit;
    unsigned idle = 0;
    while (!released) {
        if (ucx_progress(t)) idle = 0;
        else if (++idle > 64) sched_yield();
        if (!released && (idle & 255) == 0 && now_s() > deadline) break;
    }
    plx_trace("ucx: cancel waited for a %" PRIu64 "-byte transfer with rank %d: %s", len, peer,
              released ? "stopped" : "still running");
    if (!released) {
        o->waiter = NULL;
        plx_warn("ucx: a cancelled %" PRIu64 "-byte transfer with rank %d did not stop within "
                 "%g s; UCX may still access its buffer", len, peer, limit);
    }
}

static void ucx_cancel(void *tlp, plx_tl_req_t *req)
{
    ucx_tl_t *t = tlp;
    if (!t || !req || req->done) return;
    int p = (int)RQ_PEER(req);
    if (p < 0 || p >= t->size) return;
    ucx_peer_t *pe = &t->peers[p];
    ucx_op_t *o = RQ_OP(req);
    switch (RQ_STATE(req)) {
    case UCX_RS_POSTED:
        plx_tl_rq_remove(&pe->posted, req);
        break;
    case UCX_RS_OP:
        if (!o) break;
        o->req = NULL;
        if (o->kind == UCX_OP_BOUNCE) {
            /* the payload is our copy: UCX finishes sending it, nobody waits */
        } else if (o->kind == UCX_OP_LSEND) {
            if (o->state == UCX_OS_WAIT) op_put(t, o);   /* a later CTS gets an ABORT */
            else wait_release(t, o);
        } else if (o->kind == UCX_OP_LRECV) {
            /* waiting for DATA: stays listed (orphan) so DATA or ABORT is
             * recognised and dropped; landing in a truncation buffer: ours */
            if (o->state == UCX_OS_UCX && !o->tmp) wait_release(t, o);
        }
        break;
    default:
        break;
    }
    RQ_STATE(req) = UCX_RS_NONE;
    RQ_OP(req) = NULL;
    req->tl_next = req->tl_prev = NULL;
}

static plx_status_t ucx_peer_status(void *tlp, int peer)
{
    ucx_tl_t *t = tlp;
    if (!ucx_reachable(t, peer)) return PLX_ERR_INVALID_ARG;
    if (peer == t->rank) return PLX_SUCCESS;
    ucx_peer_t *pe = &t->peers[peer];
    if (pe->failing) handle_failures(t);
    if (pe->dead) return PLX_ERR_PEER_FAILED;
    if (pe->pidfd >= 0) {
        if (plx_tl_pidfd_exited(pe->pidfd)) {
            /* take in what it sent before dying, then fail the rest */
            for (int i = 0; i < 64 && ucx_progress(t); i++) {}
            mark_dead(t, peer, "process exited");
            return PLX_ERR_PEER_FAILED;
        }
        return PLX_SUCCESS;
    }
    /* a peer we never talked to: connect, so UCX watches the connection */
    ucp_ep_h ep;
    if (!pe->ep && !pe->unreachable) get_ep(t, peer, &ep);
    return pe->dead || pe->failing ? PLX_ERR_PEER_FAILED : PLX_SUCCESS;
}

/* ---- finalize ------------------------------------------------------------------------- */

static void free_oplist(ucx_tl_t *t, ucx_oplist_t *l)
{
    ucx_op_t *o;
    while ((o = l->head)) {
        ol_remove(o);
        if (!o->in_act) op_free(t, o);
        else o->zombie = 1;
    }
}

static void ucx_finalize(void *tlp)
{
    ucx_tl_t *t = tlp;
    if (!t) return;
    t->finalizing = 1;
    if (t->n_early)
        plx_debug("ucx: %" PRIu64 " message(s) arrived ahead of their turn and were reordered",
                  t->n_early);
    if (t->peers) {
        /* the core cancelled its requests; make sure no callback touches one */
        for (ucx_op_t *o = t->bounce.head; o; o = o->next) o->req = NULL;
        for (int p = 0; p < t->size; p++) {
            ucx_peer_t *pe = &t->peers[p];
            for (ucx_op_t *o = pe->lsend.head; o; o = o->next) o->req = NULL;
            for (ucx_op_t *o = pe->lrecv.head; o; o = o->next) o->req = NULL;
            pe->posted.head = pe->posted.tail = NULL;
        }
        for (ucx_op_t *o = t->act_head; o; o = o->anext) o->req = NULL;
    }
    if (t->worker && t->peers) {
        /* flush-close every endpoint together; whatever has not closed
         * within the bound is left to ucp_worker_destroy */
        int n = 0;
        void **reqs = calloc((size_t)t->size, sizeof *reqs);
        for (int p = 0; p < t->size; p++) {
            ucx_peer_t *pe = &t->peers[p];
            if (!pe->ep) continue;
            ucp_request_param_t prm;
            memset(&prm, 0, sizeof prm);
            prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            prm.flags = (pe->dead || pe->failing || !reqs) && !pe->no_err_mode ? UCP_EP_CLOSE_FLAG_FORCE : 0;
            ucs_status_ptr_t sp = ucp_ep_close_nbx(pe->ep, &prm);
            pe->ep = NULL;
            if (UCS_PTR_IS_PTR(sp)) {
                if (reqs) reqs[n++] = sp;
                else ucp_request_free(sp);
            }
        }
        double limit = t->timeout_s > 0 && t->timeout_s < UCX_CLOSE_WAIT_S ? t->timeout_s
                                                                             : UCX_CLOSE_WAIT_S;
        double deadline = now_s() + limit;
        unsigned idle = 0;
        while ((n > 0 || t->nclosing > 0) && now_s() < deadline) {
            t->in_progress = 1;
            unsigned ev = ucp_worker_progress(t->worker);
            t->in_progress = 0;
            for (int i = 0; i < n;) {
                if (ucp_request_check_status(reqs[i]) != UCS_INPROGRESS) {
                    ucp_request_free(reqs[i]);
                    reqs[i] = reqs[--n];
                } else {
                    i++;
                }
            }
            reap_closing(t);
            if (ev) idle = 0;
            else if (++idle > 64) sched_yield();
        }
        if (n || t->nclosing)
            plx_debug("ucx: %d endpoint(s) still closing after %g s; destroying the worker", n + t->nclosing, limit);
        for (int i = 0; i < n; i++) ucp_request_free(reqs[i]);   /* released when UCX ends them */
        for (int i = 0; i < t->nclosing; i++) ucp_request_free(t->closing[i]);
        t->nclosing = 0;
        free(reqs);
        /* descriptors kept for an action that will not run */
        for (ucx_op_t *o = t->act_head; o; o = o->anext)
            if (o->desc) {
                ucp_am_data_release(t->worker, o->desc);
                o->desc = NULL;
            }
        ucp_worker_destroy(t->worker);
        t->worker = NULL;
    }
    if (t->ctx) ucp_cleanup(t->ctx);
    t->ctx = NULL;
    if (t->peers) {
        for (int p = 0; p < t->size; p++) {
            ucx_peer_t *pe = &t->peers[p];
            if (pe->pidfd >= 0) close(pe->pidfd);
            mq_free_all(&pe->early);
            mq_free_all(&pe->unexp);
            free_oplist(t, &pe->lsend);
            free_oplist(t, &pe->lrecv);
        }
    }
    free_oplist(t, &t->bounce);
    ucx_op_t *o;
    while ((o = t->act_head)) {
        t->act_head = o->anext;
        free(o->tmp);
        free(o);
    }
    while ((o = t->bounce_free)) {
        t->bounce_free = o->next;
        free(o);
    }
    free(t->closing);
    free(t->peers);
    free(t->addrs);
    free(t->addr_len);
    free(t);
}

/* ---- init --------------------------------------------------------------------------------- */

/* What every rank contributes to the first allgather. */
typedef struct ucx_blob {
    int32_t status;       /* local UCX set-up */
    uint32_t addr_len;    /* worker address bytes */
    int32_t pid;
    uint32_t pad;
    uint64_t pidns_ino, pidns_dev;   /* pid namespace: pids comparable only within one */
    char boot_id[40];     /* kernel instance */
} ucx_blob_t;

static void host_identity(ucx_blob_t *b)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == 0) {
        b->pidns_ino = (uint64_t)st.st_ino;
        b->pidns_dev = (uint64_t)st.st_dev;
    }
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(b->boot_id, sizeof b->boot_id, f)) b->boot_id[0] = '\0';
        fclose(f);
        b->boot_id[strcspn(b->boot_id, "\n")] = '\0';
    }
}

/* UCP context, worker, AM handler, worker address. */
static plx_status_t local_setup(ucx_tl_t *t, ucp_address_t **addr, size_t *addr_len)
{
    ucp_config_t *cfg = NULL;
    ucs_status_t s = ucp_config_read(NULL, NULL, &cfg);   /* UCX_TLS, UCX_NET_DEVICES, ... */
    if (s != UCS_OK) {
        plx_error("ucx: reading the UCX configuration failed: %s", ucs_status_string(s));
        return PLX_ERR_TRANSPORT;
    }
    ucp_params_t prm;
    memset(&prm, 0, sizeof prm);
    prm.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                     UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
    prm.features = UCP_FEATURE_AM;
    prm.mt_workers_shared = 0;
    prm.estimated_num_eps = (size_t)t->size;
    prm.name = "plexus";
    s = ucp_init(&prm, cfg, &t->ctx);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        t->ctx = NULL;
        plx_error("ucx: ucp_init failed: %s", ucs_status_string(s));
        return PLX_ERR_TRANSPORT;
    }
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* SERIALIZED, not SINGLE: calls come from application threads and the
     * core's progress thread (PLX_PROGRESS=thread), one at a time under the
     * context lock; SINGLE would promise UCX one thread only. */
    wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    s = ucp_worker_create(t->ctx, &wp, &t->worker);
    if (s != UCS_OK) {
        t->worker = NULL;
        plx_error("ucx: ucp_worker_create failed: %s", ucs_status_string(s));
        return PLX_ERR_TRANSPORT;
    }
    ucp_am_handler_param_t hp;
    memset(&hp, 0, sizeof hp);
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = UCX_AM_ID;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = am_cb;
    hp.arg = t;
    s = ucp_worker_set_am_recv_handler(t->worker, &hp);
    if (s == UCS_OK) s = ucp_worker_get_address(t->worker, addr, addr_len);
    if (s != UCS_OK) {
        *addr = NULL;
        plx_error("ucx: worker set-up failed: %s", ucs_status_string(s));
        return PLX_ERR_TRANSPORT;
    }
    if (*addr_len > (1u << 20) - 64) {
        plx_error("ucx: worker address of %zu bytes is too large for the bootstrap", *addr_len);
        return PLX_ERR_TRANSPORT;
    }
    return PLX_SUCCESS;
}

static plx_status_t ucx_init(const plx_tl_env_t *env, void **out)
{
    if (!out) return PLX_ERR_INVALID_ARG;
    *out = NULL;
    if (!env || env->size <= 0 || env->rank < 0 || env->rank >= env->size || !env->allgather)
        return PLX_ERR_INVALID_ARG;

    ucx_tl_t *t = calloc(1, sizeof *t);
    ucx_blob_t *all = NULL;
    unsigned char *mine_addr = NULL;
    if (!t) return PLX_ERR_NO_MEMORY;
    t->rank = env->rank;
    t->size = env->size;
    t->timeout_s = env->timeout_s;
    t->next_id = 1;
    t->peers = calloc((size_t)env->size, sizeof *t->peers);
    t->addr_len = calloc((size_t)env->size, sizeof *t->addr_len);
    all = calloc((size_t)env->size, sizeof *all);
    if (!t->peers || !t->addr_len || !all) {
        /* cannot even join the exchange: the job's bootstrap will time out */
        free(all);
        ucx_finalize(t);
        return PLX_ERR_NO_MEMORY;
    }
    for (int p = 0; p < env->size; p++) {
        t->peers[p].tl = t;
        t->peers[p].world = p;
        t->peers[p].pidfd = -1;
    }

    /* 1. local set-up; everyone learns everyone's status, address length, host */
    ucp_address_t *addr = NULL;
    size_t addr_len = 0;
    plx_status_t st = local_setup(t, &addr, &addr_len);
    ucx_blob_t mine;
    memset(&mine, 0, sizeof mine);
    mine.status = (int32_t)st;
    mine.addr_len = st == PLX_SUCCESS ? (uint32_t)addr_len : 0;
    mine.pid = (int32_t)getpid();
    host_identity(&mine);
    plx_status_t bst = env->allgather(env->boot, &mine, all, sizeof mine);

    /* 2. every address, padded to the longest (the bootstrap wants equal lengths) */
    if (bst == PLX_SUCCESS) {
        for (int p = 0; p < env->size; p++) {
            if (all[p].status != PLX_SUCCESS) {
                if (st == PLX_SUCCESS) {
                    plx_error("ucx: rank %d could not start UCX", p);
                    st = PLX_ERR_TRANSPORT;
                }
            }
            if (all[p].addr_len > t->addr_max) t->addr_max = all[p].addr_len;
        }
        /* every rank saw the same statuses: all skip the second exchange together */
        if (st == PLX_SUCCESS) {
            t->addrs = malloc((size_t)env->size * t->addr_max);
            mine_addr = calloc(1, t->addr_max);
            if (!t->addrs || !mine_addr) {
                st = PLX_ERR_NO_MEMORY;   /* the others time out in the exchange */
            } else {
                memcpy(mine_addr, addr, addr_len);
                bst = env->allgather(env->boot, mine_addr, t->addrs, t->addr_max);
            }
        }
    }
    if (addr) ucp_worker_release_address(t->worker, addr);
    free(mine_addr);
    if (bst != PLX_SUCCESS) {
        plx_error("ucx: bootstrap exchange failed (status %d)", (int)bst);
        st = bst == PLX_ERR_TIMEOUT ? PLX_ERR_TIMEOUT : PLX_ERR_BOOTSTRAP;
    }
    if (st != PLX_SUCCESS) {
        free(all);
        ucx_finalize(t);
        return st;
    }
    int same_host = 0;
    for (int p = 0; p < env->size; p++) {
        t->addr_len[p] = all[p].addr_len;
        if (p == env->rank) continue;
        t->peers[p].pid = (pid_t)all[p].pid;
        if (mine.boot_id[0] && !strcmp(all[p].boot_id, mine.boot_id) &&
            all[p].pidns_ino == mine.pidns_ino && all[p].pidns_dev == mine.pidns_dev) {
            t->peers[p].pidfd = plx_tl_pidfd_open(t->peers[p].pid);
            same_host++;
        }
    }
    free(all);
    plx_debug("ucx: UCP %s, worker address %zu bytes (longest %zu), %d peer(s) watched by pidfd",
              ucp_get_version_string(), addr_len, t->addr_max, same_host);
    *out = t;
    return PLX_SUCCESS;
}

const plx_tl_ops_t plx_tl_ucx_ops = {
    .name = "ucx",
    .init = ucx_init,
    .reachable = ucx_reachable,
    .isend = ucx_isend,
    .irecv = ucx_irecv,
    .progress = ucx_progress,
    .cancel = ucx_cancel,
    .peer_status = ucx_peer_status,
    .probe = ucx_probe,
    .finalize = ucx_finalize,
};
