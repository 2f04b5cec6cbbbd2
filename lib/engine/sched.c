/*
 * lib/engine/sched.c — the schedule engine: stores a collective's steps as rounds
 * and runs them over plx_p2p_isend/irecv (the model is described in
 * sched.h).
 *
 * Storage.  Steps live in one array in the order they were added; a round
 * is the index range [end of previous round, round_end[r]).  The first
 * SCHED_INLINE_STEPS steps and SCHED_INLINE_ROUNDS rounds sit inside the
 * schedule object itself, and so does up to SCHED_ARENA bytes of scratch,
 * so a small collective costs one malloc in all; the arrays double
 * (realloc-style) only beyond that, and larger scratch gets one aligned
 * allocation per sched_alloc.  Nothing is allocated per step, and running
 * a schedule makes no system call of its own.
 *
 * Running.  Posting a round posts each SEND/RECV in order.  Completion is
 * checked with a cursor (scan) that only moves forward over the round's
 * steps, so each request's done flag is examined until it is set and never
 * again: the cost per step is O(1) amortised no matter how often
 * sched_advance is called.  When the cursor reaches the end of the round
 * the round's local steps run in the order they were added and the next
 * round is posted at once (within the same call).
 *
 * Errors.  Building records the first failure (allocation) and makes
 * sched_start return it without posting anything.  At run time the first
 * failure (a bad post, a receive of the wrong size, a timeout, a dead peer)
 * cancels every request still outstanding, logs one line naming the
 * collective, communicator, sequence number and round, and ends the
 * schedule with that status.
 *
 * Mismatches.  On a communicator whose members all share this node (it
 * has call records, lib/coll/call_record.h) a signed schedule sends no
 * message of its own: every rank published its record of the call before
 * its first send, and its data messages carry 18 bits of that record's
 * signature hash in their tag (data_tag), so messages of calls that
 * disagree do not match.  The data of every algorithm connects all
 * ranks, so ranks that disagree wait on some message (so do ones whose
 * messages do not match for other reasons: other peers), and the waiting
 * request's slow path (lib/engine/request.c, every ~100 ms) compares every
 * member's full record and names both calls; a receive of the wrong size
 * (the 18 bits agreed) is a mismatch at once.  Until issue 11's session
 * s5m each completed receive read its sender's record instead: a cache
 * miss on the critical path that was most of the cost left at 2 ranks (a
 * small gather 0.17 -> 0.20 us, perf/RESULTS.md).  A rank that receives nothing (a bcast root, a gather
 * leaf) waits for nobody and may return PLX_SUCCESS while its peers see
 * the difference (plexus.h).  This replaced the ring of signature
 * messages below on such communicators (issue 11: at 4 ranks on 2 cores
 * that ring made every rooted call wait for a neighbour to be scheduled,
 * 0.4 -> 8 us for an 8-byte bcast; at 2 ranks it doubled an 8-byte
 * alltoall).
 *
 * Elsewhere, a signed schedule (sched_sign) starts with a 16-byte
 * signature message to rank+1 and a receive of rank-1's (on a
 * communicator spanning several nodes: a ring among the ranks of each
 * node plus a ring among the node leaders, so that only leaders send
 * across nodes, as in lib/coll/hier.c; either way the rings connect every
 * rank, so any disagreement shows on some edge).  Since every
 * algorithm's schedule starts that way, ranks that picked different
 * algorithms (different sizes) still compare signatures first.  A
 * schedule that ends with PLX_ERR_MISMATCH sends a notice (a signature
 * marked COLL_SIG_NOTICE) to every other member under the schedule's tag
 * with the reserved low bit set (NOTICE_TAG), so a notice never takes the
 * place of data.  A signed schedule found stuck by two deadline checks in
 * a row (no step completed for ~100 ms; moving ones never pay) posts one
 * notice receive per member; a notice that arrives ends it with
 * PLX_ERR_MISMATCH too, so a rank waiting for a peer that gave up (a send
 * it will never take, a message it will never send) stops within ~100 ms
 * instead of at PLX_TIMEOUT, and passes the notice on (not while a hook
 * of the round is running: it ends first, see hook_busy).  A receive that
 * fails with PLX_ERR_TRANSPORT (the sender cancelled a large message when
 * it saw the mismatch) waits one more check for such a notice before it
 * counts as a transport error.  Notices outlive their schedule
 * (ctx->notices) and are reaped when the next schedule is made, or at
 * finalize; one that nobody receives (its peer had finished) stays queued
 * in the transport until finalize.  Ranks that took another path for the
 * same call (shared slots, direct) never send a signature: the call
 * records (lib/coll/call_record.c) see that, and end the schedule through
 * sched_abort_mismatch, notices included.
 */
#include "engine/sched.h"
#include "coll/signature.h"
#include "coll/call_record.h"
#include "core/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHED_INLINE_STEPS  16
#define SCHED_INLINE_ROUNDS 16
#define SCHED_ARENA         1024    /* small scratch served from the schedule object itself */
#define SCHED_ALIGN         64      /* scratch alignment: a cache line, enough for any SIMD kernel */

enum { ST_BUILD = 0, ST_RUNNING, ST_DONE };

/* Header of a sched_alloc block; the caller's memory starts SCHED_ALIGN bytes in. */
typedef struct sched_block {
    struct sched_block *next;
    size_t cap;                /* bytes usable after the header */
} sched_block_t;

#define SCHED_CACHE_SLOTS ((int)(sizeof ((struct plx_context *)0)->scratch / sizeof ((struct plx_context *)0)->scratch[0]))

