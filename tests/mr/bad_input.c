/*
 * tests/mr/bad_input.c — every bad argument to the public API is refused
 * with PLX_ERR_INVALID_ARG, before any communication, without writing to
 * any buffer or out-pointer; and the library still works afterwards.
 *
 * Why: Plexus promises (README, "Errors you can rely on") that bad input
 * never crashes or aborts and gets a clear status, and plexus.h that
 * "nothing is written to any buffer".  The
 * program is launched by plexusrun on 1 and several ranks.  Every rank makes
 * the same sequence of calls; a bad call must return before communicating,
 * so no rank is left waiting for another.  Where the API makes an argument
 * matter only at some ranks (recvbuf of reduce/gather at non-roots, sendbuf
 * of scatter at non-roots), the call is arranged so that it is invalid at
 * EVERY rank (e.g. NULL recvbuf at the root and NULL sendbuf elsewhere):
 * otherwise a correct library would enter the collective on some ranks only.
 *
 * Covered: NULL sendbuf/recvbuf with count > 0 for every collective and for
 * send/recv (NULL with count 0 is valid and returns PLX_SUCCESS); root < 0
 * and >= size; peer < 0 and >= size; tag < 0; dtype out of range (99, -1,
 * PLX_DTYPE_COUNT); op out of range; bitwise ops on float types; NULL comm;
 * a freed comm handle (a copy kept before plx_comm_free: the library keeps
 * freed comm memory with a dead marker until finalize) including a second
 * free; plx_comm_split with color < 0 other than PLX_UNDEFINED; NULL
 * out-pointers; plx_comm_free on the world comm (which must stay usable);
 * plx_init(NULL); plx_finalize(NULL) and on a NULL / finalized context;
 * plx_strerror of every status and of out-of-range ones (non-NULL,
 * non-empty); plx_dtype_size/name and plx_op_name out of range.
 * Extras beyond the brief, all "clearly invalid" by plexus.h's rules:
 * PLX_IN_PLACE where the API has no in-place form (as a receive buffer, as
 * bcast's buffer, as a p2p buffer, at a non-root of reduce/gather), and a
 * count whose byte size overflows size_t.
 *
 * Nonblocking: every check above is made a second time through the
 * i-forms (plx_ibcast ... plx_irecv, then plx_wait), where a refused call
 * must set *req to NULL; every i-call with req == NULL is refused;
 * plx_test / plx_wait / plx_waitall / plx_waitany / plx_request_free with
 * NULL pointers or a negative count are refused (*done = 0, *index = -1,
 * statuses unwritten), and leave a live request named in them intact; NULL
 * entries (and n == 0) are valid.  Not covered: a stale (already completed)
 * request handle, whose detection plexus.h does not promise.
 *
 * Every buffer passed is filled with sentinel bytes and checked after each
 * call.  After all bad calls a normal allreduce, bcast and barrier must work.
 * Final line `bad_input: rank R: N checks, M failures`; exit 1 on failure.
 * Set PLX_TIMEOUT (default here 30 s) so that a library that wrongly enters
 * a collective on some ranks fails instead of hanging.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plexus.h"

#define BUFBYTES 4096
#define SENT 0x5A
#define CNT 4                  /* element count used in bad calls */

static int g_rank = -1, g_size = 0;
static long g_checks, g_fails;
static int g_iform;            /* 1: the data-moving calls go through their i-forms */
#define IFORM (g_iform ? "[i-form] " : "")
static unsigned char g_sbuf[BUFBYTES] __attribute__((aligned(64)));
static unsigned char g_rbuf[BUFBYTES] __attribute__((aligned(64)));
static unsigned char *S = g_sbuf, *R = g_rbuf;

static void reset_bufs(void)
{
    memset(g_sbuf, SENT, sizeof g_sbuf);
    memset(g_rbuf, SENT, sizeof g_rbuf);
}

static void check_bufs(const char *what, int line)
{
    g_checks++;
    for (size_t i = 0; i < BUFBYTES; i++) {
        if (g_sbuf[i] != SENT || g_rbuf[i] != SENT) {
            g_fails++;
            printf("FAIL bad_input rank %d line %d: %s%s: wrote into %s at byte %zu (0x%02x)\n", g_rank,
                   line, IFORM, what, g_sbuf[i] != SENT ? "sendbuf" : "recvbuf", i,
                   g_sbuf[i] != SENT ? g_sbuf[i] : g_rbuf[i]);
            break;
        }
    }
}

static void check_status(plx_status_t st, plx_status_t want, const char *what, int line)
{
    g_checks++;
    if (st != want) {
        g_fails++;
        printf("FAIL bad_input rank %d line %d: %s%s: returned %d (%s), expected %d (%s)\n", g_rank, line,
               IFORM, what, (int)st, plx_strerror(st), (int)want, plx_strerror(want));
    }
}

/* Run one call with sentinel buffers: status and untouched buffers. */
#define BAD(call, what)                                   \
    do {                                                  \
        reset_bufs();                                     \
        plx_status_t st_ = (call);                        \
        check_status(st_, PLX_ERR_INVALID_ARG, what, __LINE__); \
        check_bufs(what, __LINE__);                       \
    } while (0)

#define EXPECT(call, want, what)                          \
    do {                                                  \
        plx_status_t st_ = (call);                        \
        check_status(st_, want, what, __LINE__);          \
    } while (0)

