/*
 * transports/shm/shm_large.c — messages above eager_max.
 *
 * The sender puts an RTS {addr, len, id} in the ring and keeps the request
 * in large_out.  The receiver, once the RTS is matched, chooses per source:
 *   - CMA: pull straight into the user buffer with process_vm_readv (a
 *     memcpy for a self-send), in steps of SHM_CMA_STEP per progress() so
 *     one huge message does not stall other peers; then FIN {id, status}
 *     completes the sender.
 *   - staging (CMA refused at init or at run time, or PLX_SHM_CMA=0): the
 *     receiver sends CTS {id, bytes wanted} for ONE message at a time per
 *     source; only then does the sender stream it through the pair's
 *     two-chunk staging area.  A message therefore never occupies staging
 *     before its receive is posted, so large messages received in any order
 *     cannot deadlock.  The sender completes when its last chunk is written.
 * Chunk counters (stage_wcount / stage_rcount) advance in lockstep on both
 * sides; a cancelled sender ends its message with one ABORT chunk and a
 * cancelled receiver keeps draining (discarding), so the counters never
 * drift apart.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* process_vm_readv */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "core/log.h"
#include "shm_internal.h"

/* Bytes pulled per transfer per progress() call: bounds the time spent in
 * one progress() (the kernel does not preempt inside process_vm_readv), so
 * the progress thread lets go of the context lock and a sleeping compute
 * thread gets its core back within ~50 us.  256 KiB: the task-graph overlap
 * benchmark went from 1.21x to 1.07-1.09x of ideal at 2 ranks, with plain
 * allreduce bandwidth unchanged within noise (perf/RESULTS.md). */
#define SHM_CMA_STEP (256u << 10)

int shm_cma_probe(shm_tl_t *t, int p, uint64_t addr, uint64_t val)
{
    uint64_t v = ~val;
    struct iovec l = { .iov_base = &v, .iov_len = sizeof v };
    struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof v };
    ssize_t n = process_vm_readv(t->peers[p].pid, &l, 1, &r, 1, 0);
    if (n == (ssize_t)sizeof v && v == val) return 0;
    int err = n < 0 ? errno : EIO;
    plx_debug("shm: CMA probe of rank %d: %s", t->peers[p].world, strerror(err));
    return err ? err : EIO;
}

static shm_xfer_t *find_id(shm_xlist_t *l, uint64_t id)
{
    for (shm_xfer_t *x = l->head; x; x = x->next)
        if (x->id == id) return x;
    return NULL;
}

/* ---- receiver ---------------------------------------------------------- */

/* Finish a receive; FIN tells a CMA sender it may complete (staging senders
 * completed on their own). */
static void recv_done(shm_tl_t *t, shm_xfer_t *x, plx_status_t st, int fin)
{
    if (fin) shm_ctrl_send(t, x->peer, SHM_T_FIN, x->id, (uint64_t)st);
    plx_tl_req_t *r = x->req;
    if (r) {
        if (st == PLX_SUCCESS) {
            r->bytes = x->len;
            if (x->len > x->buflen) st = PLX_ERR_TRUNCATE;
        } else {
            r->bytes = x->off;
        }
        shm_req_complete(r, st);
    }
    shm_xfer_put(t, x);
}

/* The head of stage_in[p] must have asked for its data. */
static void stage_in_kick(shm_tl_t *t, int p)
{
    shm_xfer_t *x = t->peers[p].stage_in.head;
    if (x && !x->cts_sent) {
        x->cts_sent = 1;
        shm_ctrl_send(t, p, SHM_T_CTS, x->id, x->want);
    }
}

static void to_staging(shm_tl_t *t, shm_xfer_t *x)
{
    x->off = 0;
    x->cts_sent = 0;
    shm_xlist_push(&t->peers[x->peer].stage_in, x);
    stage_in_kick(t, x->peer);
}

void shm_large_recv_start(shm_tl_t *t, int p, plx_tl_req_t *r, uint64_t tag, const shm_rts_t *rts)
{
    shm_xfer_t *x = shm_xfer_get(t);
    if (!x) {
        /* cannot track it: fail this receive, release the sender */
        shm_ctrl_send(t, p, SHM_T_FIN, rts->id, PLX_ERR_NO_MEMORY);
        r->bytes = 0;
        shm_req_complete(r, PLX_ERR_NO_MEMORY);
        return;
    }
    x->req = r;
    x->peer = p;
    x->id = rts->id;
    x->tag = tag;
    x->raddr = rts->addr;
    x->len = rts->len;
    x->buf = RQ_BUF(r);
    x->buflen = RQ_LEN(r);
    x->want = x->len < x->buflen ? x->len : x->buflen;
    RQ_XFER(r) = x;
    RQ_STATE(r) = SHM_RS_RECV_LARGE;
    if (x->want == 0) recv_done(t, x, PLX_SUCCESS, 1);
    else if (t->peers[p].cma_ok) shm_xlist_push(&t->pulls, x);
    else to_staging(t, x);
}