/* Take the smallest cached block of the context that holds bytes. */
static sched_block_t *cache_take(plx_context_t ctx, size_t bytes)
{
    int best = -1;
    for (int i = 0; i < SCHED_CACHE_SLOTS; i++)
        if (ctx->scratch[i].blk && ctx->scratch[i].cap >= bytes &&
            (best < 0 || ctx->scratch[i].cap < ctx->scratch[best].cap))
            best = i;
    if (best < 0) return NULL;
    sched_block_t *b = ctx->scratch[best].blk;
    ctx->scratch[best].blk = NULL;
    ctx->scratch[best].cap = 0;
    return b;
}

/* Keep a block for the next schedule: an empty slot, else replace the
 * smallest cached block if this one is larger; free what is not kept. */
static void cache_put(plx_context_t ctx, sched_block_t *b)
{
    int slot = -1;
    for (int i = 0; i < SCHED_CACHE_SLOTS && slot < 0; i++)
        if (!ctx->scratch[i].blk) slot = i;
    if (slot < 0) {
        int small = 0;
        for (int i = 1; i < SCHED_CACHE_SLOTS; i++)
            if (ctx->scratch[i].cap < ctx->scratch[small].cap) small = i;
        if (ctx->scratch[small].cap >= b->cap) {
            free(b);
            return;
        }
        free(ctx->scratch[small].blk);
        slot = small;
    }
    ctx->scratch[slot].blk = b;
    ctx->scratch[slot].cap = b->cap;
}

void sched_scratch_release(plx_context_t ctx)
{
    free(ctx->spare_sched);
    ctx->spare_sched = NULL;
    for (int i = 0; i < SCHED_CACHE_SLOTS; i++) {
        free(ctx->scratch[i].blk);
        ctx->scratch[i].blk = NULL;
        ctx->scratch[i].cap = 0;
    }
}

struct plx_sched {
    plx_comm_t comm;
    const char *name;          /* "allreduce": for log lines */
    uint32_t seq;              /* collective sequence number (matches across ranks) */
    uint64_t tag;              /* the collective's tag: notices are NOTICE_TAG(tag) */
    uint64_t dtag;             /* the data messages' tag: tag, plus record bits (data_tag) */
    int state;
    int persistent;            /* built once, run again by sched_restart */
    plx_status_t status;       /* first error; SUCCESS otherwise */

    sched_step_t *steps;       /* step_inline or a heap array */
    int nsteps, cap_steps;
    int *round_end;            /* round_inline or a heap array */
    int nrounds, cap_rounds;

    int cur;                   /* round being run */
    int posted;                /* the current round's requests are posted */
    int scan;                  /* first step of the round whose completion is not yet seen */
    int post_end;              /* steps below this index in the round were posted */

    sched_block_t *blocks;     /* sched_alloc memory beyond the arena */
    size_t arena_used;

    int sig_recv;              /* first step receiving a signature; -1: none */
    uint64_t rec_call;         /* signed by the call records: the call's number (else 0) */
    uint64_t rec_word;         /* ... and this rank's record of it */
    int sig_nrecv;             /* how many (1 or 2, see sig_peers) */
    int notified;              /* mismatch notices sent */
    coll_sig_t sig, sig_in[2]; /* ours, and the neighbours' as received */
    struct notice_in *nin;     /* [comm size] notice receives, once posted (else NULL) */
    plx_status_t deferred;     /* a receive's transport error, waiting for a notice */
    int deferred_checks;       /* deadline checks since */
    int seen_cur, seen_scan;   /* where the last deadline check found it (+1; 0: none yet) */

    int round_inline[SCHED_INLINE_ROUNDS];
    sched_step_t step_inline[SCHED_INLINE_STEPS];
    _Alignas(SCHED_ALIGN) unsigned char arena[SCHED_ARENA];
};

/* Signed either way (sched_sign): by messages or by the call records. */
static inline int is_signed(const plx_sched_t *s) { return s->sig_recv >= 0 || s->rec_call != 0; }

/* A message from peer arrived with another size than expected: does its
 * record of the call differ (then the log names both calls)? */
static inline int rec_differs(const plx_sched_t *s, int peer)
{
    return plx_callrec_peer_differs(s->comm->callrec, peer, s->rec_call, s->rec_word);
}

/* The data tag of a schedule signed by the call records: the collective's
 * tag plus 18 bits of this rank's record hash (rec: its ring word, hash in
 * bits 31..2), in tag bits that no collective data message uses otherwise:
 * 63..52 (communicator ids stay below PLX_COMM_ID_LIMIT = 2^12, bits
 * 51..40) and 7..2 (the internal kinds are 1 and 2, bits 1..0).  Ranks
 * that disagree on the call (different hash) post messages that do not
 * match, so the check costs no read of the sender's record line when a
 * message arrives (at 2 ranks that cache miss was most of issue 13's cost
 * on a small gather); see "Mismatches" above. */
static inline uint64_t data_tag(uint64_t tag, uint64_t rec)
{
    uint64_t h = (rec >> 2) & 0x3ffffu;
    return tag | (h & 0xfffu) << 52 | (h >> 12) << 2;
}

/* ---- building --------------------------------------------------------------- */

static void sched_fail(plx_sched_t *s, plx_status_t st)
{
    if (s->status == PLX_SUCCESS) s->status = st;
}

/* ---- mismatch notices -------------------------------------------------------- */
/* Notices travel under the schedule's tag with the reserved low bit set. */
#define NOTICE_TAG(tag) ((tag) | 1u)

/* One posted notice receive (struct plx_sched's nin). */
struct notice_in {
    plx_tl_req_t req;
    coll_sig_t sig;
    int posted;
};

typedef struct sched_notice {
    struct sched_notice *next;
    int world;                 /* the peer, as a world rank */
    coll_sig_t sig;            /* the message: our signature marked as a notice */
    plx_tl_req_t req;
} sched_notice_t;

