/*
 * tests/mr/p2p_check.c — multi-rank test of Plexus point-to-point messages
 * (plx_send / plx_recv), launched by plexusrun.
 *
 * What it checks, and why:
 *  - ring exchange (rank r sends to r+1, receives from r-1) at message sizes
 *    0, 1, 4, 16, ... 64 MiB (powers of 4) in uint8, int32, float16 and
 *    float64: contents, *received, guard bytes after the receive region, and
 *    the send buffer left unchanged.  Even ranks send first and odd ranks
 *    receive first, the classic ordering that cannot deadlock with blocking
 *    (rendezvous) sends.  On one rank the "ring" is a send to oneself, which
 *    is tested only up to 1 KiB (see below) unless --self-any is given.
 *  - tags matched out of order: rank 0 sends tags 1, 2, 3 to rank 1, which
 *    receives 3, 2, 1.  plx_send is blocking, so this only works because
 *    small messages (<= 1 KiB here) are sent eagerly.  Large blocking sends
 *    to a peer that receives them in a different order can deadlock exactly
 *    as in MPI (the sender of tag 1 waits for a receive that is posted only
 *    after tag 3 arrived); that is not a bug and is deliberately NOT tested.
 *  - messages with equal tags between a pair arrive in order; messages from
 *    different peers with the same tag are told apart; the same tag on two
 *    communicators (world and a dup) does not mix.
 *  - sending to oneself (small: a blocking send of a large message to
 *    oneself before the receive is posted would deadlock in MPI, so only
 *    <= 1 KiB by default although plexus.h promises any size; --self-any
 *    checks that promise at every ring size on a 1-rank job).
 *  - *received reports the element count that arrived (smaller messages
 *    than the buffer leave the rest of the buffer untouched); received may
 *    be NULL.
 *  - truncation: 100 elements received into 50 gives PLX_ERR_TRUNCATE, the
 *    buffer holds the first 50 elements, nothing is written past them, and
 *    *received is 100 (what arrived) or 50 (what was stored) — plexus.h
 *    does not say which, so both are accepted and the value is printed; the
 *    truncated message is consumed (the next one with the same tag is
 *    received normally); the sender of a truncated message succeeds.  Done
 *    small (eager) and large (4 MiB, single-copy path) and to oneself.
 *  - tags 0 and PLX_TAG_MAX work; a message pending across a collective is
 *    still received; a small (eager) and a large message with the same tag
 *    arrive in send order.
 *
 * With --nb every send and receive above goes through plx_isend/plx_irecv,
 * completed in rotation by plx_wait, a plx_test polling loop, plx_waitall
 * and plx_waitany (a refused call must set *req to NULL, a completed
 * request must come back NULL, the receive's status -- PLX_ERR_TRUNCATE
 * included -- is the one the completion returns).  Beyond that, what only
 * nonblocking calls allow: the ring posts its receive and its send together
 * and completes them in varying orders (no even/odd ordering needed, and a
 * 1-rank job sends itself every ring size); rank 0 sends large messages with
 * tags 1, 2, 3 (4 MiB, 1 KiB, 1 MiB) that rank 1 receives in the order 3,
 * 2, 1 -- the case that deadlocks with blocking calls.
 *
 * Final line: `p2p_check: rank R: N checks, M failures`; exit 1 on failure.
 * Options: --max-bytes N (largest ring message, default 64 MiB), --self-any
 * (self-send at every ring size), --nb (nonblocking, see above), --tag X
 * (ignored; for runners).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plexus.h"

#define GUARD 64
#define SENT 0xA5

static int g_rank, g_size;
static long g_checks, g_fails;
static int g_nb;                 /* --nb: isend/irecv + a completion call */
static unsigned g_nb_turn;       /* rotates the completion path */

static void fail(const char *fmt, ...)
{
    va_list ap;
    g_fails++;
    printf("FAIL p2p rank %d: ", g_rank);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

static void *xalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1) != 0) {
        fprintf(stderr, "p2p_check: rank %d: out of memory (%zu)\n", g_rank, n);
        exit(1);
    }
    return p;
}

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Deterministic message bytes for (src, key). */
static void fill_msg(unsigned char *p, size_t bytes, int src, uint64_t key)
{
    size_t i = 0;
    uint64_t base = ((uint64_t)src << 48) ^ (key << 8);
    for (; i + 8 <= bytes; i += 8) {
        uint64_t h = mix64(base + i);
        memcpy(p + i, &h, 8);
    }
    if (i < bytes) {
        uint64_t h = mix64(base + i);
        memcpy(p + i, &h, bytes - i);
    }
}

