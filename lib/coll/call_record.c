/*
 * lib/coll/call_record.c — the slow-path side of cross-path mismatch
 * detection (see call_record.h): setting up the records, comparing the
 * peers' records of a waiting call, publishing details and notices.
 *
 * Records live in the slots window of the communicator's channel (zeroed at
 * start; a reused id numbers its calls above every number its members ever
 * used, lib/api/comm.c), 512..639 (see call_record.h), apart from the slots
 * protocol's own lines:
 *   ring    [8] words: call n -> word n & 7 = (n << 32) | hash30(signature)
 *           << 2 | path (the one store of the fast path; 8 deep, so a peer
 *           that went up to 7 calls ahead still shows this one)
 *   detail  gen (odd while written), call, signature (16 B), path: written
 *           by the slow path only, so a message can name the other side
 *   notice  the last call number on which this rank ended with
 *           PLX_ERR_MISMATCH after a cross-path mismatch: a peer waiting
 *           for it on that call stops too
 * Only a record with another signature AND another path counts: the same
 * signature hashes alike everywhere, and ranks that disagree on one path
 * are left to that path's own check, which ends the call on every rank
 * with the windows still in step (the comm stays usable); ending it from
 * here would put them out of step.  So a verdict never depends on timing:
 * a peer that has not published call n yet, or is 8+ calls ahead, is
 * simply not compared.
 */
#include "call_record.h"

#include <stdio.h>
#include <stdlib.h>

#define WIN_MIN 640                  /* the window must reach past the notice line */

static inline uint64_t *ring_of(unsigned char *w) { return (uint64_t *)(w + CALLREC_RING_OFF); }
static inline uint64_t *detail_of(unsigned char *w) { return (uint64_t *)(w + CALLREC_DETAIL_OFF); }
static inline uint64_t *notice_of(unsigned char *w) { return (uint64_t *)(w + CALLREC_NOTICE_OFF); }

int plx_callrec_setup(plx_comm_t comm)
{
    plx_context_t ctx = comm->ctx;
    if (comm->size < 2 || comm->id >= 16) return -1;
    struct call_record *cr = calloc(1, sizeof *cr);
    unsigned char **win = calloc((size_t)comm->size, sizeof *win);
    if (!cr || !win) goto no;
    for (int r = 0; r < comm->size; r++) {
        int w = comm->world_rank[r];
        const plx_tl_ops_t *ops = ctx->tl[ctx->peer_tl[w]].ops;
        if (!ops->coll_window) goto no;   /* a member on another node: schedules only */
        size_t b = 0;
        win[r] = ops->coll_window(ctx->tl[ctx->peer_tl[w]].state, (int)comm->id, w, &b);
        if (!win[r] || b < WIN_MIN) goto no;
    }
    cr->n = comm->size;
    cr->me = comm->rank;
    cr->win = win;
    cr->next = comm->slots_seq_base + 1;
    comm->callrec = cr;
    return 1;
no:
    free(win);
    free(cr);
    return -1;
}

uint64_t plx_callrec_last(plx_comm_t comm)
{
    return comm->callrec ? comm->callrec->next - 1 : 0;
}

void plx_callrec_release(plx_comm_t comm)
{
    if (comm->callrec) {
        free(comm->callrec->win);
        free(comm->callrec);
    }
    comm->callrec = NULL;
    comm->callrec_state = 0;
}

static const char *path_name(uint64_t p)
{
    return p == CALLREC_SLOTS ? "shm_slots" : p == CALLREC_DIRECT ? "direct"
         : p == CALLREC_SCHED ? "a schedule" : "?";
}

/* Publish what this rank waits in (seqlock: gen odd while writing). */
static void publish_detail(struct call_record *cr, uint64_t call, const coll_sig_t *sig, int path)
{
    uint64_t *d = detail_of(cr->win[cr->me]);
    uint64_t gen = __atomic_load_n(&d[0], __ATOMIC_RELAXED);
    __atomic_store_n(&d[0], gen + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&d[1], call, __ATOMIC_RELAXED);
    __atomic_store_n(&d[2], sig->word[0], __ATOMIC_RELAXED);
    __atomic_store_n(&d[3], sig->word[1], __ATOMIC_RELAXED);
    __atomic_store_n(&d[4], (uint64_t)path, __ATOMIC_RELAXED);
    __atomic_store_n(&d[0], gen + 2, __ATOMIC_RELEASE);
    cr->detail_call = call;
}

/* Member m's details of call number call: 1 and *sig, *path if it
 * published them (and they were not being rewritten). */
