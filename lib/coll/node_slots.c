/*
 * lib/coll/node_slots.c — node-local collectives through shared slots.
 *
 * Window of one rank on one communicator (memory from the shm transport,
 * zeroed at start; the communicator id is the channel, so two communicators
 * that share an id have no member in common and use different windows):
 *
 *   offset   0  ctl[0]: seq (8 B) + signature (8 B) + 48 inline payload
 *                  bytes                                        one line
 *   offset 128  ctl[1]: the same for odd sequence numbers       one line
 *   offset 256  done: the last sequence this rank finished reading, and
 *                  the record of its last four calls: their signatures
 *                  (by seq & 3) and whether each returned MISMATCH
 *   offset 384  arrival: the last sequence this rank entered as a bcast
 *                  non-root (it writes no ctl line), and its signature
 *   offset 512  the communicator's call records (lib/coll/call_record.h:
 *                  cross-path mismatch detection; its own 128-byte pair)
 *   offset 640  data[0], data[1]: payloads over 56 bytes (cap each)
 *
 * Protocol of collective number s (b = s & 1, all ranks count s alike):
 *   1. write (ranks that contribute): wait until every member's done >=
 *      s-2 (nobody still reads buffer b), copy the payload into ctl[b]
 *      inline or data[b], store the call's signature in ctl[b].sig, then
 *      ctl[b].seq = s with release order.  A bcast non-root writes only
 *      its arrival (nothing anyone waits on), and waits for nobody here;
 *   2. read: wait until each needed member's ctl[b].seq == s (acquire) and
 *      compare its signature with ours: any difference ends the collective
 *      with PLX_ERR_MISMATCH (nothing is read from that member's data).
 *      A needed member whose arrival says it entered s without writing its
 *      line called something else (it thinks it is a bcast non-root): also
 *      MISMATCH, so two ranks that each wait for the other's line cannot
 *      hang.  Then reduce / copy straight from their windows, every rank
 *      in the same member order so all results are bitwise identical;
 *   3. store the record of s, then done = s (also after a mismatch: the
 *      windows stay in step, so the communicator is still usable).
 * Collectives of one communicator run one after the other here (the write
 * of s waits until s-1 finished on this rank), so done is monotone.  After an
 * allreduce/allgather/barrier s every member has written s, hence
 * finished s-1: the write check of s+1 then needs no remote read at all,
 * so the 2-rank small allreduce moves exactly two cache lines.
 *
 * Who contributes / reads: allreduce, allgather, barrier: all / all;
 * reduce: all / root; bcast: root / the others.  Nobody waits for a line
 * it does not read for the data: the signature check costs no wait.
 *
 * Who sees a disagreement (the rule; plexus.h says it to users):
 *   - in the call itself, every rank compares the signature of each line
 *     it reads: allreduce, allgather, barrier and a reduce root see every
 *     member, a bcast non-root sees the root;
 *   - a bcast root and a reduce non-root read nobody's line.  They check
 *     every member's record of that call later, when they learn without
 *     waiting that the members have finished it: from the done counters
 *     they read anyway for the write of the next call, or because the next
 *     call read every member's line (then at call N+1), at the latest in
 *     the write of call N+2, which waits for done >= N anyway.  A record
 *     that differs is reported there as PLX_ERR_MISMATCH of that later
 *     call (which itself completed normally), naming call N and both
 *     sides, unless some rank already returned MISMATCH from call N (its
 *     record says so).  plx_comm_free, which waits for the done counters,
 *     logs a disagreement in the last calls that nobody reported.
 * This is complete: if the ranks disagree and no rank sees it in the call,
 * every reader of every line agreed with what it read, so every group of
 * ranks that called the same thing holds a bcast root or reduce non-root
 * (a bcast non-root's root called what it called; a reduce root or an
 * all-reading rank would have seen the others), and that rank compares
 * every record.  Records stay valid long enough: a member finishes N+4
 * (overwriting the record of N) only after every done >= N+2, and the
 * checker has checked N before it stores done = N+2 (or returned
 * MISMATCH from N+1 or N+2 itself, and dropped the check).
 */
#include "node_slots.h"
#include "signature.h"
#include "core/reduce.h"
#include "core/copy_stream.h"
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_CTL_STRIDE 128          /* ctl lines two apart: no adjacent-line prefetch sharing */
#define SLOT_DONE_OFF   256
#define SLOT_ARR_OFF    384
#define SLOT_DATA_OFF   640
#define SLOT_INLINE     48
/* A bcast root puts payloads of 64-256 KiB (not 64 KiB itself) into its
 * window with streaming stores: the members' reads of the last call left
 * its lines in their caches, and a plain copy takes each back first, 3-4x
 * slower while the host runs the two vCPUs on different dies (3 ranks,
 * 256 KiB: 110-140 us per call instead of 25-45).  A reduce's or a
 * gather's non-roots stream only while their plain copies run slow
 * (write_for_root): the root then reads every window from memory (1.5-2.0x
 * slower at 128-256 KiB on one die).  Not over 256 KiB, where the lines have
 * left the members' caches anyway and they read from memory (5 ranks,
 * 512 KiB: 1.13x slower;
 * perf/RESULTS.md, issue 11, session s17b). */