/* First differing byte offset, or -1. */
static long check_msg(const unsigned char *p, size_t bytes, int src, uint64_t key)
{
    unsigned char tmp[4096];
    for (size_t off = 0; off < bytes; off += sizeof tmp) {
        size_t n = bytes - off < sizeof tmp ? bytes - off : sizeof tmp;
        /* regenerate the slice: fill_msg works on 8-byte words from offset 0 */
        size_t i = 0;
        uint64_t base = ((uint64_t)src << 48) ^ (key << 8);
        for (; i < n; i += 8) {
            uint64_t h = mix64(base + off + i);
            memcpy(tmp + i, &h, n - i < 8 ? n - i : 8);
        }
        if (memcmp(p + off, tmp, n) != 0) {
            for (size_t j = 0; j < n; j++)
                if (p[off + j] != tmp[j]) return (long)(off + j);
        }
    }
    return -1;
}

static long check_sent(const unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != SENT) return (long)i;
    return -1;
}

static int expect(plx_status_t st, plx_status_t want, const char *what)
{
    g_checks++;
    if (st != want) {
        fail("%s: status %d (%s), expected %d (%s)", what, (int)st, plx_strerror(st), (int)want,
             plx_strerror(want));
        return 0;
    }
    return 1;
}

/* ---- nonblocking completion --------------------------------------------- */
#define REQ_MARK ((plx_request_t)(uintptr_t)0x5eed)   /* "never written" marker */

/* Complete *req through plx_wait, a plx_test loop, plx_waitall or
 * plx_waitany (in rotation, with NULL entries around it); the operation's
 * status is returned and *req must come back NULL. */
static plx_status_t nb_complete(plx_request_t *req, const char *what)
{
    plx_status_t st;
    switch (g_nb_turn++ % 4) {
    case 0:
        st = plx_wait(req);
        break;
    case 1: {
        int done = 0;
        do {   /* bounded: plx_test ends a request older than PLX_TIMEOUT */
            st = plx_test(req, &done);
        } while (!done && st == PLX_SUCCESS);
        g_checks++;
        if (!done)
            fail("%s: plx_test returned %s with done == 0", what, plx_strerror(st));
        break;
    }
    case 2: {
        plx_request_t arr[3] = {NULL, *req, NULL};
        plx_status_t sts[3] = {PLX_ERR_INTERNAL, PLX_ERR_INTERNAL, PLX_ERR_INTERNAL};
        plx_status_t first = plx_waitall(3, arr, sts);
        st = sts[1];
        g_checks++;
        if (first != st || sts[0] != PLX_SUCCESS || sts[2] != PLX_SUCCESS || arr[0] || arr[2])
            fail("%s: plx_waitall returned %d, statuses %d %d %d", what, (int)first, (int)sts[0],
                 (int)sts[1], (int)sts[2]);
        *req = arr[1];
        break;
    }
    default: {
        plx_request_t arr[3] = {NULL, *req, NULL};
        int idx = -7;
        st = plx_waitany(3, arr, &idx);
        g_checks++;
        if (idx != 1)
            fail("%s: plx_waitany index %d, expected 1", what, idx);
        *req = arr[1];
        break;
    }
    }
    g_checks++;
    if (*req != NULL)
        fail("%s: request not NULL after completion", what);
    return st;
}

/* After plx_isend/plx_irecv returned st: refused -> *req NULL,
 * started -> completed; returns the final status. */
static plx_status_t nb_finish(plx_status_t st, plx_request_t *req, const char *what)
{
    g_checks++;
    if (st != PLX_SUCCESS) {
        if (*req != NULL)
            fail("%s: refused call (%s) did not set *req to NULL", what, plx_strerror(st));
        return st;
    }
    if (*req == REQ_MARK) {
        fail("%s: started call left *req unset", what);
        return PLX_ERR_INTERNAL;
    }
    return nb_complete(req, what);
}

