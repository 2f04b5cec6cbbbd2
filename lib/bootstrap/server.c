/*
 * lib/bootstrap/server.c — the bootstrap rendezvous server.
 *
 * One epoll set holds the listening socket, a wake-up eventfd and every
 * connection; all sockets are non-blocking and every connection has its own
 * receive state (header, then a payload buffer allocated only after the
 * header passed plx_boot_hdr_check) and its own send queue, so a slow,
 * silent or hostile peer can delay nobody else.  Connections go
 *   HANDSHAKE (challenge sent, waiting for AUTH; deadline, capped count)
 *     -> ACTIVE (authenticated rank) or PARKED (rank reconnecting for the
 *        next round before the current one ended) or closed with a reason.
 * The server is driven either by plexusrun's poll loop (plx_boot_server_fd +
 * plx_boot_server_step) or by its own thread (rank 0 without a launcher).
 *
 * Collectives: one open at a time (seq = completed + 1).  The first
 * contribution fixes the op, length and root; anything that disagrees, a
 * rank that left, or a rank lost without goodbye "poisons" the round: every
 * connected rank gets an ERROR frame and later collective frames are
 * answered with ERROR, so no rank waits for its timeout when the job is
 * already broken.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot_internal.h"
#include "core/log.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

enum { C_HANDSHAKE, C_PARKED, C_ACTIVE, C_DEAD };
enum { R_NONE, R_ACTIVE, R_BYE, R_FAILED };

/* A reference-counted payload: one allgather result is queued to every rank
 * without being copied per connection. */
typedef struct blob {
    int refs;
    size_t len;
    uint8_t data[];
} blob_t;

typedef struct outmsg {
    struct outmsg *next;
    uint8_t hdr[PLX_BOOT_HDR_BYTES];
    blob_t *payload;          /* may be NULL */
    size_t off;               /* bytes of hdr + payload already sent */
} outmsg_t;

typedef struct conn {
    struct conn *prev, *next; /* handshake list (accept order) or active list */
    struct conn *dirty_next;  /* on the "has output" list */
    int on_dirty;
    int fd;
    int state;
    int rank;                 /* valid from AUTH on */
    int64_t deadline;         /* handshake deadline */
    uint8_t snonce[PLX_BOOT_NONCE_BYTES];
    uint8_t smac[PLX_BOOT_MAC_BYTES]; /* server proof kept while PARKED */
    char peer[64];
    /* receive state: header, then payload */
    uint8_t hbuf[PLX_BOOT_HDR_BYTES];
    size_t hgot;
    int have_hdr;
    plx_boot_hdr_t hdr;
    uint8_t *pay;
    size_t pgot;
    size_t rx_total;
    /* send queue */
    outmsg_t *oh, *ot;
    int want_out;             /* EPOLLOUT registered */
    int told;                 /* ERROR of the current poison already queued */
} conn_t;

typedef struct slot {
    int state;
    conn_t *conn;
    int arrived;              /* contributed to the open collective */
} slot_t;

struct plx_boot_server {
    int lfd, epfd, wakefd;
    int nranks;
    uint8_t key[PLX_BOOT_KEY_BYTES];
    char where[80];
    int max_unauth, auth_timeout_ms, multi_gen;
    int quiet;                   /* launcher is stopping the job: losses are expected */

    conn_t *hs_head, *hs_tail;   /* HANDSHAKE conns, oldest first (= earliest deadline) */
    int nunauth;
    conn_t *act_head;            /* ACTIVE and PARKED conns */
    conn_t *dirty;               /* conns with queued output not yet flushed */
    conn_t *grave;               /* closed conns, freed at the end of a step */
    size_t nqueued;              /* conns with a non-empty send queue */
    int64_t accept_paused_until; /* after EMFILE: stop accepting for a moment */
    /* Warn lines that strangers can cause (refusals, handshakes that
     * fail or time out, evictions): one per second per kind, with a count
     * of those skipped, so a connection flood is not a log flood. */
    plx_log_limit_t stranger_log, evict_log;

    slot_t *slots;
    int n_none, n_bye, n_failed;
    uint32_t gen;

    /* the open collective */
    uint32_t seq;
    int ctype;                   /* 0: none open */
    uint32_t clen, croot;
    int cfirst;                  /* rank whose frame opened it */
    int carrived;
    blob_t *cres;

    int poisoned;
    plx_status_t pstatus;
    char preason[PLX_BOOT_REASON_MAX];

    /* a rank refused for a wrong key (see note_bad_key) */
    int bad_key_grace_ms;        /* < 0: never fails the job */
    int bad_key_rank;            /* -1: none pending */
    int64_t bad_key_deadline;
    char bad_key_peer[64];

    plx_boot_server_stats_t st;

    pthread_t thr;
    int thr_running;
    atomic_int stop_now;
    atomic_llong finish_deadline; /* 0: not finishing */
};

static const char *type_name(int t)
{
    switch (t) {
    case PLX_BOOT_ALLGATHER: return "allgather";
    case PLX_BOOT_BARRIER: return "barrier";
    case PLX_BOOT_BCAST: return "bcast";
    default: return "?";
    }
}

/* ---- blobs and send queues ---- */

static blob_t *blob_new(size_t len)
{
    blob_t *b = malloc(sizeof *b + (len ? len : 1));
    if (!b) return NULL;
    b->refs = 1;
    b->len = len;
    return b;
}