/* Free the notices that went out (all of them, cancelling, if force). */
static void notices_reap(plx_context_t ctx, int force)
{
    sched_notice_t **pp = &ctx->notices;
    while (*pp) {
        sched_notice_t *n = *pp;
        int done = __atomic_load_n(&n->req.done, __ATOMIC_ACQUIRE);
        if (!done && !force) {
            pp = &n->next;
            continue;
        }
        if (!done) {
            int t = ctx->peer_tl[n->world];
            ctx->tl[t].ops->cancel(ctx->tl[t].state, &n->req);
        }
        *pp = n->next;
        free(n);
    }
}

void sched_notices_release(plx_context_t ctx) { notices_reap(ctx, 1); }

/* A schedule object ready for building; numbered: take the communicator's
 * next sequence number now (persistent schedules take one at each start). */
static plx_sched_t *sched_make(plx_comm_t comm, const char *name, int numbered)
{
    void *mem = comm->ctx->spare_sched;
    if (mem)
        comm->ctx->spare_sched = NULL;
    else if (posix_memalign(&mem, SCHED_ALIGN, sizeof(plx_sched_t)) != 0)   /* aligned for the arena */
        return NULL;
    plx_sched_t *s = mem;
    /* Only the header needs clearing: steps are initialised as they are added. */
    memset(s, 0, offsetof(plx_sched_t, round_inline));
    s->comm = comm;
    s->name = name ? name : "collective";
    if (numbered) {
        s->seq = comm->coll_seq++;
        s->tag = plx_tag_coll(comm, s->seq);
        s->dtag = s->tag;
    }
    s->persistent = !numbered;
    s->state = ST_BUILD;
    s->status = PLX_SUCCESS;
    s->steps = s->step_inline;
    s->cap_steps = SCHED_INLINE_STEPS;
    s->round_end = s->round_inline;
    s->cap_rounds = SCHED_INLINE_ROUNDS;
    s->sig_recv = -1;
    if (__builtin_expect(comm->ctx->notices != NULL, 0)) notices_reap(comm->ctx, 0);
    return s;
}

/* Whom this rank sends its signature to (to[]) and receives one from
 * (from[]); returns how many of each (0-2).  One node: the ring rank-1 ->
 * rank -> rank+1.  Several: the ring of this node's members (in rank
 * order) and, for the node's leader (its lowest rank), the ring of leaders
 * (see "Mismatches" above). */
static int sig_peers(plx_comm_t c, int to[2], int from[2])
{
    int n = c->size, me = c->rank, k = 0;
    plx_context_t ctx = c->ctx;
    if (ctx->nnodes <= 1 || !ctx->node_of) {
        to[0] = (me + 1) % n;
        from[0] = (me + n - 1) % n;
        return 1;
    }
    const int *node = ctx->node_of, *wr = c->world_rank;
    int mine = node[wr[me]], first = -1, last = -1, prev = -1, next = -1;
    for (int r = 0; r < n; r++) {
        if (node[wr[r]] != mine) continue;
        if (first < 0) first = r;
        last = r;
        if (r < me) prev = r;
        if (r > me && next < 0) next = r;
    }
    if (first != last) {
        to[k] = next >= 0 ? next : first;
        from[k] = prev >= 0 ? prev : last;
        k++;
    }
    if (me != first) return k;
    /* leaders: the first rank of each node, in rank order */
    unsigned char *seen = calloc((size_t)ctx->nnodes, 1);
    if (!seen) return k;   /* then only the node ring is checked */
    int lfirst = -1, llast = -1, lprev = -1, lnext = -1, nl = 0;
    for (int r = 0; r < n; r++) {
        int nd = node[wr[r]];
        if (nd < 0 || nd >= ctx->nnodes || seen[nd]) continue;
        seen[nd] = 1;
        nl++;
        if (lfirst < 0) lfirst = r;
        llast = r;
        if (r < me) lprev = r;
        if (r > me && lnext < 0) lnext = r;
    }
    free(seen);
    if (nl > 1) {
        to[k] = lnext >= 0 ? lnext : lfirst;
        from[k] = lprev >= 0 ? lprev : llast;
        k++;
    }
    return k;
}

void sched_sign(plx_sched_t *s, const uint64_t sig[2], uint64_t call)
{
    if (s->comm->size < 2 || s->nsteps != 0) return;   /* alone, or not first: nothing to agree on */
    s->sig.word[0] = sig[0];
    s->sig.word[1] = sig[1];
    if (call && s->comm->callrec) {
        /* node-local: no message; data receipts and the slow path compare
         * the records (see "Mismatches" above) */
        s->rec_call = call;
        s->rec_word = plx_callrec_word(s->comm->callrec, call);
        s->dtag = data_tag(s->tag, s->rec_word);
        plx_callrec_publish_detail(s->comm, call, &s->sig, CALLREC_SCHED);
        return;
    }
    int to[2], from[2];
    int k = sig_peers(s->comm, to, from);
    if (k == 0) return;
    for (int i = 0; i < k; i++) sched_send(s, to[i], &s->sig, sizeof s->sig);
    s->sig_recv = s->nsteps;
    s->sig_nrecv = k;
    for (int i = 0; i < k; i++) sched_recv(s, from[i], &s->sig_in[i], sizeof s->sig_in[i]);
}

plx_sched_t *sched_new(plx_comm_t comm, const char *name) { return sched_make(comm, name, 1); }
plx_sched_t *sched_new_persistent(plx_comm_t comm, const char *name)
{
    return sched_make(comm, name, 0);
}