static void check_true(int cond, const char *what, int line)
{
    g_checks++;
    if (!cond) {
        g_fails++;
        printf("FAIL bad_input rank %d line %d: %s%s\n", g_rank, line, IFORM, what);
    }
}
#define TRUE(cond, what) check_true((cond), (what), __LINE__)

/* ---- blocking or i-form ---------------------------------------------------
 * The y_* calls are the blocking calls, or with g_iform the i-form followed
 * by plx_wait.  An i-form that refuses its arguments must set *req to NULL
 * (it was REQ_MARK: no garbage handle is left behind); one that starts must hand back a request (then waited, so
 * a wrongly accepted call is still bounded by PLX_TIMEOUT).  The status
 * returned is the refusal's or the operation's. */
#define REQ_MARK ((plx_request_t)(uintptr_t)0x5eed)

static plx_status_t iform_end(plx_status_t st, plx_request_t *rq)
{
    g_checks++;
    if (st != PLX_SUCCESS) {
        if (*rq != NULL) {
            g_fails++;
            printf("FAIL bad_input rank %d: [i-form] a refused i-call (%s) did not set *req to NULL\n", g_rank,
                   plx_strerror(st));
        }
        return st;
    }
    if (*rq == REQ_MARK) {
        g_fails++;
        printf("FAIL bad_input rank %d: [i-form] a started i-call left *req unset\n", g_rank);
        return PLX_ERR_INTERNAL;
    }
    return plx_wait(rq);
}

#define Y_CALL(icall, bcall)                        \
    do {                                            \
        if (!g_iform) return bcall;                 \
        plx_request_t rq = REQ_MARK;                \
        return iform_end(icall, &rq);               \
    } while (0)

static plx_status_t y_barrier(plx_comm_t c)
{
    Y_CALL(plx_ibarrier(c, &rq), plx_barrier(c));
}
static plx_status_t y_bcast(void *b, size_t n, plx_dtype_t dt, int root, plx_comm_t c)
{
    Y_CALL(plx_ibcast(b, n, dt, root, c, &rq), plx_bcast(b, n, dt, root, c));
}
static plx_status_t y_reduce(const void *s, void *r, size_t n, plx_dtype_t dt, plx_op_t op, int root, plx_comm_t c)
{
    Y_CALL(plx_ireduce(s, r, n, dt, op, root, c, &rq), plx_reduce(s, r, n, dt, op, root, c));
}
static plx_status_t y_allreduce(const void *s, void *r, size_t n, plx_dtype_t dt, plx_op_t op, plx_comm_t c)
{
    Y_CALL(plx_iallreduce(s, r, n, dt, op, c, &rq), plx_allreduce(s, r, n, dt, op, c));
}
static plx_status_t y_allgather(const void *s, void *r, size_t n, plx_dtype_t dt, plx_comm_t c)
{
    Y_CALL(plx_iallgather(s, r, n, dt, c, &rq), plx_allgather(s, r, n, dt, c));
}
static plx_status_t y_reduce_scatter(const void *s, void *r, size_t n, plx_dtype_t dt, plx_op_t op, plx_comm_t c)
{
    Y_CALL(plx_ireduce_scatter(s, r, n, dt, op, c, &rq), plx_reduce_scatter(s, r, n, dt, op, c));
}
static plx_status_t y_alltoall(const void *s, void *r, size_t n, plx_dtype_t dt, plx_comm_t c)
{
    Y_CALL(plx_ialltoall(s, r, n, dt, c, &rq), plx_alltoall(s, r, n, dt, c));
}
static plx_status_t y_gather(const void *s, void *r, size_t n, plx_dtype_t dt, int root, plx_comm_t c)
{
    Y_CALL(plx_igather(s, r, n, dt, root, c, &rq), plx_gather(s, r, n, dt, root, c));
}
static plx_status_t y_scatter(const void *s, void *r, size_t n, plx_dtype_t dt, int root, plx_comm_t c)
{
    Y_CALL(plx_iscatter(s, r, n, dt, root, c, &rq), plx_scatter(s, r, n, dt, root, c));
}
static plx_status_t y_send(const void *b, size_t n, plx_dtype_t dt, int peer, int tag, plx_comm_t c)
{
    Y_CALL(plx_isend(b, n, dt, peer, tag, c, &rq), plx_send(b, n, dt, peer, tag, c));
}
static plx_status_t y_recv(void *b, size_t n, plx_dtype_t dt, int peer, int tag, plx_comm_t c, size_t *got)
{
    Y_CALL(plx_irecv(b, n, dt, peer, tag, c, got, &rq), plx_recv(b, n, dt, peer, tag, c, got));
}

/* The data-moving calls with one argument made bad.  Every rank calls
 * these with the same arguments. */
static void bad_dtype_everywhere(plx_comm_t c, plx_dtype_t dt, const char *tag)
{
    char w[96];
    int peer = (g_rank + 1) % g_size;
#define W(name) (snprintf(w, sizeof w, "%s %s", name, tag), w)
    BAD(y_bcast(R, CNT, dt, 0, c), W("bcast"));
    BAD(y_reduce(S, R, CNT, dt, PLX_SUM, 0, c), W("reduce"));
    BAD(y_allreduce(S, R, CNT, dt, PLX_SUM, c), W("allreduce"));
    BAD(y_allgather(S, R, CNT, dt, c), W("allgather"));
    BAD(y_reduce_scatter(S, R, CNT, dt, PLX_SUM, c), W("reduce_scatter"));
    BAD(y_alltoall(S, R, CNT, dt, c), W("alltoall"));
    BAD(y_gather(S, R, CNT, dt, 0, c), W("gather"));
    BAD(y_scatter(S, R, CNT, dt, 0, c), W("scatter"));
    BAD(y_send(S, CNT, dt, peer, 0, c), W("send"));
    {
        size_t got = 12345;
        BAD(y_recv(R, CNT, dt, peer, 0, c, &got), W("recv"));
        TRUE(got == 0, W("recv did not set *received to 0 on a bad call"));
    }
#undef W
}