#define SLOT_STREAM_MIN (64 * 1024)
#define SLOT_STREAM_MAX (256 * 1024)

enum { SLOTS_WRITE = 0, SLOTS_READ, SLOTS_DONE };

typedef struct slot_ctl {
    uint64_t seq;                    /* accessed with __atomic builtins */
    uint64_t sig;                    /* coll_sig_word of the call; published by seq */
    unsigned char inl[SLOT_INLINE];
} slot_ctl_t;

/* What a rank finished, for the checks made later (one line).  The
 * record of s is written at wseq = s, then published by done = s; a
 * reader that finds wseq >= s+4 after reading lost the record of s. */
typedef struct slot_done {
    uint64_t done;                   /* first: done_of() */
    uint64_t wseq;                   /* the record being written */
    uint64_t bad;                    /* bit s & 3: call s returned PLX_ERR_MISMATCH here */
    uint64_t rec[4];                 /* signature of call s at s & 3 */
} slot_done_t;

/* A bcast non-root entered s (it writes no ctl line); the same wseq rule. */
typedef struct slot_arr {
    uint64_t arrived;
    uint64_t wseq;
    uint64_t sig;
} slot_arr_t;

/* A call whose check waits until the members have finished it. */
typedef struct slot_pending {
    uint64_t seq, sig;
} slot_pending_t;

struct node_slots {
    int n, me;
    unsigned char **win;             /* [n] window of each member */
    size_t cap;                      /* bytes of data[0] / data[1] */
    uint64_t next_seq;               /* the next collective's number */
    uint64_t local_done;             /* last sequence finished here */
    uint64_t known_done;             /* every member is known to have done >= this */
    int broken;                      /* a collective failed: later ones fail at once */
    plx_status_t broken_status;
    uint64_t bad;                    /* this rank's slot_done.bad */
    slot_pending_t pend[2];          /* unchecked calls, oldest first (seq 0: none) */
    size_t *uni;                     /* uniform counts / displacements (plx_slots_uniform_get) */
    size_t uni_count;
    int uni_busy;                    /* calls holding uni */
    plx_stream_rule_t stream;        /* PLX_SLOTS_STREAM: a reduce non-root's write */
};

static inline slot_ctl_t *ctl_of(const unsigned char *w, uint64_t seq)
{
    return (slot_ctl_t *)(w + (seq & 1) * SLOT_CTL_STRIDE);
}
static inline uint64_t *done_of(const unsigned char *w)
{
    return (uint64_t *)(w + SLOT_DONE_OFF);
}
static inline slot_done_t *rec_of(const unsigned char *w)
{
    return (slot_done_t *)(w + SLOT_DONE_OFF);
}
static inline slot_arr_t *arr_of(const unsigned char *w)
{
    return (slot_arr_t *)(w + SLOT_ARR_OFF);
}
/* Where the payload of sequence seq lives in window w. */
static inline unsigned char *data_of(const struct node_slots *ns, unsigned char *w, uint64_t seq,
                                     size_t bytes)
{
    if (bytes <= SLOT_INLINE) return ctl_of(w, seq)->inl;
    return w + SLOT_DATA_OFF + (seq & 1) * ns->cap;
}

static void check_records(struct node_slots *ns, plx_comm_t c, uint64_t upto, slots_op_t *op);