void *sched_alloc(plx_sched_t *s, size_t bytes)
{
    /* Small collectives (the latency-bound ones) get their scratch without
     * a malloc of their own. */
    if (bytes <= SCHED_ARENA) {
        size_t need = (bytes + SCHED_ALIGN - 1) & ~(size_t)(SCHED_ALIGN - 1);
        if (need <= SCHED_ARENA - s->arena_used) {
            void *a = s->arena + s->arena_used;
            s->arena_used += need;
            return a;
        }
    }
    sched_block_t *b = cache_take(s->comm->ctx, bytes);
    if (!b) {
        void *p = NULL;
        /* round up so a slightly larger next call still reuses the block */
        size_t cap = bytes <= ((size_t)1 << 16) ? bytes : (bytes + 0xffff) & ~(size_t)0xffff;
        if (bytes > SIZE_MAX - 0x10000 - SCHED_ALIGN ||
            posix_memalign(&p, SCHED_ALIGN, SCHED_ALIGN + cap) != 0) {
            sched_fail(s, PLX_ERR_NO_MEMORY);
            return NULL;
        }
        b = p;
        b->cap = cap;
    }
    b->next = s->blocks;
    s->blocks = b;
    return (char *)b + SCHED_ALIGN;
}

/* An inline-or-heap array grown to twice its capacity; NULL if out of
 * memory (the old array is then left as it was). */
static void *grow(void *arr, const void *inline_arr, int *cap, size_t elem, int used)
{
    if ((size_t)*cap > ((size_t)1 << 30) / elem) return NULL;
    int ncap = *cap * 2;
    void *n;
    if (arr == inline_arr) {
        n = malloc((size_t)ncap * elem);
        if (n) memcpy(n, arr, (size_t)used * elem);
    } else {
        n = realloc(arr, (size_t)ncap * elem);
    }
    if (n) *cap = ncap;
    return n;
}

/* A new zeroed step of the given kind in the current round; NULL (recorded)
 * if out of memory or the schedule has already started. */
static sched_step_t *sched_add(plx_sched_t *s, int kind)
{
    if (s->state != ST_BUILD) {
        plx_error("plx_%s: step added to sequence %u after it started (bug)", s->name, s->seq);
        sched_fail(s, PLX_ERR_INTERNAL);
        return NULL;
    }
    if (s->nsteps == s->cap_steps) {
        sched_step_t *n = grow(s->steps, s->step_inline, &s->cap_steps, sizeof *n, s->nsteps);
        if (!n) {
            sched_fail(s, PLX_ERR_NO_MEMORY);
            return NULL;
        }
        s->steps = n;
    }
    sched_step_t *st = &s->steps[s->nsteps++];
    /* Field by field rather than memset: the request part (most of the
     * step) is initialised when the round is posted. */
    st->kind = (uint8_t)kind;
    st->peer = -1;
    st->dst = NULL;
    st->src = st->src2 = NULL;
    st->bytes = st->count = 0;
    st->dt = PLX_UINT8;
    st->op = PLX_SUM;
    st->divisor = 1;
    st->req.done = 0;
    return st;
}

void sched_send(plx_sched_t *s, int peer, const void *buf, size_t bytes)
{
    sched_step_t *st = sched_add(s, SCHED_SEND);
    if (!st) return;
    st->peer = peer;
    st->src = buf;
    st->bytes = bytes;
}

void sched_recv(plx_sched_t *s, int peer, void *buf, size_t bytes)
{
    sched_step_t *st = sched_add(s, SCHED_RECV);
    if (!st) return;
    st->peer = peer;
    st->dst = buf;
    st->bytes = bytes;
}

void sched_copy(plx_sched_t *s, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0 || dst == src) return;     /* nothing to do: keep the step list short */
    sched_step_t *st = sched_add(s, SCHED_COPY);
    if (!st) return;
    st->dst = dst;
    st->src = src;
    st->bytes = bytes;
}

void sched_reduce(plx_sched_t *s, void *inout, const void *in, size_t count, plx_dtype_t dt,
                  plx_op_t op)
{
    if (count == 0) return;
    sched_step_t *st = sched_add(s, SCHED_REDUCE);
    if (!st) return;
    st->dst = inout;
    st->src = in;
    st->count = count;
    st->dt = dt;
    st->op = op;
}

void sched_reduce3(plx_sched_t *s, void *dst, const void *a, const void *b, size_t count,
                   plx_dtype_t dt, plx_op_t op)
{
    if (count == 0) return;
    sched_step_t *st = sched_add(s, SCHED_REDUCE3);
    if (!st) return;
    st->dst = dst;
    st->src = a;
    st->src2 = b;
    st->count = count;
    st->dt = dt;
    st->op = op;
}

void sched_hook(plx_sched_t *s, const sched_hook_ops_t *ops, void *arg)
{
    sched_step_t *st = sched_add(s, SCHED_HOOK);
    if (!st) return;
    st->hook = ops;
    st->dst = arg;
}

void sched_avg(plx_sched_t *s, void *buf, size_t count, plx_dtype_t dt, int divisor)
{
    if (count == 0 || divisor == 1) return;   /* x / 1 == x for every type */
    sched_step_t *st = sched_add(s, SCHED_AVG);
    if (!st) return;
    st->dst = buf;
    st->count = count;
    st->dt = dt;
    st->divisor = divisor;
}

static int round_begin(const plx_sched_t *s, int r)
{
    return r == 0 ? 0 : s->round_end[r - 1];
}

void sched_round(plx_sched_t *s)
{
    if (s->state != ST_BUILD) return;
    int last = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
    if (s->nsteps == last) return;            /* empty round: nothing to close */
    if (s->nrounds == s->cap_rounds) {
        int *n = grow(s->round_end, s->round_inline, &s->cap_rounds, sizeof *n, s->nrounds);
        if (!n) {
            sched_fail(s, PLX_ERR_NO_MEMORY);
            return;
        }
        s->round_end = n;
    }
    s->round_end[s->nrounds++] = s->nsteps;
}


/* ---- running ------------------------------------------------------------------ */