static void blob_put(blob_t *b)
{
    if (b && --b->refs == 0) free(b);
}

static void conn_kill(plx_boot_server_t *s, conn_t *c);

static void set_out(plx_boot_server_t *s, conn_t *c, int on)
{
    if (c->want_out == on || c->state == C_DEAD) return;
    struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };
    if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0) c->want_out = on;
}

/* Queue one frame; payload (may be NULL) gains a reference.  Sending
 * happens in flush_dirty at the end of the step, so no handler ever sees a
 * connection vanish under it. */
static int queue_frame(plx_boot_server_t *s, conn_t *c, uint16_t type, uint16_t flags,
                       uint32_t seq, blob_t *payload)
{
    if (c->state == C_DEAD) return -1;
    outmsg_t *m = malloc(sizeof *m);
    if (!m) return -1;
    m->next = NULL;
    m->off = 0;
    m->payload = payload;
    if (payload) payload->refs++;
    plx_boot_hdr_make(m->hdr, type, flags, (uint32_t)(c->rank < 0 ? 0 : c->rank), seq,
                      payload ? (uint32_t)payload->len : 0);
    if (!c->oh) s->nqueued++;
    if (c->ot) c->ot->next = m; else c->oh = m;
    c->ot = m;
    if (!c->on_dirty) {
        c->on_dirty = 1;
        c->dirty_next = s->dirty;
        s->dirty = c;
    }
    return 0;
}

static int queue_bytes(plx_boot_server_t *s, conn_t *c, uint16_t type, uint16_t flags,
                       uint32_t seq, const void *data, size_t len)
{
    blob_t *b = blob_new(len);
    if (!b) return -1;
    if (len) memcpy(b->data, data, len);
    int r = queue_frame(s, c, type, flags, seq, b);
    blob_put(b);
    return r;
}

static void free_queue(plx_boot_server_t *s, conn_t *c)
{
    if (c->oh) s->nqueued--;
    for (outmsg_t *m = c->oh, *n; m; m = n) {
        n = m->next;
        blob_put(m->payload);
        free(m);
    }
    c->oh = c->ot = NULL;
}

static void conn_lost(plx_boot_server_t *s, conn_t *c, const char *why);

/* Write as much queued output as the socket takes now. */
static void conn_flush(plx_boot_server_t *s, conn_t *c)
{
    while (c->oh && c->state != C_DEAD) {
        outmsg_t *m = c->oh;
        size_t plen = m->payload ? m->payload->len : 0;
        struct iovec iov[2];
        int n = 0;
        if (m->off < PLX_BOOT_HDR_BYTES) {
            iov[n].iov_base = m->hdr + m->off;
            iov[n++].iov_len = PLX_BOOT_HDR_BYTES - m->off;
            if (plen) { iov[n].iov_base = m->payload->data; iov[n++].iov_len = plen; }
        } else {
            iov[n].iov_base = m->payload->data + (m->off - PLX_BOOT_HDR_BYTES);
            iov[n++].iov_len = plen - (m->off - PLX_BOOT_HDR_BYTES);
        }
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) { set_out(s, c, 1); return; }
            conn_lost(s, c, strerror(errno));
            return;
        }
        m->off += (size_t)w;
        if (m->off == PLX_BOOT_HDR_BYTES + plen) {
            c->oh = m->next;
            if (!c->oh) { c->ot = NULL; s->nqueued--; }
            blob_put(m->payload);
            free(m);
        }
    }
    if (c->state != C_DEAD) set_out(s, c, 0);
}

static void flush_dirty(plx_boot_server_t *s)
{
    while (s->dirty) {
        conn_t *c = s->dirty;
        s->dirty = c->dirty_next;
        c->on_dirty = 0;
        if (c->state != C_DEAD) conn_flush(s, c);
    }
}

/* ---- connection lists ---- */

static void list_unlink(plx_boot_server_t *s, conn_t *c)
{
    if (c->state == C_HANDSHAKE) {
        if (c->prev) c->prev->next = c->next; else s->hs_head = c->next;
        if (c->next) c->next->prev = c->prev; else s->hs_tail = c->prev;
        s->nunauth--;
    } else {
        if (c->prev) c->prev->next = c->next; else s->act_head = c->next;
        if (c->next) c->next->prev = c->prev;
    }
    c->prev = c->next = NULL;
}

static void act_push(plx_boot_server_t *s, conn_t *c)
{
    c->prev = NULL;
    c->next = s->act_head;
    if (s->act_head) s->act_head->prev = c;
    s->act_head = c;
}

/* Close now; the memory is freed at the end of the step (an event for it
 * may still be pending in this step's batch). */
static void conn_kill(plx_boot_server_t *s, conn_t *c)
{
    if (c->state == C_DEAD) return;
    list_unlink(s, c);
    if (c->state == C_ACTIVE && c->rank >= 0 && s->slots[c->rank].conn == c)
        s->slots[c->rank].conn = NULL;
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->state = C_DEAD;
    free_queue(s, c);
    free(c->pay);
    c->pay = NULL;
    c->next = s->grave;   /* on_dirty entries skip dead conns; free only after the step */
    s->grave = c;
}

static void bury(plx_boot_server_t *s)
{
    if (s->dirty) flush_dirty(s);
    while (s->grave) {
        conn_t *c = s->grave;
        s->grave = c->next;
        free(c);
    }
}