/* A copy with local peer p failed with e (not EINTR, EAGAIN, EPERM, ENOSYS).
 * A process being killed loses its memory before its exit shows (pidfd,
 * kill(0)): the copy then fails with EFAULT, not ESRCH.  On a loaded node
 * the dying process may wait for a CPU to finish exiting (4 ranks on 2
 * cores: 50 ms was once too short), so the failure is final only once the
 * exit shows (PLX_ERR_PEER_FAILED) or SHM_EXIT_SHOW_S (PLX_TIMEOUT if
 * shorter) has passed since the first failure (PLX_ERR_TRANSPORT: a live
 * peer gave a bad address).  copy_verdict answers without waiting:
 * PLX_SUCCESS means "not decided yet, try again later"; *since holds the
 * time of the first failure (0: none yet). */
#define SHM_EXIT_SHOW_S 2.0
static double mono_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static plx_status_t copy_verdict(shm_tl_t *t, int p, int e, const char *fn, size_t len,
                                 uint64_t addr, double *since)
{
    shm_peer_t *pe = &t->peers[p];
    if (e == ESRCH || shm_peer_status(t, pe->world) == PLX_ERR_PEER_FAILED)
        return PLX_ERR_PEER_FAILED;
    double limit = t->timeout_s > 0 && t->timeout_s < SHM_EXIT_SHOW_S ? t->timeout_s
                                                                       : SHM_EXIT_SHOW_S;
    double now = mono_s();
    if (*since == 0) *since = now;
    if (now - *since <= limit) return PLX_SUCCESS;
    plx_warn("shm: %s of %zu bytes at 0x%" PRIx64 " of rank %d failed: %s", fn, len, addr,
             pe->world, strerror(e));
    return PLX_ERR_TRANSPORT;
}

/* The same, for a caller that must have the answer now (peer_copy: the
 * core's direct collectives read in one call): sleep-wait for the verdict,
 * giving the dying process the CPU it needs. */
static plx_status_t copy_failure(shm_tl_t *t, int p, int e, const char *fn, size_t len,
                                 uint64_t addr)
{
    double since = 0;
    plx_status_t st;
    while ((st = copy_verdict(t, p, e, fn, len, addr, &since)) == PLX_SUCCESS) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return st;
}

/* One step of a CMA pull.  Returns 1 if something moved or finished. */
static int pull_step(shm_tl_t *t, shm_xfer_t *x)
{
    shm_peer_t *pe = &t->peers[x->peer];
    uint64_t n = x->want - x->off;
    if (n > SHM_CMA_STEP) n = SHM_CMA_STEP;
    ssize_t got;
    if (x->peer == t->me) {
        /* a self-send cancelled after its RTS: its buffer is no longer ours to read */
        if (!find_id(&pe->large_out, x->id)) {
            recv_done(t, x, PLX_ERR_TRANSPORT, 0);
            return 1;
        }
        memcpy(x->buf + x->off, (const void *)(uintptr_t)(x->raddr + x->off), n);
        got = (ssize_t)n;
    } else {
        struct iovec l = { .iov_base = x->buf + x->off, .iov_len = n };
        struct iovec r = { .iov_base = (void *)(uintptr_t)(x->raddr + x->off), .iov_len = n };
        got = process_vm_readv(pe->pid, &l, 1, &r, 1, 0);
    }
    if (got > 0) {   /* partial reads just continue next time */
        x->fail_since = 0;
        x->off += (uint64_t)got;
        if (x->off == x->want) recv_done(t, x, PLX_SUCCESS, 1);
        return 1;
    }
    int e = got == 0 ? EFAULT : errno;
    switch (e) {
    case EINTR:
    case EAGAIN:
        return 0;
    case EPERM:
    case ENOSYS:
        plx_warn("shm: process_vm_readv from rank %d refused (%s); using staging", pe->world,
                 strerror(e));
        pe->cma_ok = 0;
        shm_xlist_remove(x);
        to_staging(t, x);
        return 1;
    default: {
        /* not decided yet: retry on a later pass; progress goes on for the
         * other transfers meanwhile (never a wait inside progress) */
        plx_status_t st = copy_verdict(t, x->peer, e, "process_vm_readv", (size_t)n,
                                       x->raddr + x->off, &x->fail_since);
        if (st == PLX_SUCCESS) return 0;
        if (st == PLX_ERR_PEER_FAILED)
            plx_warn("shm: rank %d is gone during a large receive", pe->world);
        recv_done(t, x, st, st != PLX_ERR_PEER_FAILED);
        return 1;
    }
    }
}