/* Steps that complete later (messages and hooks), as opposed to local ones. */
static int is_comm(const sched_step_t *st) { return st->kind <= SCHED_RECV || st->kind == SCHED_HOOK; }

static int req_done(const sched_step_t *st)
{
    /* acquire: the transport's writes of status, bytes and the data happen before done */
    return __atomic_load_n((const int *)&st->req.done, __ATOMIC_ACQUIRE);
}

static int world_of(const plx_sched_t *s, int peer)
{
    const struct plx_comm *c = s->comm;
    return (c->world_rank && peer >= 0 && peer < c->size) ? c->world_rank[peer] : peer;
}

/* Withdraw every posted request of the current round that has not
 * completed; the hooks learn why (st). */
static void cancel_outstanding(plx_sched_t *s, plx_status_t st_why)
{
    /* hooks of this round and the later ones: none will run any more */
    int from = s->posted ? s->scan : s->cur < s->nrounds ? round_begin(s, s->cur) : s->nsteps;
    for (int i = from; i < s->nsteps; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->kind == SCHED_HOOK && !req_done(st)) {
            st->hook->cancel(st->dst, st_why);
            st->req.done = 1;
        }
    }
    if (!s->posted) return;
    for (int i = s->scan; i < s->post_end; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->kind != SCHED_HOOK && is_comm(st) && !req_done(st))
            plx_p2p_cancel(s->comm, st->peer, &st->req);
    }
    s->posted = 0;
}

/* Tell every other member that this collective failed with a mismatch
 * (see "Mismatches" above); best effort: a notice that cannot be posted is
 * dropped (the peer then ends at its timeout, as without notices). */
static void send_notices(plx_sched_t *s)
{
    plx_comm_t c = s->comm;
    if (s->notified || !is_signed(s)) return;
    s->notified = 1;
    for (int p = 0; p < c->size; p++) {
        if (p == c->rank) continue;
        sched_notice_t *n = malloc(sizeof *n);
        if (!n) return;
        n->world = c->world_rank[p];
        n->sig = s->sig;
        n->sig.word[0] = (n->sig.word[0] & ~((uint64_t)0xff << 24)) | (uint64_t)COLL_SIG_NOTICE << 24;
        if (plx_p2p_isend(c, p, NOTICE_TAG(s->tag), &n->sig, sizeof n->sig, &n->req) != PLX_SUCCESS) {
            free(n);
            continue;
        }
        n->next = c->ctx->notices;
        c->ctx->notices = n;
    }
}

static void where(const plx_sched_t *s, char *buf, size_t len);

/* Post a notice receive from every other member (once). */
static void notices_listen(plx_sched_t *s)
{
    plx_comm_t c = s->comm;
    if (s->nin || !is_signed(s)) return;
    s->nin = calloc((size_t)c->size, sizeof *s->nin);
    if (!s->nin) return;   /* no early warning then: the timeout still bounds the wait */
    for (int p = 0; p < c->size; p++)
        if (p != c->rank)
            s->nin[p].posted = plx_p2p_irecv(c, p, NOTICE_TAG(s->tag), &s->nin[p].sig,
                                             sizeof s->nin[p].sig, &s->nin[p].req) == PLX_SUCCESS;
}

/* The member whose notice arrived (logged), or -1. */
static int notice_arrived(plx_sched_t *s)
{
    if (!s->nin) return -1;
    for (int p = 0; p < s->comm->size; p++) {
        struct notice_in *n = &s->nin[p];
        if (!n->posted || !__atomic_load_n(&n->req.done, __ATOMIC_ACQUIRE)) continue;
        n->posted = 0;
        if (n->req.status != PLX_SUCCESS || n->req.bytes != sizeof n->sig) continue;
        char w[160], mine[96];
        where(s, w, sizeof w);
        plx_error("plx_%s on %s: rank %d (world %d) found that the ranks disagree on this call "
                  "(rank %d called %s)", s->name, w, p, world_of(s, p), s->comm->rank,
                  coll_sig_describe(&s->sig, mine, sizeof mine));
        return p;
    }
    return -1;
}

/* Withdraw the notice receives. */
static void notices_unlisten(plx_sched_t *s)
{
    if (!s->nin) return;
    for (int p = 0; p < s->comm->size; p++)
        if (s->nin[p].posted && !__atomic_load_n(&s->nin[p].req.done, __ATOMIC_ACQUIRE))
            plx_p2p_cancel(s->comm, p, &s->nin[p].req);
    free(s->nin);
    s->nin = NULL;
}

/* End the schedule with an error (the caller has logged it). */
static void sched_abort(plx_sched_t *s, plx_status_t st)
{
    cancel_outstanding(s, st);
    notices_unlisten(s);
    sched_fail(s, st);
    s->state = ST_DONE;
    if (st == PLX_ERR_MISMATCH) send_notices(s);
}

int sched_abort_mismatch(plx_sched_t *s)
{
    if (s->state != ST_RUNNING) return 0;
    sched_abort(s, PLX_ERR_MISMATCH);   /* the caller logged both sides */
    return 1;
}

int sched_signature(const plx_sched_t *s, uint64_t sig[2])
{
    if (!is_signed(s)) return 0;
    sig[0] = s->sig.word[0];
    sig[1] = s->sig.word[1];
    return 1;
}

/* "comm 5 (rank 2 of 4), sequence 17, round 3 of 6" */
static void where(const plx_sched_t *s, char *buf, size_t len)
{
    snprintf(buf, len, "comm %u (rank %d of %d), sequence %u, round %d of %d", s->comm->id,
             s->comm->rank, s->comm->size, s->seq, s->cur + 1, s->nrounds);
}