/* Refuse: say why (best effort, one non-blocking send), log, close. */
static void refuse(plx_boot_server_t *s, conn_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(plx_boot_server_t *s, conn_t *c, const char *fmt, ...)
{
    char reason[PLX_BOOT_REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN, "bootstrap server %s: refused connection from %s: %s",
                    s->where, c->peer, reason);
    s->st.refused++;
    uint8_t buf[PLX_BOOT_HDR_BYTES + PLX_BOOT_REASON_MAX];
    size_t rl = strlen(reason);
    plx_boot_hdr_make(buf, PLX_BOOT_REFUSE, 0, 0, 0, (uint32_t)rl);
    memcpy(buf + PLX_BOOT_HDR_BYTES, reason, rl);
    ssize_t w = send(c->fd, buf, PLX_BOOT_HDR_BYTES + rl, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
    conn_kill(s, c);
}

/* ---- job state ---- */

static void poison(plx_boot_server_t *s, plx_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void poison(plx_boot_server_t *s, plx_status_t st, const char *fmt, ...)
{
    if (s->poisoned) return;
    s->poisoned = 1;
    s->pstatus = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->preason, sizeof s->preason, fmt, ap);
    va_end(ap);
    if (s->quiet) plx_info("bootstrap server %s: job failed: %s", s->where, s->preason);
    else plx_warn("bootstrap server %s: job failed: %s", s->where, s->preason);
    /* tell every connected rank now: those waiting in a collective return at
     * once instead of at their timeout */
    uint8_t msg[4 + PLX_BOOT_REASON_MAX];
    size_t rl = strlen(s->preason);
    plx_put_be32(msg, (uint32_t)st);
    memcpy(msg + 4, s->preason, rl);
    for (int r = 0; r < s->nranks; r++) {
        conn_t *c = s->slots[r].conn;
        if (c && c->state == C_ACTIVE && !c->told) {
            c->told = 1;
            queue_bytes(s, c, PLX_BOOT_ERROR, 0, s->seq, msg, 4 + rl);
        }
    }
}

static void admit(plx_boot_server_t *s, conn_t *c, const uint8_t cnonce[PLX_BOOT_NONCE_BYTES]);

static void coll_reset(plx_boot_server_t *s)
{
    if (s->ctype)
        for (int r = 0; r < s->nranks; r++) s->slots[r].arrived = 0;
    s->ctype = 0;
    s->carrived = 0;
    blob_put(s->cres);
    s->cres = NULL;
}

/* Called when a rank said goodbye or was lost: end of the round? */
static void check_round_end(plx_boot_server_t *s)
{
    if (s->n_bye + s->n_failed < s->nranks) return;
    if (s->n_failed == 0 && s->multi_gen) {
        /* everyone said goodbye: a new round may start (plx_init again) */
        s->gen++;
        coll_reset(s);
        for (int r = 0; r < s->nranks; r++) s->slots[r] = (slot_t){ R_NONE, NULL, 0 };
        s->n_none = s->nranks;
        s->n_bye = s->n_failed = 0;
        s->seq = 1;
        s->poisoned = 0;
        s->preason[0] = '\0';
        plx_info("bootstrap server %s: round %u over; ready for round %u", s->where,
                 s->gen - 1, s->gen);
        for (conn_t *c = s->act_head, *n; c; c = n) {
            n = c->next;
            if (c->state == C_PARKED) admit(s, c, NULL);
        }
    } else if (s->n_failed) {
        for (conn_t *c = s->act_head, *n; c; c = n) {
            n = c->next;
            if (c->state == C_PARKED)
                refuse(s, c, "the job's previous round ended with failed ranks");
        }
    }
}

/* Send WELCOME (server proof) and make c the connection of its rank.
 * cnonce NULL: c was parked and its proof is already stored in c->smac. */
static void admit(plx_boot_server_t *s, conn_t *c, const uint8_t cnonce[PLX_BOOT_NONCE_BYTES])
{
    slot_t *sl = &s->slots[c->rank];
    uint8_t mac[PLX_BOOT_MAC_BYTES];
    if (cnonce) {
        plx_boot_auth_mac(s->key, 's', c->snonce, cnonce, (uint32_t)c->rank,
                          (uint32_t)s->nranks, mac);
    } else {
        memcpy(mac, c->smac, sizeof mac);   /* computed when it was parked */
    }
    if (sl->state == R_ACTIVE) {
        refuse(s, c, "rank %d is already connected (duplicate rank)", c->rank);
        return;
    }
    if (sl->state == R_FAILED) {
        refuse(s, c, "rank %d already failed in this job", c->rank);
        return;
    }
    if (sl->state == R_BYE) {
        /* this rank finished the current round and comes back for the next
         * one: hold the WELCOME until every rank has finished */
        if (c->state == C_HANDSHAKE) {
            list_unlink(s, c);
            c->state = C_PARKED;
            act_push(s, c);
        }
        memcpy(c->smac, mac, sizeof mac);
        plx_debug("bootstrap server %s: rank %d reconnected early; parked until round %u ends",
                  s->where, c->rank, s->gen);
        return;
    }
    if (c->state == C_HANDSHAKE) {
        list_unlink(s, c);
        act_push(s, c);
    }
    c->state = C_ACTIVE;
    c->told = 0;
    if (s->bad_key_rank == c->rank) s->bad_key_rank = -1;   /* the real one came */
    sl->state = R_ACTIVE;
    sl->conn = c;
    s->n_none--;
    s->st.authenticated++;
    queue_bytes(s, c, PLX_BOOT_WELCOME, 0, 0, mac, sizeof mac);
    plx_debug("bootstrap server %s: rank %d connected from %s", s->where, c->rank, c->peer);
}

/* A connection that completed the framing and claimed rank r, not yet
 * connected, failed to prove the key: most likely rank r was started with
 * a wrong PLX_JOB_KEY, and then the job can never complete.  Rather than
 * let every other rank wait PLX_TIMEOUT, fail the job (naming r) unless a
 * rank r with the right key arrives within bad_key_grace_ms.  The grace is
 * what keeps this from being a denial of service: anyone who can reach the
 * port can make such a claim, but it only ends a job whose real rank r is
 * missing anyway (late by more than the grace); a claim for a rank that is
 * already connected, or a stranger that does not complete the framing,
 * changes nothing.  plexusrun turns this off (it hands every rank the key
 * itself, and stops the job when a rank fails). */
static void note_bad_key(plx_boot_server_t *s, conn_t *c, int rank)
{
    if (s->bad_key_grace_ms < 0 || s->poisoned || s->bad_key_rank >= 0 ||
        s->slots[rank].state != R_NONE)
        return;
    s->bad_key_rank = rank;
    s->bad_key_deadline = plx_boot_now_ms() + s->bad_key_grace_ms;
    snprintf(s->bad_key_peer, sizeof s->bad_key_peer, "%s", c->peer);
}

/* Called from expire(): the grace of a refused rank is over. */
static void check_bad_key(plx_boot_server_t *s, int64_t now)
{
    if (s->bad_key_rank < 0 || now < s->bad_key_deadline) return;
    int r = s->bad_key_rank;
    s->bad_key_rank = -1;
    if (s->slots[r].state != R_NONE) return;   /* the real rank r came meanwhile */
    poison(s, PLX_ERR_BOOTSTRAP,
           "rank %d was refused: the process claiming it (from %s) did not prove the job key "
           "(wrong PLX_JOB_KEY?), and no rank %d with the right key came within %d ms",
           r, s->bad_key_peer, r, s->bad_key_grace_ms);
}

static void handle_auth(plx_boot_server_t *s, conn_t *c)
{
    const uint8_t *p = c->pay;
    uint32_t size = plx_get_be32(p);
    const uint8_t *cnonce = p + 4, *mac = p + 4 + PLX_BOOT_NONCE_BYTES;
    uint8_t want[PLX_BOOT_MAC_BYTES];
    int rank = (int)c->hdr.rank;   /* < nranks: checked by plx_boot_hdr_check */
    plx_boot_auth_mac(s->key, 'c', c->snonce, cnonce, (uint32_t)rank, size, want);
    if (plx_ct_memcmp(want, mac, sizeof want) != 0) {
        note_bad_key(s, c, rank);
        refuse(s, c, "authentication failed for rank %d (wrong job key?)", rank);
        return;
    }
    if (size != (uint32_t)s->nranks) {
        refuse(s, c, "rank %d says the job has %u ranks but this server serves %d",
               rank, size, s->nranks);
        return;
    }
    c->rank = rank;
    uint8_t cn[PLX_BOOT_NONCE_BYTES];
    memcpy(cn, cnonce, sizeof cn);
    free(c->pay);
    c->pay = NULL;
    admit(s, c, cn);
}

static void complete(plx_boot_server_t *s)
{
    for (int r = 0; r < s->nranks; r++) {
        conn_t *c = s->slots[r].conn;
        if (!c) continue;
        blob_t *pl = NULL;
        if (s->ctype == PLX_BOOT_ALLGATHER) pl = s->cres;
        else if (s->ctype == PLX_BOOT_BCAST && (uint32_t)r != s->croot) pl = s->cres;
        if (queue_frame(s, c, PLX_BOOT_RESULT, (uint16_t)s->ctype, s->seq, pl) < 0)
            conn_lost(s, c, "out of memory queueing a result");
    }
    s->st.collectives++;
    plx_trace("bootstrap server %s: %s #%u complete", s->where, type_name(s->ctype), s->seq);
    coll_reset(s);
    s->seq++;
}

static void handle_coll(plx_boot_server_t *s, conn_t *c)
{
    const plx_boot_hdr_t *h = &c->hdr;
    int r = c->rank, t = h->type;
    if (s->poisoned) {
        if (!c->told) {
            uint8_t msg[4 + PLX_BOOT_REASON_MAX];
            size_t rl = strlen(s->preason);
            plx_put_be32(msg, (uint32_t)s->pstatus);
            memcpy(msg + 4, s->preason, rl);
            c->told = 1;
            queue_bytes(s, c, PLX_BOOT_ERROR, 0, h->seq, msg, 4 + rl);
        }
        return;
    }
    if (h->seq != s->seq) {
        poison(s, PLX_ERR_BOOTSTRAP, "rank %d sent collective #%u (%s) while the job is at #%u",
               r, h->seq, type_name(t), s->seq);
        return;
    }
    if (s->n_bye || s->n_failed) {
        int gone = -1;
        for (int q = 0; q < s->nranks && gone < 0; q++)
            if (s->slots[q].state == R_BYE || s->slots[q].state == R_FAILED) gone = q;
        poison(s, s->n_failed ? PLX_ERR_PEER_FAILED : PLX_ERR_BOOTSTRAP,
               "rank %d called %s #%u but rank %d has already left the bootstrap",
               r, type_name(t), h->seq, gone);
        return;
    }
    uint32_t len = 0, root = 0;
    const uint8_t *data = c->pay;
    if (t == PLX_BOOT_ALLGATHER) {
        len = h->len;
        if ((uint64_t)len * (uint64_t)s->nranks > PLX_BOOT_MAX_TOTAL) {
            poison(s, PLX_ERR_BOOTSTRAP, "allgather #%u: %u bytes x %d ranks exceeds the %u-byte limit",
                   h->seq, len, s->nranks, PLX_BOOT_MAX_TOTAL);
            return;
        }
    } else if (t == PLX_BOOT_BCAST) {
        root = plx_get_be32(c->pay);
        len = plx_get_be32(c->pay + 4);
        data = c->pay + 8;
        if (root >= (uint32_t)s->nranks || len > PLX_BOOT_MAX_BLOB ||
            h->len != 8 + ((uint32_t)r == root ? len : 0)) {
            poison(s, PLX_ERR_BOOTSTRAP, "rank %d sent a malformed bcast #%u (root %u, %u bytes)",
                   r, h->seq, root, len);
            return;
        }
    }
    if (!s->ctype) {
        s->ctype = t;
        s->clen = len;
        s->croot = root;
        s->cfirst = r;
        if (t == PLX_BOOT_ALLGATHER) {
            s->cres = blob_new((size_t)len * (size_t)s->nranks);
            if (!s->cres) {
                poison(s, PLX_ERR_NO_MEMORY, "allgather #%u: out of memory", h->seq);
                return;
            }
        }
    } else if (t != s->ctype) {
        poison(s, PLX_ERR_BOOTSTRAP, "collective #%u: rank %d called %s but rank %d called %s",
               h->seq, r, type_name(t), s->cfirst, type_name(s->ctype));
        return;
    } else if (len != s->clen || root != s->croot) {
        if (t == PLX_BOOT_ALLGATHER)
            poison(s, PLX_ERR_BOOTSTRAP,
                   "allgather #%u: rank %d gave %u bytes but rank %d gave %u (lengths must match)",
                   h->seq, r, len, s->cfirst, s->clen);
        else
            poison(s, PLX_ERR_BOOTSTRAP,
                   "bcast #%u: rank %d asked root %u / %u bytes but rank %d asked root %u / %u bytes",
                   h->seq, r, root, len, s->cfirst, s->croot, s->clen);
        return;
    }
    if (s->slots[r].arrived) {   /* cannot happen with matching seq; be safe */
        poison(s, PLX_ERR_BOOTSTRAP, "rank %d entered collective #%u twice", r, h->seq);
        return;
    }
    s->slots[r].arrived = 1;
    s->carrived++;
    if (t == PLX_BOOT_ALLGATHER && len)
        memcpy(s->cres->data + (size_t)r * len, data, len);
    else if (t == PLX_BOOT_BCAST && (uint32_t)r == root) {
        s->cres = blob_new(len);
        if (!s->cres) {
            poison(s, PLX_ERR_NO_MEMORY, "bcast #%u: out of memory", h->seq);
            return;
        }
        memcpy(s->cres->data, data, len);
    }
    if (s->carrived == s->nranks) complete(s);
}

static void handle_bye(plx_boot_server_t *s, conn_t *c)
{
    int r = c->rank;
    s->slots[r].state = R_BYE;
    s->n_bye++;
    conn_kill(s, c);
    plx_debug("bootstrap server %s: rank %d said goodbye", s->where, r);
    if (s->ctype && !s->slots[r].arrived && !s->poisoned)
        poison(s, PLX_ERR_BOOTSTRAP, "rank %d left the bootstrap while %s #%u was open",
               r, type_name(s->ctype), s->seq);
    check_round_end(s);
}

/* A whole frame (header + payload) arrived on c. */
static void handle_frame(plx_boot_server_t *s, conn_t *c)
{
    int t = c->hdr.type;
    if (c->state == C_HANDSHAKE) {
        if (t != PLX_BOOT_AUTH) refuse(s, c, "expected AUTH, got frame type %d", t);
        else handle_auth(s, c);
        return;
    }
    if (c->state == C_PARKED) {
        refuse(s, c, "rank %d sent a frame before it was welcomed", c->rank);
        return;
    }
    switch (t) {
    case PLX_BOOT_ALLGATHER:
    case PLX_BOOT_BARRIER:
    case PLX_BOOT_BCAST:
        handle_coll(s, c);
        break;
    case PLX_BOOT_BYE:
        handle_bye(s, c);
        break;
    default:
        plx_warn("bootstrap server %s: rank %d sent an unexpected frame type %d; dropping it",
                 s->where, c->rank, t);
        conn_lost(s, c, "protocol error");
        break;
    }
}

static void conn_lost(plx_boot_server_t *s, conn_t *c, const char *why)
{
    if (c->state == C_DEAD) return;
    if (c->state == C_HANDSHAKE) {
        s->st.dropped++;
        if (c->rx_total == 0)
            plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN,
                            "bootstrap server %s: connection from %s closed without authenticating (%s)",
                            s->where, c->peer, why);
        else
            plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN,
                            "bootstrap server %s: connection from %s closed during the handshake after "
                            "%zu bytes (truncated frame; %s)", s->where, c->peer, c->rx_total, why);
        conn_kill(s, c);
        return;
    }
    if (c->state == C_PARKED) {
        plx_debug("bootstrap server %s: parked rank %d went away (%s)", s->where, c->rank, why);
        conn_kill(s, c);
        return;
    }
    int r = c->rank;
    conn_kill(s, c);
    s->slots[r].state = R_FAILED;
    s->n_failed++;
    s->st.failed_ranks++;
    if (s->poisoned || s->quiet)   /* a consequence of an earlier failure: not news */
        plx_info("bootstrap server %s: rank %d lost its connection without goodbye (%s)",
                 s->where, r, why);
    poison(s, PLX_ERR_PEER_FAILED,
           "rank %d disconnected from the bootstrap without goodbye (%s; process died?)", r, why);
    check_round_end(s);
}