/* ---- setup --------------------------------------------------------------- */
static int setup(plx_comm_t comm)
{
    plx_context_t ctx = comm->ctx;
    if (comm->size < 2 || comm->id >= 16) return -1;   /* 1 rank: the p2p path is a copy anyway */
    struct node_slots *ns = calloc(1, sizeof *ns);
    unsigned char **win = calloc((size_t)comm->size, sizeof *win);
    if (!ns || !win) goto no;
    size_t wbytes = 0;
    for (int r = 0; r < comm->size; r++) {
        int w = comm->world_rank[r];
        const plx_tl_ops_t *ops = ctx->tl[ctx->peer_tl[w]].ops;
        if (!ops->coll_window) goto no;
        size_t b = 0;
        win[r] = ops->coll_window(ctx->tl[ctx->peer_tl[w]].state, (int)comm->id, w, &b);
        if (!win[r] || b <= SLOT_DATA_OFF) goto no;
        if (r == 0 || b < wbytes) wbytes = b;
    }
    ns->n = comm->size;
    ns->me = comm->rank;
    ns->win = win;
    ns->cap = ((wbytes - SLOT_DATA_OFF) / 2) & ~(size_t)63;
    /* A reused id finds its channel holding an earlier comm's numbers: the
     * members agreed on a base above every number they ever wrote
     * (lib/api/comm.c), so no stale seq can pass for a new one. */
    ns->next_seq = comm->slots_seq_base + 1;
    plx_stream_rule_init(&ns->stream, "PLX_SLOTS_STREAM");
    ns->local_done = ns->known_done = comm->slots_seq_base;
    comm->slots = ns;
    return 1;
no:
    free(win);
    free(ns);
    return -1;
}

int plx_slots_can_run(plx_comm_t comm, size_t bytes)
{
    if (!comm) return 1;   /* printing the table: no communicator to judge */
    if (comm->slots_state == 0) comm->slots_state = setup(comm);
    return comm->slots_state > 0 && bytes <= comm->slots->cap;
}

int plx_slots_drain(plx_comm_t comm, double timeout_s)
{
    struct node_slots *ns = comm->slots;
    if (!ns) return 0;
    uint64_t last = ns->next_seq - 1;
    if (ns->broken || ns->local_done != last) return -1;
    /* set up but never run here (e.g. this rank took another path on a
     * cross-path mismatch): nobody reads what it never wrote */
    if (last == comm->slots_seq_base) return 0;
    /* every member stores done = s after its last read of anyone's window */
    plx_backoff_t b;
    plx_backoff_reset(&b);
    double deadline = plx_now() + timeout_s;
    for (int m = 0; m < ns->n; m++) {
        while (m != ns->me && __atomic_load_n(done_of(ns->win[m]), __ATOMIC_ACQUIRE) < last) {
            if (plx_now() > deadline || plx_peer_status(comm->ctx, comm->world_rank[m]) != PLX_SUCCESS)
                return -1;
            plx_backoff_idle(&b);
        }
    }
    /* the last rooted calls' checks, if no later call made them */
    check_records(ns, comm, last, NULL);
    return 0;
}

uint64_t plx_slots_last_seq(plx_comm_t comm)
{
    return comm->slots ? comm->slots->next_seq - 1 : 0;
}

void plx_slots_release(plx_comm_t comm)
{
    if (!comm->slots) return;
    free(comm->slots->uni);
    free(comm->slots->win);
    free(comm->slots);
    comm->slots = NULL;
    comm->slots_state = 0;
}

/* ---- the collective ---------------------------------------------------- */
/* Does this rank put a payload into its window? */
static int contributes(const slots_op_t *op)
{
    return op->a.coll != PLX_COLL_BCAST || op->ns->me == op->a.root;
}

/* Does this rank wait for member m's line (to read its contribution)? */
static int reads_from(const slots_op_t *op, int m)
{
    const struct node_slots *ns = op->ns;
    if (m == ns->me) return 0;
    switch (op->a.coll) {
    case PLX_COLL_REDUCE: return ns->me == op->a.root;
    case PLX_COLL_BCAST:  return ns->me != op->a.root && m == op->a.root;
    default:              return 1;
    }
}

/* Does this rank read every member's line (so sees every signature)? */
static int reads_all(const slots_op_t *op)
{
    return op->a.coll != PLX_COLL_BCAST && (op->a.coll != PLX_COLL_REDUCE || op->ns->me == op->a.root);
}

/* A bcast root or reduce non-root reads nobody: it checks the members'
 * records of the call later (see the header). */
static int checks_later(const slots_op_t *op)
{
    return op->a.coll == PLX_COLL_BCAST ? op->ns->me == op->a.root
                                        : op->a.coll == PLX_COLL_REDUCE && op->ns->me != op->a.root;
}

/* The bytes this rank contributes. */
static const void *payload(const slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    switch (a->coll) {
    case PLX_COLL_BCAST:
        return a->rbuf;
    case PLX_COLL_ALLGATHER:
        return coll_in_place(a->sbuf) ? COLL_CAT(a->rbuf, (size_t)op->ns->me * a->count,
                                                 plx_dtype_size_fast(a->dt))
                                      : a->sbuf;
    default:   /* allreduce, reduce (in place at the root: the input is rbuf) */
        return coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    }
}