static void post_round(plx_sched_t *s)
{
    int b = round_begin(s, s->cur), e = s->round_end[s->cur];
    s->scan = b;
    s->post_end = b;
    s->posted = 1;
    for (int i = b; i < e; i++) {
        sched_step_t *st = &s->steps[i];
        if (!is_comm(st)) {
            s->post_end = i + 1;
            continue;
        }
        st->req.done = 0;
        st->req.status = PLX_SUCCESS;
        st->req.bytes = 0;
        if (st->kind == SCHED_HOOK) {
            s->post_end = i + 1;
            if (st->hook->start(st->dst, &st->req.status)) st->req.done = 1;
            continue;
        }
        plx_status_t rc = st->kind == SCHED_SEND
            ? plx_p2p_isend(s->comm, st->peer, s->dtag, st->src, st->bytes, &st->req)
            : plx_p2p_irecv(s->comm, st->peer, s->dtag, st->dst, st->bytes, &st->req);
        if (rc != PLX_SUCCESS) {
            char w[160];
            where(s, w, sizeof w);
            plx_error("plx_%s on %s: posting a %s of %zu bytes %s rank %d (world %d) failed: %s",
                      s->name, w, st->kind == SCHED_SEND ? "send" : "receive", st->bytes,
                      st->kind == SCHED_SEND ? "to" : "from", st->peer, world_of(s, st->peer),
                      plx_strerror(rc));
            sched_abort(s, rc);
            return;
        }
        s->post_end = i + 1;
    }
}

/* The signature from rank-1 arrived whole: PLX_ERR_MISMATCH (logged,
 * naming both calls) unless it equals ours. */
static plx_status_t check_signature(plx_sched_t *s, const sched_step_t *st)
{
    const coll_sig_t *in = &s->sig_in[st - &s->steps[s->sig_recv]];
    if (coll_sig_equal(&s->sig, in)) return PLX_SUCCESS;
    char w[160], mine[96], theirs[96];
    where(s, w, sizeof w);
    coll_sig_describe(&s->sig, mine, sizeof mine);
    plx_error("plx_%s on %s: the ranks disagree: rank %d called %s, rank %d (world %d) %s",
                  s->name, w, s->comm->rank, mine, st->peer, world_of(s, st->peer),
                  coll_sig_describe(in, theirs, sizeof theirs));
    return PLX_ERR_MISMATCH;
}

/* The peer of a receive that arrived published another record of this
 * call: PLX_ERR_MISMATCH, logged naming its call when it published its
 * details (a schedule does at its start), and told to the peers' slow
 * paths (a notice in the records) as well as by message notices. */
static plx_status_t check_record(plx_sched_t *s, const sched_step_t *st)
{
    char w[160], mine[96], theirs[96];
    coll_sig_t in;
    int known = plx_callrec_peer_detail(s->comm, st->peer, s->rec_call, &in);
    where(s, w, sizeof w);
    coll_sig_describe(&s->sig, mine, sizeof mine);
    plx_error("plx_%s on %s: the ranks disagree: rank %d called %s, rank %d (world %d) %s",
              s->name, w, s->comm->rank, mine, st->peer, world_of(s, st->peer),
              known ? coll_sig_describe(&in, theirs, sizeof theirs)
                    : "another call (its record of this call differs)");
    return PLX_ERR_MISMATCH;
}

/* A completed request of the current round: PLX_SUCCESS, or the error it carries. */
static plx_status_t check_step(plx_sched_t *s, const sched_step_t *st)
{
    plx_status_t rc = st->req.status;
    if (st->kind == SCHED_HOOK) return rc;   /* a failed hook logged its own message */
    if (st->kind == SCHED_RECV && (rc == PLX_SUCCESS || rc == PLX_ERR_TRUNCATE) &&
        st->req.bytes != st->bytes) {
        /* Every message size is known to both sides, so the ranks disagree
         * on the call (or the peer's notice of that came instead). */
        if (s->rec_call && rec_differs(s, st->peer)) return check_record(s, st);   /* its record names both calls */
        rc = PLX_ERR_MISMATCH;
        char w[160], mine[96];
        where(s, w, sizeof w);
        plx_error("plx_%s on %s: message from rank %d (world %d) has %zu bytes, expected %zu: "
                  "the ranks disagree on this call (rank %d called %s)",
                  s->name, w, st->peer, world_of(s, st->peer), st->req.bytes, st->bytes,
                  s->comm->rank, is_signed(s) ? coll_sig_describe(&s->sig, mine, sizeof mine)
                                                  : s->name);
    } else if (rc == PLX_SUCCESS && s->sig_recv >= 0 && st >= &s->steps[s->sig_recv] &&
               st < &s->steps[s->sig_recv + s->sig_nrecv]) {
        rc = check_signature(s, st);
    } else if (rc == PLX_ERR_TRANSPORT && st->kind == SCHED_RECV && is_signed(s)) {
        /* maybe a sender that cancelled on a mismatch: advance() waits for
         * its notice before it logs this */
    } else if (rc != PLX_SUCCESS) {
        char w[160];
        where(s, w, sizeof w);
        plx_error("plx_%s on %s: %s %s rank %d (world %d) failed: %s", s->name, w,
                  st->kind == SCHED_SEND ? "send" : "receive", st->kind == SCHED_SEND ? "to" : "from",
                  st->peer, world_of(s, st->peer), plx_strerror(rc));
    }
    return rc;
}

static void run_local(const sched_step_t *st)
{
    switch (st->kind) {
    case SCHED_COPY: {
        const char *src = st->src;
        char *dst = st->dst;
        if (dst + st->bytes <= src || src + st->bytes <= dst)
            memcpy(dst, src, st->bytes);
        else
            memmove(dst, src, st->bytes);
        break;
    }
    case SCHED_REDUCE:
        plx_reduce_local(st->dst, st->src, st->count, st->dt, st->op);
        break;
    case SCHED_REDUCE3:
        plx_reduce_local3(st->dst, st->src, st->src2, st->count, st->dt, st->op);
        break;
    case SCHED_AVG:
        plx_avg_finish(st->dst, st->count, st->dt, st->divisor);
        break;
    default:
        break;
    }
}