/* Read what is available on c, one exact frame piece at a time (never past
 * the current frame, so a refused peer's later bytes are not our business). */
static void conn_read(plx_boot_server_t *s, conn_t *c)
{
    int frames = 0;
    size_t bytes = 0;
    while (c->state != C_DEAD && frames < 16 && bytes < (4u << 20)) {
        uint8_t *dst;
        size_t want;
        if (!c->have_hdr) { dst = c->hbuf + c->hgot; want = PLX_BOOT_HDR_BYTES - c->hgot; }
        else { dst = c->pay + c->pgot; want = c->hdr.len - c->pgot; }
        ssize_t n = want ? recv(c->fd, dst, want, 0) : 0;
        if (want && n == 0) { conn_lost(s, c, "connection closed"); return; }
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            conn_lost(s, c, strerror(errno));
            return;
        }
        c->rx_total += (size_t)n;
        bytes += (size_t)n;
        if (!c->have_hdr) {
            c->hgot += (size_t)n;
            if (c->hgot < PLX_BOOT_HDR_BYTES) continue;
            plx_boot_hdr_unpack(c->hbuf, &c->hdr);
            const char *why;
            size_t max = c->state == C_HANDSHAKE ? PLX_BOOT_AUTH_BYTES : 8 + PLX_BOOT_MAX_BLOB;
            if (plx_boot_hdr_check(&c->hdr, s->nranks, max, &why) < 0) {
                if (c->state == C_HANDSHAKE)
                    refuse(s, c, "bad frame header: %s (type %u, rank %u, len %u)", why,
                           (unsigned)c->hdr.type, (unsigned)c->hdr.rank, (unsigned)c->hdr.len);
                else {
                    plx_warn("bootstrap server %s: rank %d sent a bad frame header: %s",
                             s->where, c->rank, why);
                    conn_lost(s, c, "bad frame");
                }
                return;
            }
            if (c->state == C_ACTIVE && c->hdr.rank != (uint32_t)c->rank) {
                plx_warn("bootstrap server %s: rank %d sent a frame claiming rank %u",
                         s->where, c->rank, c->hdr.rank);
                conn_lost(s, c, "bad frame");
                return;
            }
            c->have_hdr = 1;
            c->pgot = 0;
            free(c->pay);
            c->pay = malloc(c->hdr.len ? c->hdr.len : 1);
            if (!c->pay) { conn_lost(s, c, "out of memory"); return; }
        } else {
            c->pgot += (size_t)n;
        }
        if (c->pgot == c->hdr.len) {
            frames++;
            c->have_hdr = 0;
            c->hgot = 0;
            handle_frame(s, c);
            if (c->state != C_DEAD) {
                free(c->pay);
                c->pay = NULL;
            }
        }
    }
}