plx_status_t plx_slots_start(plx_comm_t comm, const coll_args_t *a, uint64_t sig, slots_op_t *op)
{
    if (coll_is_v(a->coll)) return plx_slots_v_start(comm, a, op, PLX_SLOTS_V_SPILL_BIG);
    switch (a->coll) {
    case PLX_COLL_ALLTOALL: case PLX_COLL_GATHER: case PLX_COLL_SCATTER: case PLX_COLL_REDUCE_SCATTER:
        return plx_slots_u_start(comm, a, sig, op);   /* node_slots_v.c, equal counts */
    default:
        break;
    }
    struct node_slots *ns = comm->slots;
    /* every field this file reads, set one by one: the v-forms' tail of
     * op is theirs alone (plx_slots_v_start zeroes it), so no memset of
     * the whole op on the 8-byte path */
    op->comm = comm;
    op->ns = ns;
    op->a = *a;
    op->called = a->coll;
    op->seq = ns->next_seq++;
    op->bytes = a->count * plx_dtype_size_fast(a->dt);
    op->phase = SLOTS_WRITE;
    op->next = 0;
    op->sig = sig;
    op->late = 0;
    op->status = PLX_SUCCESS;
    op->vmem = NULL;
    op->moved = 0;
    return PLX_SUCCESS;
}

/* ---- records: the checks made after the call ---------------------------- */
/* Member m's signature of call p, by the wseq rule (see slot_done_t); 0
 * if m has not finished p or has overwritten it.  *bad: m returned
 * PLX_ERR_MISMATCH from p. */
static inline uint64_t record_of(const unsigned char *w, uint64_t p, int *bad)
{
    const slot_done_t *d = rec_of(w);
    if (__atomic_load_n(&d->done, __ATOMIC_ACQUIRE) < p) return 0;
    uint64_t sig = __atomic_load_n(&d->rec[p & 3], __ATOMIC_RELAXED);
    uint64_t b = __atomic_load_n(&d->bad, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&d->wseq, __ATOMIC_RELAXED) >= p + 4) return 0;
    *bad = (int)(b >> (p & 3) & 1);
    return sig;
}

/* This rank finished s: its record, then done = s. */
static void store_record(struct node_slots *ns, uint64_t s, uint64_t sig, int bad)
{
    slot_done_t *d = rec_of(ns->win[ns->me]);
    __atomic_store_n(&d->wseq, s, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    ns->bad = (ns->bad & ~(1ull << (s & 3))) | (uint64_t)(bad != 0) << (s & 3);
    __atomic_store_n(&d->rec[s & 3], sig, __ATOMIC_RELAXED);
    __atomic_store_n(&d->bad, ns->bad, __ATOMIC_RELAXED);
    __atomic_store_n(&d->done, s, __ATOMIC_RELEASE);
}

/* A disagreement on call p found after it (op: the call that reports it;
 * NULL: plx_comm_free). */
static void report_late(struct node_slots *ns, plx_comm_t c, slots_op_t *op, const slot_pending_t *p,
                        int m, uint64_t theirs)
{
    char mine[96], other[96];
    coll_sig_describe_word(p->sig, mine, sizeof mine);
    coll_sig_describe_word(theirs, other, sizeof other);
    if (op) {
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (shm_slots): the ranks "
                  "disagreed on the earlier node-local sequence %llu, which this rank (a bcast root or "
                  "reduce non-root) checks after it: rank %d called %s, rank %d (world %d) %s",
                  plx_coll_name(op->called), c->id, c->rank, c->size, (unsigned long long)op->seq,
                  (unsigned long long)p->seq, ns->me, mine, m, c->world_rank[m], other);
        op->late = 1;
    } else {
        plx_error("plx_comm_free of comm %u (rank %d of %d): the ranks disagreed on node-local sequence "
                  "%llu (shm_slots) and no rank returned PLX_ERR_MISMATCH from it: rank %d called %s, "
                  "rank %d (world %d) %s",
                  c->id, c->rank, c->size, (unsigned long long)p->seq, ns->me, mine, m,
                  c->world_rank[m], other);
    }
}

/* Check the pending calls up to `upto`, which every member has finished
 * (the caller knows it): each member's record against this rank's
 * signature, unless some rank already returned MISMATCH from that call. */
static void check_records(struct node_slots *ns, plx_comm_t c, uint64_t upto, slots_op_t *op)
{
    while (ns->pend[0].seq && ns->pend[0].seq <= upto) {
        slot_pending_t p = ns->pend[0];
        ns->pend[0] = ns->pend[1];
        ns->pend[1].seq = 0;
        int seen = 0, other = -1;
        uint64_t theirs = 0;
        for (int m = 0; m < ns->n && !seen; m++) {
            if (m == ns->me) continue;
            int bad = 0;
            uint64_t sig = record_of(ns->win[m], p.seq, &bad);
            if (bad) seen = 1;
            else if (sig && sig != p.sig && other < 0) {
                other = m;
                theirs = sig;
            }
        }
        if (!seen && other >= 0) report_late(ns, c, op, &p, other, theirs);
    }
}