static plx_status_t x_send(const void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                           plx_comm_t comm, const char *what)
{
    if (!g_nb) return plx_send(buf, count, dt, peer, tag, comm);
    plx_request_t req = REQ_MARK;
    return nb_finish(plx_isend(buf, count, dt, peer, tag, comm, &req), &req, what);
}

static plx_status_t x_recv(void *buf, size_t count, plx_dtype_t dt, int peer, int tag,
                           plx_comm_t comm, size_t *received, const char *what)
{
    if (!g_nb) return plx_recv(buf, count, dt, peer, tag, comm, received);
    plx_request_t req = REQ_MARK;
    return nb_finish(plx_irecv(buf, count, dt, peer, tag, comm, received, &req), &req, what);
}

/* A receive buffer: guard | bytes | guard, all sentinel. */
typedef struct rbuf {
    unsigned char *base;
    size_t bytes;
} rbuf_t;

static unsigned char *rb_init(rbuf_t *b, size_t bytes)
{
    b->base = xalloc(bytes + 2 * GUARD);
    b->bytes = bytes;
    memset(b->base, SENT, bytes + 2 * GUARD);
    return b->base + GUARD;
}

/* Check guards and that bytes [valid, bytes) are untouched. */
static void rb_check_rest(rbuf_t *b, size_t valid, const char *what)
{
    long off;
    g_checks++;
    if ((off = check_sent(b->base, GUARD)) >= 0)
        fail("%s: guard before the receive buffer written at byte %ld", what, off - GUARD);
    if ((off = check_sent(b->base + GUARD + valid, b->bytes - valid + GUARD)) >= 0)
        fail("%s: byte %zu written (only %zu bytes should be)", what, valid + (size_t)off, valid);
}

static void rb_free(rbuf_t *b) { free(b->base); b->base = NULL; }

/* Receive count elements of dt from peer/tag into a fresh guarded buffer and
 * check contents (expected from (src, key), msg_count elements sent). */
static void recv_check(plx_comm_t comm, int peer, int tag, plx_dtype_t dt, size_t count,
                       size_t msg_count, int src_id, uint64_t key, const char *what)
{
    size_t es = plx_dtype_size(dt);
    rbuf_t b;
    unsigned char *p = rb_init(&b, count * es);
    size_t got = (size_t)-1;
    plx_status_t st = x_recv(p, count, dt, peer, tag, comm, &got, what);
    if (expect(st, PLX_SUCCESS, what)) {
        g_checks++;
        if (got != msg_count)
            fail("%s: *received = %zu, expected %zu", what, got, msg_count);
        long off;
        g_checks++;
        if ((off = check_msg(p, msg_count * es, src_id, key)) >= 0)
            fail("%s: wrong data at element %ld (byte %ld)", what, off / (long)es, off);
        rb_check_rest(&b, msg_count * es, what);
    }
    rb_free(&b);
}

static void send_msg(plx_comm_t comm, int peer, int tag, plx_dtype_t dt, size_t count, int src_id,
                     uint64_t key, const char *what)
{
    size_t es = plx_dtype_size(dt), bytes = count * es;
    unsigned char *p = xalloc(bytes);
    fill_msg(p, bytes, src_id, key);
    plx_status_t st = x_send(p, count, dt, peer, tag, comm, what);
    expect(st, PLX_SUCCESS, what);
    long off;
    g_checks++;
    if ((off = check_msg(p, bytes, src_id, key)) >= 0)
        fail("%s: send buffer changed at byte %ld", what, off);
    free(p);
}

/* ---- ring ---------------------------------------------------------------- */
/* --nb ring step: receive and send posted together (in an order that
 * alternates with step), completed by waitall, send-then-receive waits, or
 * waitany, then checked like the blocking step. */