static void evict_oldest(plx_boot_server_t *s, const char *why)
{
    conn_t *c = s->hs_head;
    if (!c) return;
    /* one line per second at most: a flood must not become a log flood */
    plx_log_limited(&s->evict_log, 1000, PLX_LOG_WARN,
                    "bootstrap server %s: %s; dropped the oldest unauthenticated connection, from %s",
                    s->where, why, c->peer);
    s->st.dropped++;
    conn_kill(s, c);
}

static void do_accept(plx_boot_server_t *s)
{
    for (int i = 0; i < 64; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if ((errno == EMFILE || errno == ENFILE) && s->hs_head) {
                evict_oldest(s, "out of file descriptors");
                continue;
            }
            plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN,
                            "bootstrap server %s: accept: %s; pausing accepts for 100 ms", s->where,
                            strerror(errno));
            epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, NULL);
            s->accept_paused_until = plx_boot_now_ms() + 100;
            return;
        }
        s->st.accepted++;
        if (s->nunauth >= s->max_unauth) {
            char why[96];
            snprintf(why, sizeof why, "too many unauthenticated connections (%d)", s->nunauth);
            evict_oldest(s, why);
        }
        conn_t *c = calloc(1, sizeof *c);
        if (!c || plx_boot_sock_setup(fd) < 0 || plx_boot_random(c->snonce, sizeof c->snonce) < 0) {
            plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN,
                            "bootstrap server %s: cannot set up a new connection: %s", s->where,
                            strerror(errno));
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->rank = -1;
        c->state = C_HANDSHAKE;
        c->deadline = plx_boot_now_ms() + s->auth_timeout_ms;
        plx_boot_addr_str((struct sockaddr *)&ss, sl, c->peer, sizeof c->peer);
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN, "bootstrap server %s: epoll_ctl: %s",
                            s->where, strerror(errno));
            free(c);
            close(fd);
            continue;
        }
        c->prev = s->hs_tail;
        if (s->hs_tail) s->hs_tail->next = c; else s->hs_head = c;
        s->hs_tail = c;
        s->nunauth++;
        queue_bytes(s, c, PLX_BOOT_CHALLENGE, PLX_BOOT_PROTO_VERSION, 0, c->snonce,
                    sizeof c->snonce);
    }
}