/* A reduce root over 64 KiB reads its own input where it is (not in
 * place): nobody else reads its window, and the copy into it was a pass
 * over the payload for nothing (4 ranks, 256 KiB: 0.86-0.94x the time).
 * An input that overlaps recvbuf, which the reduction writes first, still
 * goes through the window. */
#define SLOT_OWN_INPUT_MIN (64 * 1024)
static int own_input(const slots_op_t *op)
{
    const char *in = op->a.sbuf, *out = op->a.rbuf;
    return op->a.coll == PLX_COLL_REDUCE && op->ns->me == op->a.root && !coll_in_place(op->a.sbuf) &&
           op->bytes > SLOT_OWN_INPUT_MIN && (in + op->bytes <= out || out + op->bytes <= in);
}

/* Member m's contribution to s. */
static const void *input_of(const slots_op_t *op, int m)
{
    if (m == op->ns->me && own_input(op)) return op->a.sbuf;
    return data_of(op->ns, op->ns->win[m], op->seq, op->bytes);
}

/* A non-root's block into its window, which the root reads next (reduce,
 * gather and gatherv; inline here, since every reduce non-root of any size
 * comes through it): the root's reads of the last calls left these lines
 * in its caches, and across dies a plain copy runs 3-4x slower (4 ranks,
 * reduce 256 KiB: 140-260 us per call instead of 45-55); streaming always
 * makes the root read from memory (1.6-2.0x slower on one die), so a block
 * of 64-256 KiB streams only while plain copies run slow (PLX_SLOTS_STREAM;
 * perf/RESULTS.md, issue 11, s18b for reduce, session 20's lead for gather). */
static inline void write_for_root(struct node_slots *ns, plx_coll_t coll, void *dst, const void *src,
                                  size_t n)
{
    /* a gather block of 64 KiB itself too (4 ranks, 256 KiB); a reduce of
     * 64 KiB is a small size, left as it was */
    size_t lo = coll == PLX_COLL_GATHERV ? SLOT_STREAM_MIN : SLOT_STREAM_MIN + 1;
    if (n >= lo && n <= SLOT_STREAM_MAX)
        plx_copy_timed(&ns->stream, dst, src, n);
    else if (n)
        memcpy(dst, src, n);
}

static int write_phase(slots_op_t *op)
{
    struct node_slots *ns = op->ns;
    uint64_t s = op->seq;
    /* one at a time per communicator: writing s only after finishing s-1
     * here means "member m wrote s" proves "m finished s-1" (read_phase) */
    if (ns->local_done != s - 1) return 0;
    if (contributes(op)) {
        /* buffer s&1 held s-2: free once every member finished it */
        if (s > 2 && ns->known_done < s - 2) {
            uint64_t lo = UINT64_MAX;
            for (int m = 0; m < ns->n; m++) {
                uint64_t d = m == ns->me ? ns->local_done
                                         : __atomic_load_n(done_of(ns->win[m]), __ATOMIC_ACQUIRE);
                if (d < lo) lo = d;
            }
            if (lo > ns->known_done) ns->known_done = lo;
            if (lo < s - 2) return 0;
        }
        /* earlier calls every member has finished (their done lines were
         * just read): check their records */
        if (ns->pend[0].seq && ns->pend[0].seq <= ns->known_done)
            check_records(ns, op->comm, ns->known_done, op);
        unsigned char *w = ns->win[ns->me];
        int big = op->bytes > SLOT_STREAM_MIN && op->bytes <= SLOT_STREAM_MAX;
        if (op->a.coll == PLX_COLL_BCAST && big)
            plx_copy_stream(data_of(ns, w, s, op->bytes), payload(op), op->bytes);
        else if (op->a.coll == PLX_COLL_REDUCE && ns->me != op->a.root)
            write_for_root(ns, PLX_COLL_REDUCE, data_of(ns, w, s, op->bytes), payload(op), op->bytes);
        else if (op->bytes && !own_input(op))
            memcpy(data_of(ns, w, s, op->bytes), payload(op), op->bytes);
        ctl_of(w, s)->sig = op->sig;
        __atomic_store_n(&ctl_of(w, s)->seq, s, __ATOMIC_RELEASE);
    } else {
        /* a bcast non-root: no line to protect, so no wait; it only says
         * it is here, for a rank that wrongly expects its line */
        slot_arr_t *ar = arr_of(ns->win[ns->me]);
        __atomic_store_n(&ar->wseq, s, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&ar->sig, op->sig, __ATOMIC_RELAXED);
        __atomic_store_n(&ar->arrived, s, __ATOMIC_RELEASE);
    }
    op->phase = SLOTS_READ;
    return 1;
}