static void ring_step_nb(plx_comm_t comm, int right, int left, int tag, plx_dtype_t dt, size_t count,
                         uint64_t key, int step, const char *what)
{
    size_t es = plx_dtype_size(dt), bytes = count * es;
    rbuf_t b;
    unsigned char *rp = rb_init(&b, bytes);
    unsigned char *sp = xalloc(bytes);
    fill_msg(sp, bytes, g_rank, key);
    size_t got = (size_t)-1;
    plx_request_t rq[2] = {REQ_MARK, REQ_MARK};      /* [0] receive, [1] send */
    plx_status_t sts[2] = {PLX_ERR_INTERNAL, PLX_ERR_INTERNAL}, ps[2];
    if (step % 2) {
        ps[1] = plx_isend(sp, count, dt, right, tag, comm, &rq[1]);
        ps[0] = plx_irecv(rp, count, dt, left, tag, comm, &got, &rq[0]);
    } else {
        ps[0] = plx_irecv(rp, count, dt, left, tag, comm, &got, &rq[0]);
        ps[1] = plx_isend(sp, count, dt, right, tag, comm, &rq[1]);
    }
    if (!expect(ps[0], PLX_SUCCESS, what) || !expect(ps[1], PLX_SUCCESS, what)) {
        /* a half-posted exchange cannot be undone safely: stop the job */
        printf("p2p_check: rank %d: giving up after a failed post\n", g_rank);
        exit(1);
    }
    switch (step % 3) {
    case 0:
        plx_waitall(2, rq, sts);
        break;
    case 1:
        sts[1] = nb_complete(&rq[1], what);
        sts[0] = nb_complete(&rq[0], what);
        break;
    default:
        for (int k = 0; k < 2; k++) {
            int idx = -1;
            plx_status_t st = plx_waitany(2, rq, &idx);
            g_checks++;
            if (idx < 0 || idx > 1 || rq[idx] != NULL) {
                fail("%s: plx_waitany gave index %d", what, idx);
                plx_waitall(2, rq, NULL);
                break;
            }
            sts[idx] = st;
        }
        break;
    }
    g_checks++;
    if (rq[0] || rq[1])
        fail("%s: requests not NULL after completion", what);
    expect(sts[1], PLX_SUCCESS, what);
    if (expect(sts[0], PLX_SUCCESS, what)) {
        long off;
        g_checks++;
        if (got != count)
            fail("%s: *received = %zu, expected %zu", what, got, count);
        g_checks++;
        if ((off = check_msg(rp, bytes, left, key)) >= 0)
            fail("%s: wrong data at element %ld (byte %ld)", what, off / (long)es, off);
        rb_check_rest(&b, bytes, what);
    }
    long off;
    g_checks++;
    if ((off = check_msg(sp, bytes, g_rank, key)) >= 0)
        fail("%s: send buffer changed at byte %ld", what, off);
    free(sp);
    rb_free(&b);
}

static void ring(plx_comm_t comm, size_t max_bytes, int self_any)
{
    static const plx_dtype_t dts[4] = {PLX_UINT8, PLX_INT32, PLX_FLOAT16, PLX_FLOAT64};
    int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int step = 0;
    for (int d = 0; d < 4; d++) {
        plx_dtype_t dt = dts[d];
        size_t es = plx_dtype_size(dt);
        size_t last_count = (size_t)-1;
        for (size_t bytes = 0; bytes <= max_bytes; bytes = bytes ? bytes * 4 : 1) {
            size_t count = bytes / es;
            if (count == last_count) continue;
            last_count = count;
            /* blocking self-sends stay small (see the header); nonblocking ones
             * post the receive with the send, so any size is legal */
            if (g_size == 1 && !self_any && !g_nb && count * es > 1024) continue;
            int tag = 1000 + step++;
            uint64_t key = ((uint64_t)d << 32) | (uint64_t)count;
            char what[96];
            snprintf(what, sizeof what, "ring dtype=%s count=%zu (%zu bytes) tag=%d", plx_dtype_name(dt),
                     count, count * es, tag);
            if (g_nb) {
                ring_step_nb(comm, right, left, tag, dt, count, key, step, what);
            } else if (g_rank % 2 == 0) {
                send_msg(comm, right, tag, dt, count, g_rank, key, what);
                recv_check(comm, left, tag, dt, count, count, left, key, what);
            } else {
                recv_check(comm, left, tag, dt, count, count, left, key, what);
                send_msg(comm, right, tag, dt, count, g_rank, key, what);
            }
        }
    }
}