static void expire(plx_boot_server_t *s, int64_t now)
{
    while (s->hs_head && s->hs_head->deadline <= now) {
        conn_t *c = s->hs_head;
        plx_log_limited(&s->stranger_log, 1000, PLX_LOG_WARN,
                        "bootstrap server %s: connection from %s did not authenticate within %d ms "
                        "(%zu bytes received); dropped", s->where, c->peer, s->auth_timeout_ms,
                        c->rx_total);
        s->st.dropped++;
        conn_kill(s, c);
    }
    check_bad_key(s, now);
    if (s->accept_paused_until && s->accept_paused_until <= now) {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->lfd };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) == 0 || errno == EEXIST)
            s->accept_paused_until = 0;
    }
}

int plx_boot_server_timeout_ms(const plx_boot_server_t *s)
{
    int64_t next = -1;
    if (s->hs_head) next = s->hs_head->deadline;
    if (s->accept_paused_until && (next < 0 || s->accept_paused_until < next))
        next = s->accept_paused_until;
    if (s->bad_key_rank >= 0 && (next < 0 || s->bad_key_deadline < next))
        next = s->bad_key_deadline;
    if (next < 0) return -1;
    int64_t d = next - plx_boot_now_ms();
    if (d < 0) d = 0;
    return d > 3600000 ? 3600000 : (int)d;
}