/* For lib/coll/node_slots_v.c's gatherv (see write_for_root). */
void plx_slots_write_for_root(plx_comm_t comm, plx_coll_t coll, void *dst, const void *src, size_t n)
{
    write_for_root(comm->slots, coll, dst, src, n);
}

/* Everything this rank needs has arrived: produce the result. */
static void compute(slots_op_t *op)
{
    struct node_slots *ns = op->ns;
    const coll_args_t *a = &op->a;
    uint64_t s = op->seq;
    switch (a->coll) {
    case PLX_COLL_ALLREDUCE:
    case PLX_COLL_REDUCE: {
        if (a->coll == PLX_COLL_REDUCE && ns->me != a->root) break;
        plx_op_t rop = coll_reduce_op(a->op);
        plx_reduce_local3(a->rbuf, input_of(op, 0), input_of(op, 1), a->count, a->dt, rop);
        for (int m = 2; m < ns->n; m++)
            plx_reduce_local(a->rbuf, input_of(op, m), a->count, a->dt, rop);
        if (a->op == PLX_AVG) plx_avg_finish(a->rbuf, a->count, a->dt, ns->n);
        break;
    }
    case PLX_COLL_ALLGATHER:
        for (int m = 0; m < ns->n; m++) {
            void *dst = COLL_AT(a->rbuf, (size_t)m * a->count, plx_dtype_size_fast(a->dt));
            if (m == ns->me && coll_in_place(a->sbuf)) continue;
            memcpy(dst, data_of(ns, ns->win[m], s, op->bytes), op->bytes);
        }
        break;
    case PLX_COLL_BCAST:
        if (ns->me != a->root && op->bytes)
            memcpy(a->rbuf, data_of(ns, ns->win[a->root], s, op->bytes), op->bytes);
        break;
    default:   /* barrier: arriving was all */
        break;
    }
}

/* Member m called something else than this rank: log both sides. */
static void report_mismatch(slots_op_t *op, int m, uint64_t theirs)
{
    struct node_slots *ns = op->ns;
    plx_comm_t c = op->comm;
    char mine[96], other[96];
    coll_sig_describe_word(op->sig, mine, sizeof mine);
    if (theirs) coll_sig_describe_word(theirs, other, sizeof other);
    else snprintf(other, sizeof other, "a call in which it writes nothing");
    plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (shm_slots): the ranks "
              "disagree: rank %d called %s, rank %d (world %d) %s", plx_coll_name(op->called), c->id,
              c->rank, c->size, (unsigned long long)op->seq, ns->me, mine, m, c->world_rank[m], other);
    op->status = PLX_ERR_MISMATCH;
}

/* Member m's line of s is not there: has m entered s or a later call
 * without writing it (as a bcast non-root, so it called something else)?
 * Then *theirs = its signature of s (0 if no longer known). */
static int entered_without_line(const struct node_slots *ns, int m, uint64_t s, uint64_t *theirs)
{
    const slot_arr_t *ar = arr_of(ns->win[m]);
    uint64_t a = __atomic_load_n(&ar->arrived, __ATOMIC_ACQUIRE);
    if (a < s) return 0;
    /* a line m wrote for s was written before it entered anything later
     * (and stays until this rank finished s) */
    if (__atomic_load_n(&ctl_of(ns->win[m], s)->seq, __ATOMIC_ACQUIRE) == s) return 0;
    *theirs = 0;
    if (a == s) {
        uint64_t v = __atomic_load_n(&ar->sig, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&ar->wseq, __ATOMIC_RELAXED) == s) *theirs = v;
    } else {
        int bad = 0;
        *theirs = record_of(ns->win[m], s, &bad);
    }
    return 1;
}