static void bad_op_everywhere(plx_comm_t c, plx_dtype_t dt, plx_op_t op, const char *tag)
{
    char w[96];
#define W(name) (snprintf(w, sizeof w, "%s %s", name, tag), w)
    BAD(y_reduce(S, R, CNT, dt, op, 0, c), W("reduce"));
    BAD(y_reduce(PLX_IN_PLACE, R, CNT, dt, op, 0, c), W("reduce in place"));
    BAD(y_allreduce(S, R, CNT, dt, op, c), W("allreduce"));
    BAD(y_allreduce(PLX_IN_PLACE, R, CNT, dt, op, c), W("allreduce in place"));
    BAD(y_reduce_scatter(S, R, CNT, dt, op, c), W("reduce_scatter"));
#undef W
}

/* Every call that takes a communicator, with comm c (NULL or freed). */
static void bad_comm_everywhere(plx_comm_t c, const char *tag)
{
    char w[96];
#define W(name) (snprintf(w, sizeof w, "%s %s", name, tag), w)
    BAD(y_barrier(c), W("barrier"));
    BAD(y_bcast(R, CNT, PLX_INT32, 0, c), W("bcast"));
    BAD(y_reduce(S, R, CNT, PLX_INT32, PLX_SUM, 0, c), W("reduce"));
    BAD(y_allreduce(S, R, CNT, PLX_INT32, PLX_SUM, c), W("allreduce"));
    BAD(y_allgather(S, R, CNT, PLX_INT32, c), W("allgather"));
    BAD(y_reduce_scatter(S, R, CNT, PLX_INT32, PLX_SUM, c), W("reduce_scatter"));
    BAD(y_alltoall(S, R, CNT, PLX_INT32, c), W("alltoall"));
    BAD(y_gather(S, R, CNT, PLX_INT32, 0, c), W("gather"));
    BAD(y_scatter(S, R, CNT, PLX_INT32, 0, c), W("scatter"));
    BAD(y_send(S, CNT, PLX_INT32, 0, 0, c), W("send"));
    BAD(y_recv(R, CNT, PLX_INT32, 0, 0, c, NULL), W("recv"));
    /* count 0 and NULL buffers: still a bad communicator */
    BAD(y_allreduce(NULL, NULL, 0, PLX_INT32, PLX_SUM, c), W("allreduce count 0"));
    {
        int r = -999;
        BAD(plx_comm_rank(c, &r), W("comm_rank"));
        TRUE(r == -1, W("comm_rank did not set its output to -1 on a bad comm"));
        r = -999;
        BAD(plx_comm_size(c, &r), W("comm_size"));
        TRUE(r == 0, W("comm_size did not set its output to 0 on a bad comm"));
    }
    {
        plx_comm_t marker = (plx_comm_t)(uintptr_t)0x1234, nc = marker;
        BAD(plx_comm_split(c, 0, 0, &nc), W("comm_split"));
        TRUE(nc == NULL, W("comm_split did not set *newcomm to NULL on a bad comm"));
        nc = marker;
        BAD(plx_comm_dup(c, &nc), W("comm_dup"));
        TRUE(nc == NULL, W("comm_dup did not set *newcomm to NULL on a bad comm"));
    }
#undef W
}

/* The request calls: every i-call with req == NULL, and plx_test / wait /
 * waitall / waitany / request_free with bad arguments (refused, no output
 * written, a live request named in the refused call left as it was and
 * still completing normally), plus the NULL-entry rules that are valid. */