/* A hook of the current round has started and not finished.  A notice
 * then waits: a node-local phase (lib/coll/node_direct.c) whose node-mates
 * may be reading this rank's buffers must end by its own protocol (it
 * learns of the failure from them, or its deadline check ends it), not
 * be cancelled half-way. */
static int hook_busy(const plx_sched_t *s)
{
    for (int i = s->scan; s->posted && i < s->post_end; i++)
        if (s->steps[i].kind == SCHED_HOOK && !req_done(&s->steps[i])) return 1;
    return 0;
}

/* Advance without polling transports: see every completion, finish rounds,
 * post the next ones.  1 when the schedule is done.  *moved is set when
 * anything happened (for the caller's backoff). */
static int advance(plx_sched_t *s, int *moved)
{
    while (s->state == ST_RUNNING) {
        if (!s->posted) {
            if (s->cur == s->nrounds) {
                notices_unlisten(s);
                s->state = ST_DONE;
                break;
            }
            post_round(s);
            if (s->state != ST_RUNNING) break;
        }
        int e = s->round_end[s->cur];
        /* hooks move only when driven: every one of the round, not just the
         * first unfinished step (a message behind it may wait for it) */
        for (int i = s->scan; i < s->post_end; i++) {
            sched_step_t *st = &s->steps[i];
            if (st->kind == SCHED_HOOK && !st->req.done &&
                st->hook->advance(st->dst, &st->req.status, moved))
                st->req.done = 1;
        }
        while (s->scan < e) {
            sched_step_t *st = &s->steps[s->scan];
            if (is_comm(st)) {
                if (!req_done(st) || s->deferred) {
                    /* blocked: a peer's mismatch notice ends the wait, but
                     * not a hook's (it ends by its own protocol, see
                     * hook_busy) */
                    if (__builtin_expect(s->nin != NULL, 0) && !hook_busy(s) && notice_arrived(s) >= 0) {
                        sched_abort(s, PLX_ERR_MISMATCH);
                        return 1;
                    }
                    return 0;
                }
                plx_status_t rc = check_step(s, st);
                if (rc == PLX_ERR_TRANSPORT && st->kind == SCHED_RECV && is_signed(s)) {
                    /* see "Mismatches" above: give the notice time to arrive */
                    s->deferred = rc;
                    notices_listen(s);
                    continue;
                }
                if (rc != PLX_SUCCESS) {
                    s->scan++;
                    sched_abort(s, rc);
                    return 1;
                }
                *moved = 1;
            }
            s->scan++;
        }
        /* Every message of the round is in: run its local steps in order. */
        for (int i = round_begin(s, s->cur); i < e; i++)
            if (!is_comm(&s->steps[i])) run_local(&s->steps[i]);
        s->posted = 0;
        s->cur++;
        *moved = 1;
    }
    return 1;
}

plx_status_t sched_start(plx_sched_t *s)
{
    if (s->state != ST_BUILD) {
        plx_error("plx_%s: sequence %u started twice (bug)", s->name, s->seq);
        return PLX_ERR_INTERNAL;
    }
    sched_round(s);                           /* close the last round */
    if (s->status != PLX_SUCCESS) {
        s->state = ST_DONE;
        return s->status;
    }
    s->state = ST_RUNNING;
    s->cur = 0;
    s->posted = 0;
    int moved = 0;
    advance(s, &moved);                        /* post round 0 (and run local-only rounds) */
    return s->state == ST_DONE ? s->status : PLX_SUCCESS;
}

plx_status_t sched_seal(plx_sched_t *s)
{
    if (!s->persistent || s->state != ST_BUILD) {
        plx_error("plx_%s: sealing a schedule that is not a persistent one being built (bug)", s->name);
        return PLX_ERR_INTERNAL;
    }
    sched_round(s);                           /* close the last round */
    s->state = ST_DONE;                       /* finished, as after a run: ready to restart */
    return s->status;
}

plx_status_t sched_restart(plx_sched_t *s)
{
    if (!s->persistent || s->state != ST_DONE) {
        plx_error("plx_%s: restarting a schedule that is not a finished persistent one (bug)", s->name);
        return PLX_ERR_INTERNAL;
    }
    /* a new collective for the matching: the next number, as sched_new takes */
    s->seq = s->comm->coll_seq++;
    s->tag = plx_tag_coll(s->comm, s->seq);
    s->dtag = s->tag;
    s->status = PLX_SUCCESS;
    s->state = ST_RUNNING;
    s->cur = 0;
    s->posted = 0;
    int moved = 0;
    advance(s, &moved);                        /* post round 0, as sched_start */
    return s->state == ST_DONE ? s->status : PLX_SUCCESS;
}

int sched_advance(plx_sched_t *s)
{
    int moved = 0;
    return sched_advance_moved(s, &moved);
}

int sched_advance_moved(plx_sched_t *s, int *moved)
{
    if (s->state != ST_RUNNING) return s->state == ST_DONE;
    return advance(s, moved);
}

plx_status_t sched_status(const plx_sched_t *s) { return s->status; }
plx_comm_t sched_comm(const plx_sched_t *s) { return s->comm; }
uint32_t sched_seq(const plx_sched_t *s) { return s->seq; }

/* Append " 3 (world 3), 5 (world 7)" for each distinct peer of the
 * outstanding steps of this kind; returns how many there were. */