/* Take the chunks that arrived in the staging area from p. */
static int stage_in_step(shm_tl_t *t, int p)
{
    shm_peer_t *pe = &t->peers[p];
    shm_stage_ctl_t *sc = pe->stage_in_ctl;
    uint64_t cb = t->lay.stage_bytes;
    int ev = 0;
    shm_xfer_t *x;
    while ((x = pe->stage_in.head)) {
        stage_in_kick(t, p);
        uint64_t n = pe->stage_rcount;
        shm_stage_slot_t *s = &sc->slot[n & 1];
        if (atomic_load_explicit(&s->seq, memory_order_acquire) != n + 1) break;
        uint64_t len = s->len;
        int abort = (s->flags & SHM_STAGE_ABORT) != 0;
        if (!abort && len > x->want - x->off) {   /* never trust the peer past our buffer */
            plx_error("shm: staging chunk from rank %d overflows the message", pe->world);
            len = x->want - x->off;
        }
        if (!abort && x->req && len) memcpy(x->buf + x->off, pe->stage_in_buf + (n & 1) * cb, len);
        atomic_store_explicit(&sc->ack[n & 1].ack, n + 1, memory_order_release);
        pe->stage_rcount = n + 1;
        ev++;
        if (abort) {
            plx_debug("shm: rank %d cancelled a staged send", pe->world);
            recv_done(t, x, PLX_ERR_TRANSPORT, 0);
            continue;
        }
        x->off += len;
        if (x->off >= x->want) recv_done(t, x, PLX_SUCCESS, 0);
    }
    return ev;
}

/* ---- sender ------------------------------------------------------------ */

void shm_large_on_cts(shm_tl_t *t, int p, const shm_ctl_t *c)
{
    shm_peer_t *pe = &t->peers[p];
    shm_xfer_t *x = find_id(&pe->large_out, c->id);
    if (x) {
        shm_xlist_remove(x);
    } else {
        /* our send was cancelled: the receiver still waits for chunks, so
         * answer with an ABORT chunk (none if it wants nothing) */
        if (c->val == 0) return;
        if (!(x = shm_xfer_get(t))) {
            plx_error("shm: out of memory answering a CTS from rank %d", pe->world);
            return;
        }
        x->peer = p;
        x->id = c->id;
        x->len = c->val;
    }
    x->want = c->val < x->len ? c->val : x->len;
    x->off = 0;
    shm_xlist_push(&pe->stage_out, x);
}

void shm_large_on_fin(shm_tl_t *t, int p, const shm_ctl_t *c)
{
    shm_xfer_t *x = find_id(&t->peers[p].large_out, c->id);
    if (!x) return;   /* cancelled meanwhile */
    plx_tl_req_t *r = x->req;
    if (r) {
        r->bytes = x->len;
        shm_req_complete(r, (plx_status_t)c->val);
    }
    shm_xfer_put(t, x);
}

/* Fill free staging chunks towards p. */
static int stage_out_step(shm_tl_t *t, int p)
{
    shm_peer_t *pe = &t->peers[p];
    shm_stage_ctl_t *sc = pe->stage_out_ctl;
    uint64_t cb = t->lay.stage_bytes;
    int ev = 0;
    shm_xfer_t *x;
    while ((x = pe->stage_out.head)) {
        if (x->req && x->off == x->want) {   /* want == 0: nothing to stream */
            x->req->bytes = x->len;
            shm_req_complete(x->req, PLX_SUCCESS);
            shm_xfer_put(t, x);
            ev++;
            continue;
        }
        uint64_t n = pe->stage_wcount;
        if (n >= 2 && atomic_load_explicit(&sc->ack[n & 1].ack, memory_order_acquire) != n - 1)
            break;   /* the receiver has not emptied this slot yet */
        shm_stage_slot_t *s = &sc->slot[n & 1];
        uint64_t len = 0;
        if (x->req) {
            len = x->want - x->off;
            if (len > cb) len = cb;
            memcpy(pe->stage_out_buf + (n & 1) * cb, x->buf + x->off, len);
            s->flags = 0;
        } else {
            s->flags = SHM_STAGE_ABORT;
        }
        s->len = len;
        atomic_store_explicit(&s->seq, n + 1, memory_order_release);
        pe->stage_wcount = n + 1;
        ev++;
        x->off += len;
        if (!x->req) {
            shm_xfer_put(t, x);
        } else if (x->off == x->want) {
            x->req->bytes = x->len;
            shm_req_complete(x->req, PLX_SUCCESS);
            shm_xfer_put(t, x);
        }
    }
    return ev;
}