static void bad_requests(plx_comm_t world)
{
    const int me = g_rank, n = g_size;
    const int peer = (me + 1) % n;

    /* valid arguments except req: refused, nothing started (a started
     * collective would leave the ranks out of step: the checks after this
     * would time out) */
    BAD(plx_ibarrier(world, NULL), "ibarrier req NULL");
    BAD(plx_ibcast(R, CNT, PLX_INT32, 0, world, NULL), "ibcast req NULL");
    BAD(plx_ireduce(S, R, CNT, PLX_INT32, PLX_SUM, 0, world, NULL), "ireduce req NULL");
    BAD(plx_iallreduce(S, R, CNT, PLX_INT32, PLX_SUM, world, NULL), "iallreduce req NULL");
    BAD(plx_iallreduce(NULL, NULL, 0, PLX_INT32, PLX_SUM, world, NULL), "iallreduce count 0 req NULL");
    BAD(plx_iallgather(S, R, CNT, PLX_INT32, world, NULL), "iallgather req NULL");
    BAD(plx_ireduce_scatter(S, R, CNT, PLX_INT32, PLX_SUM, world, NULL), "ireduce_scatter req NULL");
    BAD(plx_ialltoall(S, R, CNT, PLX_INT32, world, NULL), "ialltoall req NULL");
    BAD(plx_igather(S, R, CNT, PLX_INT32, 0, world, NULL), "igather req NULL");
    BAD(plx_iscatter(S, R, CNT, PLX_INT32, 0, world, NULL), "iscatter req NULL");
    BAD(plx_isend(S, CNT, PLX_INT32, peer, 0, world, NULL), "isend req NULL");
    {
        size_t got = 777;
        BAD(plx_irecv(R, CNT, PLX_INT32, peer, 0, world, &got, NULL), "irecv req NULL");
        TRUE(got == 777, "irecv with req NULL wrote *received");
    }

    /* plx_test */
    {
        int done = 42;
        BAD(plx_test(NULL, &done), "test(NULL, &done)");
        TRUE(done == 0, "test(NULL, &done) did not set *done to 0");
        plx_request_t none = NULL;
        done = 42;
        EXPECT(plx_test(&none, &done), PLX_SUCCESS, "test on a NULL request");
        TRUE(done == 1 && none == NULL, "test on a NULL request: done = 1, request stays NULL");
        BAD(plx_test(&none, NULL), "test(&NULL request, NULL done)");
    }
    /* plx_wait, plx_request_free */
    BAD(plx_wait(NULL), "wait(NULL)");
    BAD(plx_request_free(NULL), "request_free(NULL)");
    {
        plx_request_t none = NULL;
        EXPECT(plx_wait(&none), PLX_SUCCESS, "wait on a NULL request");
        EXPECT(plx_request_free(&none), PLX_SUCCESS, "request_free of a NULL request");
        TRUE(none == NULL, "request_free of a NULL request: stays NULL");
    }
    /* waitall / waitany with NULL entries only, or none */
    {
        plx_request_t arr[3] = {NULL, NULL, NULL};
        plx_status_t sts[3] = {(plx_status_t)77, (plx_status_t)77, (plx_status_t)77};
        EXPECT(plx_waitall(3, arr, sts), PLX_SUCCESS, "waitall of NULL entries");
        TRUE(sts[0] == PLX_SUCCESS && sts[1] == PLX_SUCCESS && sts[2] == PLX_SUCCESS,
             "waitall of NULL entries: statuses PLX_SUCCESS");
        EXPECT(plx_waitall(0, NULL, NULL), PLX_SUCCESS, "waitall(0, NULL, NULL)");
        int idx = 77;
        EXPECT(plx_waitany(3, arr, &idx), PLX_SUCCESS, "waitany of NULL entries");
        TRUE(idx == -1, "waitany of NULL entries: index -1");
        idx = 77;
        EXPECT(plx_waitany(0, NULL, &idx), PLX_SUCCESS, "waitany(0, NULL, &idx)");
        TRUE(idx == -1, "waitany(0, NULL, &idx): index -1");
    }
    /* bad arguments next to a live request: refused, the request untouched */
    {
        int32_t x = me + 1, sum = -1;
        plx_request_t arr[2] = {NULL, NULL};
        EXPECT(plx_iallreduce(&x, &sum, 1, PLX_INT32, PLX_SUM, world, &arr[0]), PLX_SUCCESS,
               "iallreduce (a live request for the bad calls below)");
        plx_request_t keep = arr[0];
        plx_status_t sts[2] = {(plx_status_t)77, (plx_status_t)77};
        int idx = 77;
        BAD(plx_test(&arr[0], NULL), "test(&req, NULL)");
        BAD(plx_waitall(-1, arr, sts), "waitall n = -1");
        BAD(plx_waitall(2, NULL, sts), "waitall reqs NULL, n = 2");
        TRUE(sts[0] == 77 && sts[1] == 77, "refused waitall wrote statuses");
        BAD(plx_waitany(-1, arr, &idx), "waitany n = -1");
        BAD(plx_waitany(2, NULL, &idx), "waitany reqs NULL, n = 2");
        TRUE(idx == -1, "refused waitany did not set *index to -1");
        BAD(plx_waitany(2, arr, NULL), "waitany index NULL");
        TRUE(arr[0] == keep && arr[1] == NULL, "a refused call changed the live request");
        EXPECT(plx_waitall(2, arr, sts), PLX_SUCCESS, "waitall of the live request after refused calls");
        TRUE(arr[0] == NULL && sts[0] == PLX_SUCCESS && sts[1] == PLX_SUCCESS,
             "waitall after refused calls: request NULL, statuses PLX_SUCCESS");
        TRUE(sum == n * (n + 1) / 2, "iallreduce after refused calls: correct result");
    }
}

/* Every bad call, made through the blocking calls or (g_iform) the i-forms.
 * Every rank makes the same calls. */