static int list_peers(const plx_sched_t *s, int kind, char *buf, size_t len)
{
    int n = 0;
    size_t used = strlen(buf);
    for (int i = s->scan; i < s->post_end; i++) {
        const sched_step_t *st = &s->steps[i];
        if (st->kind != kind || req_done(st)) continue;
        int dup = 0;
        for (int j = s->scan; j < i && !dup; j++) {
            const sched_step_t *o = &s->steps[j];
            dup = o->kind == kind && !req_done(o) && o->peer == st->peer;
        }
        if (dup) continue;
        if (n < 16 && used < len) {
            int w = snprintf(buf + used, len - used, "%s%d (world %d)", n ? ", " : " ", st->peer,
                             world_of(s, st->peer));
            if (w > 0) used += (size_t)w;
            if (used >= len) used = len - 1;
        } else if (n == 16 && used < len) {
            int w = snprintf(buf + used, len - used, ", ...");
            if (w > 0) used += (size_t)w;
            if (used >= len) used = len - 1;
        }
        n++;
    }
    return n;
}

/* The outstanding peers as "no message from rank(s) 3 (world 3); send to
 * rank 1 (world 1) not taken". */
static void describe_outstanding(const plx_sched_t *s, char *buf, size_t len)
{
    char recvs[512] = "", sends[512] = "";
    int nr = list_peers(s, SCHED_RECV, recvs, sizeof recvs);
    int ns = list_peers(s, SCHED_SEND, sends, sizeof sends);
    buf[0] = '\0';
    if (nr) snprintf(buf, len, "no message from rank(s)%s", recvs);
    if (ns) {
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, "%s%s to rank%s%s not taken", u ? "; " : "",
                 ns > 1 ? "sends" : "send", ns > 1 ? "s" : "", sends);
    }
    if (!nr && !ns) snprintf(buf, len, "no request outstanding");
}

/* PLX_ERR_PEER_FAILED (logged) if a peer we still wait on is known dead. */
static plx_status_t check_peers(plx_sched_t *s)
{
    if (!s->posted) return PLX_SUCCESS;
    for (int i = s->scan; i < s->post_end; i++) {
        const sched_step_t *st = &s->steps[i];
        if (!is_comm(st) || st->kind == SCHED_HOOK || req_done(st)) continue;
        int wr = world_of(s, st->peer);
        if (plx_peer_status(s->comm->ctx, wr) == PLX_ERR_PEER_FAILED) {
            char w[160];
            where(s, w, sizeof w);
            plx_error("plx_%s failed on %s: rank %d (world %d) died", s->name, w, st->peer, wr);
            return PLX_ERR_PEER_FAILED;
        }
    }
    return PLX_SUCCESS;
}

int sched_check(plx_sched_t *s, double elapsed, double limit)
{
    if (s->state != ST_RUNNING) return 0;
    /* no step completed since the last check (~100 ms): listen for
     * mismatch notices.  Only then: a schedule that moves (a large one, or
     * any on a loaded machine) must not add receives to the transport's
     * matching lists */
    if (s->seen_cur == s->cur + 1 && s->seen_scan == s->scan + 1) notices_listen(s);
    s->seen_cur = s->cur + 1;
    s->seen_scan = s->scan + 1;
    if (s->deferred) {
        int moved = 0;
        advance(s, &moved);                   /* a notice that arrived meanwhile wins */
        if (s->state != ST_RUNNING) return 1;
        if (++s->deferred_checks >= 2) {
            const sched_step_t *st = &s->steps[s->scan];
            char w[160];
            where(s, w, sizeof w);
            plx_error("plx_%s on %s: receive from rank %d (world %d) failed: %s", s->name, w,
                      st->peer, world_of(s, st->peer), plx_strerror(s->deferred));
            s->scan++;
            sched_abort(s, s->deferred);
            return 1;
        }
    }
    for (int i = s->scan; s->posted && i < s->post_end; i++) {
        sched_step_t *st = &s->steps[i];
        plx_status_t hs = PLX_SUCCESS;
        if (st->kind == SCHED_HOOK && !req_done(st) && st->hook->check(st->dst, elapsed, limit, &hs)) {
            st->req.status = hs;
            st->req.done = 1;
            sched_abort(s, hs);
            return 1;
        }
    }
    plx_status_t rc = check_peers(s);
    if (rc != PLX_SUCCESS) {
        sched_abort(s, rc);
        return 1;
    }
    if (elapsed < limit) return 0;
    char w[160], who[1100];
    where(s, w, sizeof w);
    describe_outstanding(s, who, sizeof who);
    plx_error("plx_%s timed out after %g s on %s: %s", s->name, limit, w, who);
    sched_abort(s, PLX_ERR_TIMEOUT);
    return 1;
}

void sched_free(plx_sched_t *s)
{
    if (!s) return;
    /* freed before its end: a failed build or start (its status), or the
     * context going away (to the peers this rank is gone) */
    plx_status_t why = s->status != PLX_SUCCESS ? s->status : PLX_ERR_PEER_FAILED;
    if (s->state == ST_RUNNING) cancel_outstanding(s, why);   /* the transport must forget our requests */
    notices_unlisten(s);
    /* hooks of a schedule that never ran to its end (a failed build or start) */
    for (int i = 0; i < s->nsteps; i++)
        if (s->steps[i].kind == SCHED_HOOK && !s->steps[i].req.done) {
            s->steps[i].hook->cancel(s->steps[i].dst, why);
            s->steps[i].req.done = 1;
        }
    sched_block_t *b = s->blocks;
    while (b) {
        sched_block_t *n = b->next;
        cache_put(s->comm->ctx, b);
        b = n;
    }
    if (s->steps != s->step_inline) free(s->steps);
    if (s->round_end != s->round_inline) free(s->round_end);
    plx_context_t ctx = s->comm->ctx;
    if (!ctx->spare_sched)
        ctx->spare_sched = s;
    else
        free(s);
}