/* ---- small-message cases ------------------------------------------------- */
static void out_of_order(plx_comm_t comm)
{
    /* rank 0 -> rank 1: tags 1, 2, 3 (sizes 100 B, 1 KiB, 0), received 3, 2, 1 */
    static const size_t counts[4] = {0, 100, 256, 0};   /* index = tag; int32 */
    if (g_rank == 0) {
        for (int tag = 1; tag <= 3; tag++)
            send_msg(comm, 1, tag, PLX_INT32, counts[tag], 0, 500 + (uint64_t)tag, "out-of-order send");
    } else if (g_rank == 1) {
        for (int tag = 3; tag >= 1; tag--) {
            char what[64];
            snprintf(what, sizeof what, "out-of-order recv tag %d", tag);
            recv_check(comm, 0, tag, PLX_INT32, 256, counts[tag], 0, 500 + (uint64_t)tag, what);
        }
    }
    /* rank 1 -> rank 0: three messages with tag 9 arrive in send order */
    static const size_t c9[3] = {8, 1000, 4};   /* uint8 */
    if (g_rank == 1) {
        for (int i = 0; i < 3; i++)
            send_msg(comm, 0, 9, PLX_UINT8, c9[i], 1, 900 + (uint64_t)i, "same-tag send");
    } else if (g_rank == 0) {
        for (int i = 0; i < 3; i++) {
            char what[64];
            snprintf(what, sizeof what, "same-tag recv #%d (in order)", i);
            recv_check(comm, 1, 9, PLX_UINT8, 1024, c9[i], 1, 900 + (uint64_t)i, what);
        }
    }
    /* ranks 1 and 2 send tag 11 to rank 0, which receives from 2 first */
    if (g_size >= 3) {
        if (g_rank == 1 || g_rank == 2)
            send_msg(comm, 0, 11, PLX_FLOAT32, 50 + (size_t)g_rank, g_rank, 1100, "two-peers send");
        else if (g_rank == 0) {
            recv_check(comm, 2, 11, PLX_FLOAT32, 64, 52, 2, 1100, "two-peers recv from 2");
            recv_check(comm, 1, 11, PLX_FLOAT32, 64, 51, 1, 1100, "two-peers recv from 1");
        }
    }
    /* tags 0 and PLX_TAG_MAX */
    if (g_rank == 0) {
        send_msg(comm, 1, PLX_TAG_MAX, PLX_INT64, 3, 0, 1200, "tag-max send");
        send_msg(comm, 1, 0, PLX_INT64, 5, 0, 1201, "tag-0 send");
    } else if (g_rank == 1) {
        recv_check(comm, 0, 0, PLX_INT64, 5, 5, 0, 1201, "tag-0 recv");
        recv_check(comm, 0, PLX_TAG_MAX, PLX_INT64, 3, 3, 0, 1200, "tag-max recv");
    }
}

/* --nb only: large messages with tags 1, 2, 3 all in flight from rank 0,
 * received by rank 1 one at a time in the order 3, 2, 1.  With blocking
 * sends this deadlocks (rank 0 waits in tag 1's send, rank 1 in tag 3's
 * receive); with nonblocking sends it must work at every size. */
static void out_of_order_large_nb(plx_comm_t comm)
{
    static const size_t counts[4] = {0, 1u << 20, 256, 1u << 18};   /* index = tag; int32 */
    if (g_rank == 0) {
        unsigned char *bufs[3];
        plx_request_t rq[3];
        for (int tag = 1; tag <= 3; tag++) {
            size_t bytes = counts[tag] * 4;
            bufs[tag - 1] = xalloc(bytes);
            fill_msg(bufs[tag - 1], bytes, 0, 7000 + (uint64_t)tag);
            rq[tag - 1] = REQ_MARK;
            if (!expect(plx_isend(bufs[tag - 1], counts[tag], PLX_INT32, 1, 70 + tag, comm, &rq[tag - 1]),
                        PLX_SUCCESS, "large out-of-order isend")) {
                printf("p2p_check: rank %d: giving up after a failed post\n", g_rank);
                exit(1);
            }
        }
        plx_status_t sts[3];
        expect(plx_waitall(3, rq, sts), PLX_SUCCESS, "large out-of-order isend waitall");
        for (int k = 0; k < 3; k++) {
            expect(sts[k], PLX_SUCCESS, "large out-of-order isend status");
            free(bufs[k]);
        }
    } else if (g_rank == 1) {
        for (int tag = 3; tag >= 1; tag--) {
            char what[64];
            snprintf(what, sizeof what, "large out-of-order irecv tag %d", 70 + tag);
            recv_check(comm, 0, 70 + tag, PLX_INT32, counts[tag], counts[tag], 0, 7000 + (uint64_t)tag, what);
        }
    }
}