static void bad_calls(plx_context_t ctx, plx_comm_t world)
{
    const int me = g_rank, n = g_size;
    const int peer = (me + 1) % n;

    /* ---- NULL buffers with count > 0 ---- */
    BAD(y_bcast(NULL, CNT, PLX_INT32, 0, world), "bcast buf NULL");
    BAD(y_reduce(NULL, R, CNT, PLX_INT32, PLX_SUM, 0, world), "reduce sendbuf NULL");
    /* recvbuf matters only at the root: NULL there, and a NULL sendbuf elsewhere */
    BAD(y_reduce(me == 0 ? S : NULL, me == 0 ? NULL : R, CNT, PLX_INT32, PLX_SUM, 0, world),
        "reduce recvbuf NULL at root (sendbuf NULL at the others)");
    BAD(y_reduce(me == 0 ? PLX_IN_PLACE : NULL, me == 0 ? NULL : R, CNT, PLX_INT32, PLX_SUM, 0, world),
        "reduce in place, recvbuf NULL at root (sendbuf NULL at the others)");
    BAD(y_allreduce(NULL, R, CNT, PLX_INT32, PLX_SUM, world), "allreduce sendbuf NULL");
    BAD(y_allreduce(S, NULL, CNT, PLX_INT32, PLX_SUM, world), "allreduce recvbuf NULL");
    BAD(y_allreduce(PLX_IN_PLACE, NULL, CNT, PLX_INT32, PLX_SUM, world), "allreduce in place, recvbuf NULL");
    BAD(y_allgather(NULL, R, CNT, PLX_INT32, world), "allgather sendbuf NULL");
    BAD(y_allgather(S, NULL, CNT, PLX_INT32, world), "allgather recvbuf NULL");
    BAD(y_allgather(PLX_IN_PLACE, NULL, CNT, PLX_INT32, world), "allgather in place, recvbuf NULL");
    BAD(y_reduce_scatter(NULL, R, CNT, PLX_INT32, PLX_SUM, world), "reduce_scatter sendbuf NULL");
    BAD(y_reduce_scatter(S, NULL, CNT, PLX_INT32, PLX_SUM, world), "reduce_scatter recvbuf NULL");
    BAD(y_reduce_scatter(PLX_IN_PLACE, NULL, CNT, PLX_INT32, PLX_SUM, world),
        "reduce_scatter in place, recvbuf NULL");
    BAD(y_alltoall(NULL, R, CNT, PLX_INT32, world), "alltoall sendbuf NULL");
    BAD(y_alltoall(S, NULL, CNT, PLX_INT32, world), "alltoall recvbuf NULL");
    BAD(y_alltoall(PLX_IN_PLACE, NULL, CNT, PLX_INT32, world), "alltoall in place, recvbuf NULL");
    BAD(y_gather(NULL, R, CNT, PLX_INT32, 0, world), "gather sendbuf NULL");
    BAD(y_gather(me == 0 ? S : NULL, me == 0 ? NULL : R, CNT, PLX_INT32, 0, world),
        "gather recvbuf NULL at root (sendbuf NULL at the others)");
    BAD(y_gather(me == 0 ? PLX_IN_PLACE : NULL, me == 0 ? NULL : R, CNT, PLX_INT32, 0, world),
        "gather in place, recvbuf NULL at root (sendbuf NULL at the others)");
    BAD(y_scatter(S, NULL, CNT, PLX_INT32, 0, world), "scatter recvbuf NULL");
    BAD(y_scatter(me == 0 ? NULL : S, me == 0 ? R : NULL, CNT, PLX_INT32, 0, world),
        "scatter sendbuf NULL at root (recvbuf NULL at the others)");
    BAD(y_scatter(me == 0 ? NULL : S, me == 0 ? PLX_IN_PLACE : NULL, CNT, PLX_INT32, 0, world),
        "scatter in place, sendbuf NULL at root (recvbuf NULL at the others)");
    BAD(y_send(NULL, CNT, PLX_INT32, peer, 0, world), "send buf NULL");
    BAD(y_recv(NULL, CNT, PLX_INT32, peer, 0, world, NULL), "recv buf NULL");

    /* ---- NULL buffers with count 0: valid, every rank takes part ---- */
    EXPECT(y_bcast(NULL, 0, PLX_INT32, 0, world), PLX_SUCCESS, "bcast NULL count 0");
    EXPECT(y_reduce(NULL, NULL, 0, PLX_INT32, PLX_SUM, 0, world), PLX_SUCCESS, "reduce NULL count 0");
    EXPECT(y_allreduce(NULL, NULL, 0, PLX_INT32, PLX_SUM, world), PLX_SUCCESS, "allreduce NULL count 0");
    EXPECT(y_allgather(NULL, NULL, 0, PLX_INT32, world), PLX_SUCCESS, "allgather NULL count 0");
    EXPECT(y_reduce_scatter(NULL, NULL, 0, PLX_INT32, PLX_SUM, world), PLX_SUCCESS,
           "reduce_scatter NULL count 0");
    EXPECT(y_alltoall(NULL, NULL, 0, PLX_INT32, world), PLX_SUCCESS, "alltoall NULL count 0");
    EXPECT(y_gather(NULL, NULL, 0, PLX_INT32, n - 1, world), PLX_SUCCESS, "gather NULL count 0");
    EXPECT(y_scatter(NULL, NULL, 0, PLX_INT32, n - 1, world), PLX_SUCCESS, "scatter NULL count 0");
    {
        /* to oneself: a zero-length message */
        size_t got = 999;
        EXPECT(y_send(NULL, 0, PLX_INT32, me, 5, world), PLX_SUCCESS, "send NULL count 0 to self");
        EXPECT(y_recv(NULL, 0, PLX_INT32, me, 5, world, &got), PLX_SUCCESS, "recv NULL count 0 from self");
        TRUE(got == 0, "recv NULL count 0: *received == 0");
    }

    /* ---- bad roots ---- */
    {
        const int roots[3] = {-1, n, INT_MAX};
        for (int i = 0; i < 3; i++) {
            char w[96];
            int rt = roots[i];
            snprintf(w, sizeof w, "bcast root %d", rt);
            BAD(y_bcast(R, CNT, PLX_INT32, rt, world), w);
            snprintf(w, sizeof w, "reduce root %d", rt);
            BAD(y_reduce(S, R, CNT, PLX_INT32, PLX_SUM, rt, world), w);
            snprintf(w, sizeof w, "reduce in place root %d", rt);
            BAD(y_reduce(PLX_IN_PLACE, R, CNT, PLX_INT32, PLX_SUM, rt, world), w);
            snprintf(w, sizeof w, "gather root %d", rt);
            BAD(y_gather(S, R, CNT, PLX_INT32, rt, world), w);
            snprintf(w, sizeof w, "scatter root %d", rt);
            BAD(y_scatter(S, R, CNT, PLX_INT32, rt, world), w);
            snprintf(w, sizeof w, "bcast root %d count 0", rt);
            BAD(y_bcast(NULL, 0, PLX_INT32, rt, world), w);
        }
    }

    /* ---- bad peers and tags ---- */
    {
        const int peers[3] = {-1, n, INT_MAX};
        for (int i = 0; i < 3; i++) {
            char w[64];
            size_t got = 4242;
            snprintf(w, sizeof w, "send peer %d", peers[i]);
            BAD(y_send(S, CNT, PLX_INT32, peers[i], 0, world), w);
            snprintf(w, sizeof w, "recv peer %d", peers[i]);
            BAD(y_recv(R, CNT, PLX_INT32, peers[i], 0, world, &got), w);
            TRUE(got == 0, "recv with a bad peer did not set *received to 0");
        }
        const int tags[2] = {-1, INT_MIN};
        for (int i = 0; i < 2; i++) {
            char w[64];
            snprintf(w, sizeof w, "send tag %d", tags[i]);
            BAD(y_send(S, CNT, PLX_INT32, peer, tags[i], world), w);
            snprintf(w, sizeof w, "recv tag %d", tags[i]);
            BAD(y_recv(R, CNT, PLX_INT32, peer, tags[i], world, NULL), w);
            snprintf(w, sizeof w, "send to self tag %d", tags[i]);
            BAD(y_send(S, CNT, PLX_INT32, me, tags[i], world), w);
        }
    }

    /* ---- bad datatypes and ops ---- */
    bad_dtype_everywhere(world, (plx_dtype_t)99, "dtype 99");
    bad_dtype_everywhere(world, (plx_dtype_t)-1, "dtype -1");
    bad_dtype_everywhere(world, PLX_DTYPE_COUNT, "dtype PLX_DTYPE_COUNT");
    bad_op_everywhere(world, PLX_INT32, (plx_op_t)99, "op 99");
    bad_op_everywhere(world, PLX_INT32, (plx_op_t)-1, "op -1");
    bad_op_everywhere(world, PLX_FLOAT32, PLX_OP_COUNT, "op PLX_OP_COUNT");
    {
        const plx_dtype_t fl[4] = {PLX_FLOAT16, PLX_BFLOAT16, PLX_FLOAT32, PLX_FLOAT64};
        const plx_op_t bw[3] = {PLX_BAND, PLX_BOR, PLX_BXOR};
        for (int d = 0; d < 4; d++)
            for (int o = 0; o < 3; o++) {
                char w[64];
                snprintf(w, sizeof w, "op %s on %s", plx_op_name(bw[o]), plx_dtype_name(fl[d]));
                bad_op_everywhere(world, fl[d], bw[o], w);
            }
    }
    /* a bad dtype is bad even when count is 0 */
    BAD(y_allreduce(NULL, NULL, 0, (plx_dtype_t)99, PLX_SUM, world), "allreduce count 0 dtype 99");
    BAD(y_allreduce(NULL, NULL, 0, PLX_FLOAT32, PLX_BXOR, world), "allreduce count 0 bxor on float32");

    /* ---- NULL comm and a freed comm ---- */
    bad_comm_everywhere(NULL, "NULL comm");
    {
        plx_comm_t dup = NULL;
        EXPECT(plx_comm_dup(world, &dup), PLX_SUCCESS, "comm_dup (for the freed-handle cases)");
        if (dup) {
            plx_comm_t stale = dup;
            EXPECT(plx_comm_free(&dup), PLX_SUCCESS, "comm_free");
            TRUE(dup == NULL, "comm_free sets *comm to NULL");
            bad_comm_everywhere(stale, "freed comm");
            plx_comm_t again = stale;
            BAD(plx_comm_free(&again), "comm_free of a freed comm");
            TRUE(again == stale, "comm_free of a freed comm changed the handle");
        }
    }
    {
        plx_comm_t nullc = NULL;
        BAD(plx_comm_free(&nullc), "comm_free(&NULL)");
        BAD(plx_comm_free(NULL), "comm_free(NULL)");
        plx_comm_t w2 = world;
        BAD(plx_comm_free(&w2), "comm_free of the world comm");
        TRUE(w2 == world, "comm_free of the world comm changed the handle");
    }

    /* ---- comm_split with a bad colour ---- */
    {
        const int colors[4] = {-1, -2, PLX_UNDEFINED - 1, INT_MIN};
        for (int i = 0; i < 4; i++) {
            plx_comm_t marker = (plx_comm_t)(uintptr_t)0x1234, nc = marker;
            char w[64];
            snprintf(w, sizeof w, "comm_split color %d", colors[i]);
            BAD(plx_comm_split(world, colors[i], 0, &nc), w);
            TRUE(nc == NULL, "comm_split with a bad colour did not set *newcomm to NULL");
        }
    }

    /* ---- NULL out-pointers ---- */
    BAD(plx_comm_rank(world, NULL), "comm_rank(world, NULL)");
    BAD(plx_comm_size(world, NULL), "comm_size(world, NULL)");
    BAD(plx_comm_world(ctx, NULL), "comm_world(ctx, NULL)");
    {
        plx_comm_t marker = (plx_comm_t)(uintptr_t)0x1234, c = marker;
        BAD(plx_comm_world(NULL, &c), "comm_world(NULL, &c)");
        TRUE(c == NULL, "comm_world(NULL) did not set *comm to NULL");
    }
    BAD(plx_comm_split(world, 0, 0, NULL), "comm_split newcomm NULL");
    BAD(plx_comm_dup(world, NULL), "comm_dup newcomm NULL");

    /* ---- extras: PLX_IN_PLACE where there is no in-place form ---- */
    BAD(y_bcast(PLX_IN_PLACE, CNT, PLX_INT32, 0, world), "bcast buf PLX_IN_PLACE");
    BAD(y_allreduce(S, PLX_IN_PLACE, CNT, PLX_INT32, PLX_SUM, world), "allreduce recvbuf PLX_IN_PLACE");
    BAD(y_allreduce(PLX_IN_PLACE, PLX_IN_PLACE, CNT, PLX_INT32, PLX_SUM, world),
        "allreduce both PLX_IN_PLACE");
    BAD(y_allgather(S, PLX_IN_PLACE, CNT, PLX_INT32, world), "allgather recvbuf PLX_IN_PLACE");
    BAD(y_reduce_scatter(S, PLX_IN_PLACE, CNT, PLX_INT32, PLX_SUM, world),
        "reduce_scatter recvbuf PLX_IN_PLACE");
    BAD(y_alltoall(S, PLX_IN_PLACE, CNT, PLX_INT32, world), "alltoall recvbuf PLX_IN_PLACE");
    BAD(y_send(PLX_IN_PLACE, CNT, PLX_INT32, peer, 0, world), "send buf PLX_IN_PLACE");
    BAD(y_recv(PLX_IN_PLACE, CNT, PLX_INT32, peer, 0, world, NULL), "recv buf PLX_IN_PLACE");
    if (n > 1) {
        /* in place at a non-root: the root gets another invalid argument */
        BAD(y_reduce(me == 0 ? S : PLX_IN_PLACE, me == 0 ? NULL : R, CNT, PLX_INT32, PLX_SUM, 0, world),
            "reduce sendbuf PLX_IN_PLACE at a non-root (recvbuf NULL at root)");
        BAD(y_gather(me == 0 ? S : PLX_IN_PLACE, me == 0 ? NULL : R, CNT, PLX_INT32, 0, world),
            "gather sendbuf PLX_IN_PLACE at a non-root (recvbuf NULL at root)");
        BAD(y_scatter(me == 0 ? NULL : S, PLX_IN_PLACE, CNT, PLX_INT32, 0, world),
            "scatter recvbuf PLX_IN_PLACE at a non-root (sendbuf NULL at root)");
    }
    /* sendbuf of scatter matters only at the root (recvbuf NULL at the others) */
    BAD(y_scatter(PLX_IN_PLACE, me == 0 ? R : NULL, CNT, PLX_INT32, 0, world),
        "scatter sendbuf PLX_IN_PLACE at root (recvbuf NULL at the others)");
    /* recvbuf of gather matters only at the root (sendbuf NULL at the others) */
    BAD(y_gather(me == 0 ? S : NULL, me == 0 ? PLX_IN_PLACE : R, CNT, PLX_INT32, 0, world),
        "gather recvbuf PLX_IN_PLACE at root (sendbuf NULL at the others)");

    /* ---- extras: byte size overflows size_t (refused: INVALID_ARG, or
     * NO_MEMORY accepted too; never a crash or a write) ---- */
#define REFUSED(call, what)                                                   \
    do {                                                                      \
        reset_bufs();                                                         \
        plx_status_t st_ = (call);                                            \
        check_status(st_ == PLX_ERR_NO_MEMORY ? PLX_ERR_INVALID_ARG : st_,    \
                     PLX_ERR_INVALID_ARG, what, __LINE__);                    \
        check_bufs(what, __LINE__);                                           \
    } while (0)
    {
        size_t huge = SIZE_MAX / 8 + 2;    /* * 8 bytes wraps to a small number */
        REFUSED(y_allreduce(S, R, huge, PLX_INT64, PLX_SUM, world), "allreduce count*8 overflows size_t");
        REFUSED(y_bcast(R, huge, PLX_FLOAT64, 0, world), "bcast count*8 overflows size_t");
        REFUSED(y_send(S, huge, PLX_INT64, peer, 0, world), "send count*8 overflows size_t");
        size_t c2 = SIZE_MAX / 4 / (size_t)n + 1;   /* n*count*4 overflows */
        if (n > 1)
            REFUSED(y_allgather(S, R, c2, PLX_INT32, world), "allgather size*count*4 overflows size_t");
    }

}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("PLX_TIMEOUT", "30", 0);

    /* ---- before and around plx_init ---- */
    EXPECT(plx_init(NULL), PLX_ERR_INVALID_ARG, "plx_init(NULL) before init");
    EXPECT(plx_finalize(NULL), PLX_ERR_INVALID_ARG, "plx_finalize(NULL) before init");
    {
        plx_context_t nullctx = NULL;
        EXPECT(plx_finalize(&nullctx), PLX_ERR_INVALID_ARG, "plx_finalize(&NULL)");
    }

    plx_context_t ctx = NULL;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "bad_input: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_t world = NULL;
    if (plx_comm_world(ctx, &world) != PLX_SUCCESS || plx_comm_rank(world, &g_rank) != PLX_SUCCESS ||
        plx_comm_size(world, &g_size) != PLX_SUCCESS) {
        fprintf(stderr, "bad_input: cannot query the world communicator\n");
        return 1;
    }
    const int me = g_rank, n = g_size;
    EXPECT(plx_init(NULL), PLX_ERR_INVALID_ARG, "plx_init(NULL) after init");
    EXPECT(plx_finalize(NULL), PLX_ERR_INVALID_ARG, "plx_finalize(NULL) after init");

    /* ---- status strings, names ---- */
    for (int s = -1; s <= PLX_STATUS_COUNT + 1; s++) {
        const char *m = plx_strerror((plx_status_t)s);
        char w[64];
        snprintf(w, sizeof w, "plx_strerror(%d) is non-NULL and non-empty", s);
        TRUE(m != NULL && m[0] != '\0', w);
    }
    {
        const char *m = plx_strerror((plx_status_t)1000);
        TRUE(m != NULL && m[0] != '\0', "plx_strerror(1000) is non-NULL and non-empty");
        m = plx_strerror((plx_status_t)INT_MIN);
        TRUE(m != NULL && m[0] != '\0', "plx_strerror(INT_MIN) is non-NULL and non-empty");
    }
    {
        static const size_t sz[PLX_DTYPE_COUNT] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
        for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
            char w[64];
            snprintf(w, sizeof w, "plx_dtype_size(%d) == %zu", d, sz[d]);
            TRUE(plx_dtype_size((plx_dtype_t)d) == sz[d], w);
            const char *nm = plx_dtype_name((plx_dtype_t)d);
            snprintf(w, sizeof w, "plx_dtype_name(%d) is a real name", d);
            TRUE(nm && nm[0] && strcmp(nm, "unknown") != 0, w);
        }
        TRUE(plx_dtype_size((plx_dtype_t)99) == 0, "plx_dtype_size(99) == 0");
        TRUE(plx_dtype_size((plx_dtype_t)-1) == 0, "plx_dtype_size(-1) == 0");
        TRUE(plx_dtype_size(PLX_DTYPE_COUNT) == 0, "plx_dtype_size(PLX_DTYPE_COUNT) == 0");
        const char *nm = plx_dtype_name((plx_dtype_t)99);
        TRUE(nm && strcmp(nm, "unknown") == 0, "plx_dtype_name(99) == \"unknown\"");
        nm = plx_dtype_name((plx_dtype_t)-1);
        TRUE(nm && strcmp(nm, "unknown") == 0, "plx_dtype_name(-1) == \"unknown\"");
        nm = plx_op_name((plx_op_t)99);
        TRUE(nm && strcmp(nm, "unknown") == 0, "plx_op_name(99) == \"unknown\"");
        nm = plx_op_name((plx_op_t)-1);
        TRUE(nm && strcmp(nm, "unknown") == 0, "plx_op_name(-1) == \"unknown\"");
        nm = plx_op_name(PLX_SUM);
        TRUE(nm && strcmp(nm, "sum") == 0, "plx_op_name(PLX_SUM) == \"sum\"");
        nm = plx_dtype_name(PLX_FLOAT32);
        TRUE(nm && strcmp(nm, "float32") == 0, "plx_dtype_name(PLX_FLOAT32) == \"float32\"");
        const char *v = plx_version_string();
        TRUE(v && v[0], "plx_version_string() non-empty");
    }

    bad_calls(ctx, world);
    g_iform = 1;
    bad_calls(ctx, world);
    bad_requests(world);
    g_iform = 0;

    /* ---- the library still works ---- */
    {
        int32_t in[1000], out[1000];
        for (int i = 0; i < 1000; i++) { in[i] = me + i; out[i] = -1; }
        EXPECT(plx_allreduce(in, out, 1000, PLX_INT32, PLX_SUM, world), PLX_SUCCESS, "allreduce after bad calls");
        int ok = 1;
        for (int i = 0; i < 1000; i++)
            if (out[i] != n * i + n * (n - 1) / 2) { ok = 0; break; }
        TRUE(ok, "allreduce after bad calls: correct result");
        int32_t b[7];
        for (int i = 0; i < 7; i++) b[i] = me == n - 1 ? 100 + i : -1;
        EXPECT(plx_bcast(b, 7, PLX_INT32, n - 1, world), PLX_SUCCESS, "bcast after bad calls");
        ok = 1;
        for (int i = 0; i < 7; i++) if (b[i] != 100 + i) ok = 0;
        TRUE(ok, "bcast after bad calls: correct result");
        EXPECT(plx_barrier(world), PLX_SUCCESS, "barrier after bad calls");
        int r = -1;
        EXPECT(plx_comm_rank(world, &r), PLX_SUCCESS, "comm_rank after bad calls");
        TRUE(r == me, "comm_rank after bad calls");
    }

    /* ---- finalize, then a finalized context ---- */
    plx_context_t stale_ctx = ctx;
    EXPECT(plx_finalize(&ctx), PLX_SUCCESS, "plx_finalize");
    TRUE(ctx == NULL, "plx_finalize sets *ctx to NULL");
    EXPECT(plx_finalize(&ctx), PLX_ERR_INVALID_ARG, "plx_finalize again (ctx now NULL)");
    /* plexus.h: "PLX_ERR_INVALID_ARG for a NULL or finalized context" */
    EXPECT(plx_finalize(&stale_ctx), PLX_ERR_INVALID_ARG, "plx_finalize of a finalized context (stale copy)");

    printf("bad_input: rank %d: %ld checks, %ld failures\n", me, g_checks, g_fails);
    return g_fails ? 1 : 0;
}