static int read_phase(slots_op_t *op)
{
    struct node_slots *ns = op->ns;
    uint64_t s = op->seq;
    if (ns->local_done != s - 1) return 0;   /* finish in order */
    for (; op->next < ns->n; op->next++) {
        int m = op->next;
        if (!reads_from(op, m)) continue;
        slot_ctl_t *ctl = ctl_of(ns->win[m], s);
        if (__atomic_load_n(&ctl->seq, __ATOMIC_ACQUIRE) != s) {
            uint64_t theirs;
            if (!entered_without_line(ns, m, s, &theirs)) return 0;
            report_mismatch(op, m, theirs);
            break;
        }
        if (__builtin_expect(ctl->sig != op->sig, 0)) {
            /* finish s all the same (done = s below) so the windows stay in
             * step; nothing of m's payload is read */
            report_mismatch(op, m, ctl->sig);
            break;
        }
    }
    if (op->status == PLX_SUCCESS) compute(op);
    if (__builtin_expect(ns->pend[0].seq != 0, 0)) {
        /* earlier calls left to check: every member wrote s, so finished
         * s-1; or (a bcast non-root) the root wrote s, after every member
         * finished s-2.  Unchecked ones older than s-1 remain only when
         * this call failed: it returns MISMATCH already. */
        uint64_t upto = reads_all(op) ? s - 1 : s - 2;
        /* (a writer's write phase checked what it could: often nothing left) */
        if (op->status == PLX_SUCCESS && ns->pend[0].seq <= upto) check_records(ns, op->comm, upto, op);
        while (ns->pend[0].seq && ns->pend[0].seq + 2 <= s) {
            ns->pend[0] = ns->pend[1];
            ns->pend[1].seq = 0;
        }
    }
    if (op->status == PLX_SUCCESS && checks_later(op)) {
        slot_pending_t *p = &ns->pend[ns->pend[0].seq != 0];
        p->seq = s;
        p->sig = op->sig;
    }
    store_record(ns, s, op->sig, op->status != PLX_SUCCESS || op->late);
    ns->local_done = s;
    /* all wrote s, so all finished s-1 */
    if (op->status == PLX_SUCCESS && op->a.coll != PLX_COLL_BCAST && op->a.coll != PLX_COLL_REDUCE &&
        s - 1 > ns->known_done)
        ns->known_done = s - 1;
    if (op->late && op->status == PLX_SUCCESS) op->status = PLX_ERR_MISMATCH;
    op->phase = SLOTS_DONE;
    return 1;
}

int plx_slots_advance(slots_op_t *op)
{
    if (op->phase == SLOTS_DONE) return 1;
    if (coll_is_v(op->a.coll)) return plx_slots_v_advance(op);   /* node_slots_v.c */
    if (op->ns->broken) {
        op->status = op->ns->broken_status;
        op->phase = SLOTS_DONE;
        return 1;
    }
    if (op->phase == SLOTS_WRITE && !write_phase(op)) return 0;
    return read_phase(op);
}

int plx_slots_abort(slots_op_t *op, plx_status_t st)
{
    if (op->phase == SLOTS_DONE) return 0;
    struct node_slots *ns = op->ns;
    /* a peer still to read our line of this sequence (or one out of step
     * later) must not take it for its own call: it then sees a mismatch */
    if (op->phase == SLOTS_READ)
        __atomic_store_n(&ctl_of(ns->win[ns->me], op->seq)->sig, COLL_SIG_WORD_ABANDONED, __ATOMIC_RELEASE);
    ns->broken = 1;
    ns->broken_status = st;
    op->status = st;
    op->phase = SLOTS_DONE;
    return 1;
}

int plx_slots_check(slots_op_t *op, double elapsed, double limit)
{
    if (op->phase == SLOTS_DONE) return 0;
    if (coll_is_v(op->a.coll)) return plx_slots_v_check(op, elapsed, limit);
    struct node_slots *ns = op->ns;
    plx_comm_t c = op->comm;
    plx_context_t ctx = c->ctx;
    uint64_t s = op->seq;
    coll_rank_list_t waited = { "", 0, 0 };   /* who are we waiting for? */
    plx_status_t st = PLX_SUCCESS;
    for (int m = 0; m < ns->n; m++) {
        if (m == ns->me) continue;
        int missing;
        if (op->phase == SLOTS_WRITE)
            missing = __atomic_load_n(done_of(ns->win[m]), __ATOMIC_ACQUIRE) + 2 < s;
        else
            missing = reads_from(op, m) && ns->local_done == s - 1 &&
                      __atomic_load_n(&ctl_of(ns->win[m], s)->seq, __ATOMIC_ACQUIRE) != s;
        if (!missing) continue;
        int w = c->world_rank[m];
        if (plx_peer_status(ctx, w) != PLX_SUCCESS) st = PLX_ERR_PEER_FAILED;
        coll_rank_list_add(&waited, m, w);
    }
    if (st == PLX_SUCCESS && elapsed < limit) return 0;
    if (st == PLX_SUCCESS) st = PLX_ERR_TIMEOUT;
    const char *name = plx_coll_name(op->called);
    if (st == PLX_ERR_PEER_FAILED)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu: peer failed among "
                  "rank(s) %s", name, c->id, c->rank, c->size, (unsigned long long)s, waited.text);
    else
        plx_error("plx_%s timed out after %g s on comm %u (rank %d of %d), node-local sequence %llu "
                  "(shm_slots, %s): no %s from rank(s) %s", name, limit, c->id, c->rank, c->size,
                  (unsigned long long)s, op->phase == SLOTS_WRITE ? "write permission" : "reading",
                  op->phase == SLOTS_WRITE ? "release" : "contribution",
                  waited.n ? waited.text : "(an earlier collective of this communicator)");
    /* the window protocol of this communicator is out of step from here on */
    ns->broken = 1;
    ns->broken_status = st;
    op->status = st;
    op->phase = SLOTS_DONE;
    return 1;
}