int plx_boot_server_step(plx_boot_server_t *s, int timeout_ms)
{
    int to = plx_boot_server_timeout_ms(s);
    if (timeout_ms >= 0 && (to < 0 || timeout_ms < to)) to = timeout_ms;
    struct epoll_event evs[64];
    int n = epoll_wait(s->epfd, evs, 64, to);
    if (n < 0) {
        if (errno == EINTR) n = 0;
        else {
            plx_error("bootstrap server %s: epoll_wait: %s", s->where, strerror(errno));
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {
        void *p = evs[i].data.ptr;
        if (p == &s->lfd) { do_accept(s); continue; }
        if (p == &s->wakefd) {
            uint64_t v;
            ssize_t r = read(s->wakefd, &v, sizeof v);
            (void)r;
            continue;
        }
        conn_t *c = p;
        if (c->state == C_DEAD) continue;
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) conn_read(s, c);
        if (c->state != C_DEAD && (evs[i].events & EPOLLOUT)) conn_flush(s, c);
    }
    expire(s, plx_boot_now_ms());
    bury(s);   /* flushes queued output, then frees closed connections */
    return 0;
}

/* ---- creation / queries ---- */

plx_status_t plx_boot_server_create(const char *host, int port, int nranks,
                                    const uint8_t key[PLX_BOOT_KEY_BYTES],
                                    plx_boot_server_t **srvp, int *port_out)
{
    if (!srvp || !key || nranks < 1 || nranks > PLX_BOOT_MAX_RANKS || port < 0 || port > 65535) {
        plx_warn("bootstrap server: bad arguments (nranks %d, port %d)", nranks, port);
        errno = EINVAL;
        return PLX_ERR_INVALID_ARG;
    }
    *srvp = NULL;
    if (!host || !*host) host = "127.0.0.1";
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res = NULL;
    int gr = getaddrinfo(host, ps, &hints, &res);
    if (gr) {
        plx_warn("bootstrap server: cannot resolve '%s': %s", host, gai_strerror(gr));
        errno = EADDRNOTAVAIL;
        return PLX_ERR_BOOTSTRAP;
    }
    int lfd = -1, err = 0;
    for (struct addrinfo *a = res; a && lfd < 0; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { err = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
            err = errno;
            close(fd);
            continue;
        }
        lfd = fd;
    }
    freeaddrinfo(res);
    if (lfd < 0) {
        plx_warn("bootstrap server: cannot listen on %s:%d: %s", host, port, strerror(err));
        errno = err;
        return PLX_ERR_BOOTSTRAP;
    }
    plx_boot_server_t *s = calloc(1, sizeof *s);
    if (s) s->slots = calloc((size_t)nranks, sizeof *s->slots);
    if (!s || !s->slots) {
        if (s) free(s);
        close(lfd);
        errno = ENOMEM;
        return PLX_ERR_NO_MEMORY;
    }
    s->lfd = lfd;
    s->nranks = nranks;
    memcpy(s->key, key, PLX_BOOT_KEY_BYTES);
    /* room for every rank to be mid-handshake at once (a job starting),
     * plus some strangers; bounded so a flood cannot exhaust fds */
    s->max_unauth = nranks + 64 < 4096 ? nranks + 64 : 4096;
    s->auth_timeout_ms = 10000;
    s->multi_gen = 1;
    s->bad_key_grace_ms = PLX_BOOT_BAD_KEY_GRACE_MS;
    s->bad_key_rank = -1;
    s->n_none = nranks;
    s->seq = 1;
    s->gen = 1;
    atomic_init(&s->stop_now, 0);
    atomic_init(&s->finish_deadline, 0);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(lfd, (struct sockaddr *)&ss, &sl);
    plx_boot_addr_str((struct sockaddr *)&ss, sl, s->where, sizeof s->where);
    int bound = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                         : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event e1 = { .events = EPOLLIN, .data.ptr = &s->lfd };
    struct epoll_event e2 = { .events = EPOLLIN, .data.ptr = &s->wakefd };
    if (s->epfd < 0 || s->wakefd < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, lfd, &e1) < 0 ||
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->wakefd, &e2) < 0) {
        err = errno;
        plx_warn("bootstrap server: epoll/eventfd: %s", strerror(err));
        if (s->epfd >= 0) close(s->epfd);
        if (s->wakefd >= 0) close(s->wakefd);
        close(lfd);
        free(s->slots);
        free(s);
        errno = err;
        return PLX_ERR_BOOTSTRAP;
    }
    plx_debug("bootstrap server listening on %s for %d ranks", s->where, nranks);
    if (port_out) *port_out = bound;
    *srvp = s;
    return PLX_SUCCESS;
}