int shm_large_progress(shm_tl_t *t)
{
    int ev = 0;
    for (shm_xfer_t *x = t->pulls.head, *nx; x; x = nx) {
        nx = x->next;
        ev += pull_step(t, x);
    }
    if (t->n_stage) {
        for (int p = 0; p < t->nlocal; p++) {
            if (t->peers[p].stage_out.n) ev += stage_out_step(t, p);
            if (t->peers[p].stage_in.n) ev += stage_in_step(t, p);
        }
    }
    return ev;
}

void shm_large_cancel(shm_tl_t *t, plx_tl_req_t *r)
{
    shm_xfer_t *x = RQ_XFER(r);
    if (!x) return;
    shm_peer_t *pe = &t->peers[x->peer];
    if (x->list == &pe->large_out) {
        shm_xfer_put(t, x);          /* a later CTS gets an ABORT, a later FIN is ignored */
    } else if (x->list == &pe->stage_out) {
        x->req = NULL;               /* stage_out_step ends it with an ABORT chunk */
    } else if (x->list == &t->pulls) {
        shm_ctrl_send(t, x->peer, SHM_T_FIN, x->id, PLX_SUCCESS);
        shm_xfer_put(t, x);
    } else if (x->list == &pe->stage_in) {
        if (x->cts_sent) {
            x->req = NULL;           /* chunks are coming: drain and discard them */
        } else {
            shm_ctrl_send(t, x->peer, SHM_T_FIN, x->id, PLX_SUCCESS);
            shm_xfer_put(t, x);
        }
    }
}

static void free_list(shm_xlist_t *l)
{
    for (shm_xfer_t *x = l->head, *nx; x; x = nx) {
        nx = x->next;
        free(x);
    }
    l->head = l->tail = NULL;
    l->n = 0;
}

void shm_large_free_all(shm_tl_t *t)
{
    if (t->peers)
        for (int p = 0; p < t->nlocal; p++) {
            free_list(&t->peers[p].large_out);
            free_list(&t->peers[p].stage_out);
            free_list(&t->peers[p].stage_in);
        }
    free_list(&t->pulls);
    for (shm_xfer_t *x = t->xfer_free, *nx; x; x = nx) {
        nx = x->next;
        free(x);
    }
    t->xfer_free = NULL;
}

/* ---- single-copy access for the core's node-local collectives --------- */
/* len bytes between local and addr in local peer p's memory, either way. */
static plx_status_t peer_copy(shm_tl_t *t, int peer, void *local, uint64_t addr, size_t len, int write)
{
    if (!t || peer < 0 || peer >= t->size || t->local_of[peer] < 0) return PLX_ERR_NOT_SUPPORTED;
    int p = t->local_of[peer];
    shm_peer_t *pe = &t->peers[p];
    if (!pe->cma_ok) return PLX_ERR_NOT_SUPPORTED;
    if (p == t->me) {
        if (len && write) memcpy((void *)(uintptr_t)addr, local, len);
        else if (len) memcpy(local, (const void *)(uintptr_t)addr, len);
        return PLX_SUCCESS;
    }
    size_t off = 0;
    while (off < len) {   /* partial transfers continue where they stopped */
        struct iovec l = { .iov_base = (char *)local + off, .iov_len = len - off };
        struct iovec r = { .iov_base = (void *)(uintptr_t)(addr + off), .iov_len = len - off };
        ssize_t got = write ? process_vm_writev(pe->pid, &l, 1, &r, 1, 0)
                            : process_vm_readv(pe->pid, &l, 1, &r, 1, 0);
        if (got > 0) {
            off += (size_t)got;
            continue;
        }
        int e = got == 0 ? EFAULT : errno;
        if (e == EINTR || e == EAGAIN) continue;
        const char *fn = write ? "process_vm_writev" : "process_vm_readv";
        if (e == EPERM || e == ENOSYS) {
            plx_warn("shm: %s with rank %d refused (%s)", fn, pe->world, strerror(e));
            pe->cma_ok = 0;   /* later large messages stage; the caller fails this access */
            return PLX_ERR_NOT_SUPPORTED;
        }
        return copy_failure(t, p, e, fn, len - off, addr + off);
    }
    return PLX_SUCCESS;
}

plx_status_t shm_peer_read(void *tlp, int peer, void *dst, uint64_t addr, size_t len)
{
    return peer_copy(tlp, peer, dst, addr, len, 0);
}

plx_status_t shm_peer_write(void *tlp, int peer, uint64_t addr, const void *src, size_t len)
{
    return peer_copy(tlp, peer, (void *)(uintptr_t)src, addr, len, 1);
}