/* A small message sent before a collective and received after it: p2p and
 * collective traffic must not be confused.  Then an eager (small) and a
 * large message with the same tag: they arrive in send order although they
 * travel different paths. */
static void mixed_traffic(plx_comm_t comm)
{
    if (g_rank == 0)
        send_msg(comm, 1, 60, PLX_INT32, 16, 0, 6000, "p2p before allreduce send");
    int32_t in = g_rank + 1, out = 0;
    expect(plx_allreduce(&in, &out, 1, PLX_INT32, PLX_SUM, comm), PLX_SUCCESS, "allreduce between p2p");
    g_checks++;
    if (out != g_size * (g_size + 1) / 2)
        fail("allreduce between p2p: got %d, expected %d", out, g_size * (g_size + 1) / 2);
    if (g_rank == 1)
        recv_check(comm, 0, 60, PLX_INT32, 16, 16, 0, 6000, "p2p received after allreduce");

    const size_t big = 1u << 20;     /* int32: 4 MiB, far above any eager size */
    if (g_rank == 0) {
        send_msg(comm, 1, 61, PLX_INT32, 25, 0, 6100, "small then large: small send");
        send_msg(comm, 1, 61, PLX_INT32, big, 0, 6101, "small then large: large send");
    } else if (g_rank == 1) {
        recv_check(comm, 0, 61, PLX_INT32, big, 25, 0, 6100, "small then large: first recv gets the small one");
        recv_check(comm, 0, 61, PLX_INT32, big, big, 0, 6101, "small then large: second recv gets the large one");
    }
}

static void self_send(plx_comm_t comm)
{
    static const size_t counts[3] = {0, 1, 1024};   /* uint8 */
    for (int i = 0; i < 3; i++) {
        char what[64];
        snprintf(what, sizeof what, "self send/recv %zu bytes", counts[i]);
        send_msg(comm, g_rank, 20, PLX_UINT8, counts[i], g_rank, 2000 + (uint64_t)i, what);
        recv_check(comm, g_rank, 20, PLX_UINT8, counts[i], counts[i], g_rank, 2000 + (uint64_t)i, what);
    }
    /* out of order to oneself */
    send_msg(comm, g_rank, 21, PLX_INT32, 10, g_rank, 2100, "self tag 21 send");
    send_msg(comm, g_rank, 22, PLX_INT32, 20, g_rank, 2200, "self tag 22 send");
    recv_check(comm, g_rank, 22, PLX_INT32, 20, 20, g_rank, 2200, "self tag 22 recv");
    recv_check(comm, g_rank, 21, PLX_INT32, 10, 10, g_rank, 2100, "self tag 21 recv");
}

/* Receive a message of msg_count elements into count < msg_count. */
static void recv_trunc(plx_comm_t comm, int peer, int tag, plx_dtype_t dt, size_t count,
                       size_t msg_count, int src_id, uint64_t key, const char *what)
{
    size_t es = plx_dtype_size(dt);
    rbuf_t b;
    unsigned char *p = rb_init(&b, count * es);
    size_t got = (size_t)-1;
    plx_status_t st = x_recv(p, count, dt, peer, tag, comm, &got, what);
    expect(st, PLX_ERR_TRUNCATE, what);
    g_checks++;
    if (got != msg_count && got != count)
        fail("%s: *received = %zu, expected %zu (arrived) or %zu (stored)", what, got, msg_count, count);
    else if (g_rank == 1 || g_size == 1)
        printf("p2p_check: note: %s: *received = %zu on truncation (%s)\n", what, got,
               got == msg_count ? "elements that arrived" : "elements stored");
    if (st == PLX_ERR_TRUNCATE) {
        long off;
        g_checks++;
        if ((off = check_msg(p, count * es, src_id, key)) >= 0)
            fail("%s: first %zu elements wrong at byte %ld", what, count, off);
    }
    rb_check_rest(&b, count * es, what);
    rb_free(&b);
}