static int read_detail(struct call_record *cr, int m, uint64_t call, coll_sig_t *sig, uint64_t *path)
{
    uint64_t *d = detail_of(cr->win[m]);
    uint64_t g0 = __atomic_load_n(&d[0], __ATOMIC_ACQUIRE);
    if (g0 & 1) return 0;
    uint64_t c = __atomic_load_n(&d[1], __ATOMIC_RELAXED);
    sig->word[0] = __atomic_load_n(&d[2], __ATOMIC_RELAXED);
    sig->word[1] = __atomic_load_n(&d[3], __ATOMIC_RELAXED);
    *path = __atomic_load_n(&d[4], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&d[0], __ATOMIC_RELAXED) == g0 && c == call;
}

void plx_callrec_publish_detail(plx_comm_t comm, uint64_t call, const coll_sig_t *sig, int path)
{
    struct call_record *cr = comm->callrec;
    if (cr && call && cr->detail_call != call) publish_detail(cr, call, sig, path);
}

int plx_callrec_peer_detail(plx_comm_t comm, int m, uint64_t call, coll_sig_t *sig)
{
    uint64_t path;
    return comm->callrec && read_detail(comm->callrec, m, call, sig, &path);
}

static void notice(struct call_record *cr, uint64_t call)
{
    cr->poisoned = 1;
    __atomic_store_n(notice_of(cr->win[cr->me]), call, __ATOMIC_RELEASE);
}

void plx_callrec_failed(plx_comm_t comm, uint64_t call)
{
    struct call_record *cr = comm->callrec;
    if (cr && call && cr->poisoned) notice(cr, call);
}

plx_status_t plx_callrec_check(plx_comm_t comm, uint64_t call, const coll_sig_t *sig, int path)
{
    struct call_record *cr = comm->callrec;
    if (!cr || !call || path == CALLREC_OTHER) return PLX_SUCCESS;
    /* let a peer that finds the difference name this side */
    if (cr->detail_call != call) publish_detail(cr, call, sig, path);
    uint64_t tag = call & 0xffffffffu, mine = plx_callrec_hash(sig) & ~3ull;
    char me_s[96], other_s[96];   /* described only for a message: this runs every slow check */
    for (int m = 0; m < cr->n; m++) {
        if (m == cr->me) continue;
        if (__atomic_load_n(notice_of(cr->win[m]), __ATOMIC_ACQUIRE) == call) {
            coll_sig_describe(sig, me_s, sizeof me_s);
            plx_error("plx_%s on comm %u (rank %d of %d), call %llu (%s): rank %d (world %d) found "
                      "that the ranks disagree on this call (see its message); rank %d called %s",
                      plx_coll_name((plx_coll_t)(sig->word[0] & 0xff)), comm->id, comm->rank,
                      comm->size, (unsigned long long)call, path_name((uint64_t)path), m,
                      comm->world_rank[m], comm->rank, me_s);
            cr->poisoned = 1;   /* this rank's path is out of step now too */
            return PLX_ERR_MISMATCH;
        }
    }
    /* the first member whose record differs, preferring one whose details
     * are published (to name it) */
    int bad = -1, known = 0;
    coll_sig_t theirs;
    uint64_t tpath = 0;
    for (int m = 0; m < cr->n && !known; m++) {
        if (m == cr->me) continue;
        uint64_t w = __atomic_load_n(&ring_of(cr->win[m])[call & 7], __ATOMIC_ACQUIRE);
        uint64_t wpath = w & 3;
        /* elsewhere, agreeing, or on this path (whose own check sees it;
         * schedules have none of their own here), or on one that is not
         * compared */
        if (w >> 32 != tag || (w & 0xfffffffcu) == mine ||
            (wpath == (uint64_t)path && path != CALLREC_SCHED) || wpath == CALLREC_OTHER)
            continue;
        if (bad < 0) bad = m;
        if (read_detail(cr, m, call, &theirs, &tpath)) {
            bad = m;
            known = 1;
        }
    }
    if (bad < 0) return PLX_SUCCESS;
    if (!known) {
        /* it publishes its details at its first slow check (a loaded
         * machine may delay that): name it then, or give up waiting */
        if (cr->defer_call != call) {
            cr->defer_call = call;
            cr->defer_checks = 0;
        }
        if (++cr->defer_checks < CALLREC_DEFER_CHECKS) return PLX_SUCCESS;
    }
    coll_sig_describe(sig, me_s, sizeof me_s);
    if (known) coll_sig_describe(&theirs, other_s, sizeof other_s);
    plx_error("plx_%s on comm %u (rank %d of %d), call %llu: the ranks disagree: rank %d called "
              "%s on %s, rank %d (world %d) %s%s%s", plx_coll_name((plx_coll_t)(sig->word[0] & 0xff)),
              comm->id, comm->rank, comm->size, (unsigned long long)call, comm->rank, me_s,
              path_name((uint64_t)path), bad, comm->world_rank[bad],
              known ? other_s : "another call (it did not publish what)",
              known ? " on " : "", known ? path_name(tpath) : "");
    notice(cr, call);
    return PLX_ERR_MISMATCH;
}