void plx_boot_server_set_limits(plx_boot_server_t *s, int max_unauth, int auth_timeout_ms)
{
    if (!s) return;
    if (max_unauth > 0) s->max_unauth = max_unauth;
    if (auth_timeout_ms > 0) s->auth_timeout_ms = auth_timeout_ms;
}

void plx_boot_server_set_bad_key_grace(plx_boot_server_t *s, int grace_ms)
{
    if (s) s->bad_key_grace_ms = grace_ms < 0 ? -1 : grace_ms;
}

void plx_boot_server_set_multi_gen(plx_boot_server_t *s, int multi_gen)
{
    if (s) s->multi_gen = multi_gen ? 1 : 0;
}

void plx_boot_server_set_quiet(plx_boot_server_t *s, int quiet)
{
    if (s) s->quiet = quiet ? 1 : 0;
}

int plx_boot_server_fd(const plx_boot_server_t *s) { return s ? s->epfd : -1; }

int plx_boot_server_rank_failed(const plx_boot_server_t *s, int rank)
{
    if (!s || rank < 0 || rank >= s->nranks) return 0;
    return s->slots[rank].state == R_FAILED;
}

void plx_boot_server_get_stats(const plx_boot_server_t *s, plx_boot_server_stats_t *st)
{
    if (s && st) *st = s->st;
}

/* ---- thread ---- */

/* Every rank either finished or holds all its results: rank 0 may stop. */
static int graceful_done(const plx_boot_server_t *s)
{
    return (s->poisoned || s->n_none == 0) && s->nqueued == 0;
}

static void *server_thread(void *arg)
{
    plx_boot_server_t *s = arg;
    while (!atomic_load(&s->stop_now)) {
        int64_t fin = atomic_load(&s->finish_deadline);
        int to = -1;
        if (fin) {
            if (graceful_done(s)) break;
            int64_t left = fin - plx_boot_now_ms();
            if (left <= 0) {
                plx_warn("bootstrap server %s: stopping with %d rank(s) not yet connected "
                         "or still receiving", s->where, s->n_none);
                break;
            }
            to = left > 1000 ? 1000 : (int)left;
        }
        if (plx_boot_server_step(s, to) < 0) break;
    }
    return NULL;
}

plx_status_t plx_boot_server_start_thread(plx_boot_server_t *s)
{
    if (!s || s->thr_running) return PLX_ERR_INVALID_ARG;
    atomic_store(&s->stop_now, 0);
    atomic_store(&s->finish_deadline, 0);
    int e = pthread_create(&s->thr, NULL, server_thread, s);
    if (e) {
        plx_warn("bootstrap server: cannot start its thread: %s", strerror(e));
        return PLX_ERR_BOOTSTRAP;
    }
    s->thr_running = 1;
    return PLX_SUCCESS;
}

void plx_boot_server_stop_thread(plx_boot_server_t *s, double graceful_s)
{
    if (!s || !s->thr_running) return;
    if (graceful_s > 0) {
        int64_t d = plx_boot_now_ms() + (int64_t)(graceful_s * 1000.0);
        atomic_store(&s->finish_deadline, d ? d : 1);
    } else {
        atomic_store(&s->stop_now, 1);
    }
    uint64_t one = 1;
    ssize_t w = write(s->wakefd, &one, sizeof one);
    (void)w;
    pthread_join(s->thr, NULL);
    s->thr_running = 0;
}

void plx_boot_server_destroy(plx_boot_server_t *s)
{
    if (!s) return;
    plx_boot_server_stop_thread(s, 0);
    plx_log_limit_flush(&s->stranger_log, PLX_LOG_WARN, "bootstrap server: refused or failed connections");
    plx_log_limit_flush(&s->evict_log, PLX_LOG_WARN, "bootstrap server: evicted connections");
    while (s->hs_head) conn_kill(s, s->hs_head);
    while (s->act_head) conn_kill(s, s->act_head);
    s->dirty = NULL;
    bury(s);
    coll_reset(s);
    close(s->lfd);
    close(s->epfd);
    close(s->wakefd);
    memset(s->key, 0, sizeof s->key);
    free(s->slots);
    free(s);
}