/* ---- the v-forms' access to the windows (node_slots_v.c) ------------------ */
size_t plx_slots_v_cap(const slots_op_t *op) { return op->ns->cap; }

/* One array per communicator, rewritten only when no call holds it (a
 * nonblocking call of another count may still read it). */
const size_t *plx_slots_uniform_get(plx_comm_t comm, size_t count)
{
    struct node_slots *ns = comm->slots;
    size_t p = (size_t)ns->n;
    if (!ns->uni) {
        ns->uni = malloc(2 * p * sizeof *ns->uni);
        if (!ns->uni) return NULL;
        ns->uni_count = SIZE_MAX;
    }
    if (ns->uni_count != count) {
        if (__atomic_load_n(&ns->uni_busy, __ATOMIC_ACQUIRE) != 0) return NULL;
        for (size_t i = 0; i < p; i++) {
            ns->uni[i] = count;
            ns->uni[p + i] = i * count;
        }
        ns->uni_count = count;
    }
    __atomic_add_fetch(&ns->uni_busy, 1, __ATOMIC_ACQ_REL);
    return ns->uni;
}

void plx_slots_uniform_put(plx_comm_t comm)
{
    __atomic_sub_fetch(&comm->slots->uni_busy, 1, __ATOMIC_RELEASE);
}

uint64_t plx_slots_v_take_seq(plx_comm_t comm) { return comm->slots->next_seq++; }

unsigned char *plx_slots_v_line(const slots_op_t *op, int m)
{
    return ctl_of(op->ns->win[m], op->seq)->inl;
}

unsigned char *plx_slots_v_data(const slots_op_t *op, int m)
{
    return data_of(op->ns, op->ns->win[m], op->seq, SLOT_INLINE + 1);
}

int plx_slots_v_may_write(slots_op_t *op)
{
    struct node_slots *ns = op->ns;
    uint64_t s = op->seq;
    if (ns->local_done != s - 1) return 0;
    if (s > 2 && ns->known_done < s - 2) {
        uint64_t lo = UINT64_MAX;
        for (int m = 0; m < ns->n; m++) {
            uint64_t d = m == ns->me ? ns->local_done : __atomic_load_n(done_of(ns->win[m]), __ATOMIC_ACQUIRE);
            if (d < lo) lo = d;
        }
        if (lo > ns->known_done) ns->known_done = lo;
        if (lo < s - 2) return 0;
    }
    return 1;
}

void plx_slots_v_publish(slots_op_t *op)
{
    slot_ctl_t *c = ctl_of(op->ns->win[op->ns->me], op->seq);
    c->sig = op->sig;
    __atomic_store_n(&c->seq, op->seq, __ATOMIC_RELEASE);
}

int plx_slots_v_arrived(slots_op_t *op, int m)
{
    slot_ctl_t *ctl = ctl_of(op->ns->win[m], op->seq);
    if (__atomic_load_n(&ctl->seq, __ATOMIC_ACQUIRE) != op->seq) return 0;
    if (__builtin_expect(ctl->sig != op->sig, 0) && op->status == PLX_SUCCESS) report_mismatch(op, m, ctl->sig);
    return 1;
}

void plx_slots_v_finish_reads(slots_op_t *op, int read_all)
{
    struct node_slots *ns = op->ns;
    uint64_t s = op->seq;
    __atomic_store_n(done_of(ns->win[ns->me]), s, __ATOMIC_RELEASE);
    ns->local_done = s;
    if (read_all && op->status == PLX_SUCCESS && s - 1 > ns->known_done) ns->known_done = s - 1;
}

uint64_t plx_slots_v_done(const slots_op_t *op, int m)
{
    return __atomic_load_n(done_of(op->ns->win[m]), __ATOMIC_ACQUIRE);
}

uint64_t plx_slots_v_local_done(const slots_op_t *op) { return op->ns->local_done; }

int plx_slots_v_broken(const slots_op_t *op, plx_status_t *st)
{
    if (!op->ns->broken) return 0;
    *st = op->ns->broken_status;
    return 1;
}

void plx_slots_v_break(slots_op_t *op, plx_status_t st)
{
    op->ns->broken = 1;
    op->ns->broken_status = st;
}