static void received_and_truncate(plx_comm_t comm)
{
    if (g_size >= 2) {
        if (g_rank == 0) {
            send_msg(comm, 1, 30, PLX_INT32, 100, 0, 3000, "short message send");
            send_msg(comm, 1, 31, PLX_INT32, 10, 0, 3100, "received=NULL send");
            send_msg(comm, 1, 32, PLX_INT32, 100, 0, 3200, "truncated send (eager)");
            send_msg(comm, 1, 32, PLX_INT32, 10, 0, 3201, "after-truncation send");
            send_msg(comm, 1, 33, PLX_INT32, 1u << 20, 0, 3300, "truncated send (4 MiB)");
            send_msg(comm, 1, 33, PLX_INT32, 7, 0, 3301, "after-large-truncation send");
        } else if (g_rank == 1) {
            recv_check(comm, 0, 30, PLX_INT32, 200, 100, 0, 3000, "recv 100 into 200");
            {
                rbuf_t b;
                unsigned char *p = rb_init(&b, 10 * 4);
                plx_status_t st = x_recv(p, 10, PLX_INT32, 0, 31, comm, NULL, "recv with received=NULL");
                if (expect(st, PLX_SUCCESS, "recv with received=NULL")) {
                    long off;
                    g_checks++;
                    if ((off = check_msg(p, 40, 0, 3100)) >= 0)
                        fail("recv with received=NULL: wrong data at byte %ld", off);
                }
                rb_check_rest(&b, 40, "recv with received=NULL");
                rb_free(&b);
            }
            recv_trunc(comm, 0, 32, PLX_INT32, 50, 100, 0, 3200, "recv 100 into 50");
            recv_check(comm, 0, 32, PLX_INT32, 10, 10, 0, 3201, "next message after truncation");
            recv_trunc(comm, 0, 33, PLX_INT32, 1u << 19, 1u << 20, 0, 3300, "recv 4 MiB into 2 MiB");
            recv_check(comm, 0, 33, PLX_INT32, 7, 7, 0, 3301, "next message after large truncation");
        }
    }
    /* truncation to oneself */
    send_msg(comm, g_rank, 34, PLX_UINT8, 100, g_rank, 3400, "self truncated send");
    recv_trunc(comm, g_rank, 34, PLX_UINT8, 50, 100, g_rank, 3400, "self recv 100 into 50");
}

static void comm_separation(plx_comm_t world)
{
    plx_comm_t dup = NULL;
    if (!expect(plx_comm_dup(world, &dup), PLX_SUCCESS, "comm_dup") || !dup)
        return;
    if (g_size >= 2) {
        if (g_rank == 0) {
            send_msg(dup, 1, 40, PLX_INT32, 16, 0, 4000, "dup tag 40 send");
            send_msg(world, 1, 40, PLX_INT32, 24, 0, 4001, "world tag 40 send");
        } else if (g_rank == 1) {
            recv_check(world, 0, 40, PLX_INT32, 64, 24, 0, 4001, "world tag 40 recv (sent second)");
            recv_check(dup, 0, 40, PLX_INT32, 64, 16, 0, 4000, "dup tag 40 recv (sent first)");
        }
    }
    expect(plx_comm_free(&dup), PLX_SUCCESS, "comm_free");
}

int main(int argc, char **argv)
{
    size_t max_bytes = 64u << 20;
    int self_any = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) max_bytes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--self-any")) self_any = 1;
        else if (!strcmp(argv[i], "--nb")) g_nb = 1;
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc) i++;
        else {
            fprintf(stderr, "usage: p2p_check [--max-bytes N] [--self-any] [--nb] [--tag X]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    plx_context_t ctx = NULL;
    plx_comm_t world = NULL;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "p2p_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    if (plx_comm_world(ctx, &world) != PLX_SUCCESS || plx_comm_rank(world, &g_rank) != PLX_SUCCESS ||
        plx_comm_size(world, &g_size) != PLX_SUCCESS) {
        fprintf(stderr, "p2p_check: cannot query the world communicator\n");
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    ring(world, max_bytes, self_any);
    if (g_size >= 2) {
        out_of_order(world);
        if (g_nb)
            out_of_order_large_nb(world);
        mixed_traffic(world);
    }
    self_send(world);
    received_and_truncate(world);
    comm_separation(world);

    expect(plx_barrier(world), PLX_SUCCESS, "final barrier");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st = plx_finalize(&ctx);
    expect(st, PLX_SUCCESS, "plx_finalize");
    if (g_rank == 0)
        printf("p2p_check: %.2f s%s\n",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
               g_nb ? " (nonblocking)" : "");
    printf("p2p_check: rank %d: %ld checks, %ld failures\n", g_rank, g_checks, g_fails);
    return g_fails ? 1 : 0;
}
