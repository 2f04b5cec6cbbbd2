/*
 * lib/coll/node_slots_v.c — the v-collectives (allgatherv, alltoallv,
 * gatherv, scatterv, reduce_scatterv) among ranks that share one node,
 * through the shared slots of node_slots.c ("shm_slots"), and the same
 * protocol with every payload read straight from its owner's buffer
 * ("direct", started through node_direct_v.c).
 *
 * Each rank that contributes writes, in collective s's slot line, a
 * header (payload bytes, and a flag) and its payload: in the line itself
 * up to 40 bytes, else in its data buffer; the others wait for the line
 * (node_slots.c's sequence and signature rules: same numbers, same
 * double buffering, a differing signature is PLX_ERR_MISMATCH) and copy
 * out their parts.  What the payload is:
 *   allgatherv       the rank's block;
 *   gatherv          a non-root's block (the root writes nothing);
 *   reduce_scatterv  the rank's whole input: each rank reduces its block
 *                    over members 0..p-1 in order (rank-ordered, bitwise
 *                    identical everywhere);
 *   alltoallv        a table of p (offset, length) pairs, then the blocks
 *                    for the other ranks: rank j reads pair j;
 *   scatterv         the same, written by the root only.
 * Why the table and the header: in alltoallv, gatherv and scatterv a
 * reader does not know the writer's counts (only its own), so the writer
 * says where each block is and how long; a block of another length than
 * the reader expects is PLX_ERR_MISMATCH there (it gets the shorter of
 * the two), as on the point-to-point path.
 *
 * Spill.  Those three forms choose their algorithm from each rank's own
 * counts (lib/coll/select.h), which differ between ranks, so their rule must
 * cover every size and a payload may not fit the slot.  A payload over
 * spill_at bytes is then not copied: the header carries the address of
 * the user's buffer (in-place alltoallv: a private copy, since arriving
 * blocks overwrite it) and the table gives offsets in it; the readers copy
 * straight from there with the transport's single-copy read (CMA), and the
 * writer waits until every member finished collective s before it ends
 * (its buffer may not be reused earlier).  So these forms run only where
 * single-copy reads work (PLX_SHM_CMA=0: the point-to-point algorithms).
 * spill_at is the slot size for "shm_slots" and 0 for "direct".
 * allgatherv and reduce_scatterv choose by their total, which every rank
 * knows: shm_slots takes totals that fit, and never spills.
 *
 * The direct forms read one piece (PLX_DIRECT_PIECE) per progress call,
 * as node_direct.c does; shm_slots reads a spilled block in one go (its
 * requests cannot tell the engine that a piece moved, so it would back
 * off between pieces).
 *
 * A nonblocking call does not keep the caller's count arrays (coll.h):
 * an op that does not finish in its first step copies them.
 *
 * alltoall, gather, scatter and reduce_scatter run here too ("shm_slots"
 * of those), as their v-form with every count equal: the arrays are the
 * communicator's (plx_slots_uniform_get, no allocation per call, nothing
 * to keep), payloads always fit the slot (their can_run), and the line
 * carries the non-v call's signature, so a rank calling the v-form (or
 * other counts) is PLX_ERR_MISMATCH as before.  At 2 ranks this is one
 * line each way instead of a schedule's messages and their cross-path
 * checks (issue 11).
 */
#include "node_slots.h"
#include "node_direct.h"
#include "core/reduce.h"
#include "signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V_HDR      8                  /* header bytes at the start of the line */
#define V_INLINE   40                 /* payload bytes that fit the line after it */
#define V_SPILLED  (1ull << 63)       /* header flag: payload in the owner's buffer */

/* V_DONE is node_slots.c's SLOTS_DONE: it ends the op there too */
enum { V_WRITE = 0, V_READ = 1, V_DONE = 2, V_DRAIN = 3, V_COPY = 4 };

/* ---- who does what --------------------------------------------------------- */
static int has_table(plx_coll_t c) { return c == PLX_COLL_ALLTOALLV || c == PLX_COLL_SCATTERV; }

/* Does member m write a payload? */
static int writes(const slots_op_t *op, int m)
{
    switch (op->a.coll) {
    case PLX_COLL_GATHERV:  return m != op->a.root;
    case PLX_COLL_SCATTERV: return m == op->a.root;
    default:                return 1;
    }
}

/* Does this rank wait for member m's line: to read its payload, or (the
 * member before it) to compare signatures (node_slots.c)? */
static int reads_from(const slots_op_t *op, int m)
{
    int n = op->comm->size, me = op->comm->rank;
    if (m == me) return 0;
    if (m == (me + n - 1) % n) return 1;
    switch (op->a.coll) {
    case PLX_COLL_GATHERV:  return me == op->a.root;
    case PLX_COLL_SCATTERV: return m == op->a.root;
    default:                return 1;
    }
}

static int reads_all(const slots_op_t *op)
{
    plx_coll_t c = op->a.coll;
    return c == PLX_COLL_ALLGATHERV || c == PLX_COLL_ALLTOALLV || c == PLX_COLL_REDUCE_SCATTERV;
}

/* The send layout: alltoallv in place sends recvbuf's blocks. */
static const size_t *send_counts(const coll_args_t *a)
{
    return a->coll == PLX_COLL_ALLTOALLV && coll_in_place(a->sbuf) ? a->rcounts : a->scounts;
}
static const size_t *send_displs(const coll_args_t *a)
{
    return a->coll == PLX_COLL_ALLTOALLV && coll_in_place(a->sbuf) ? a->rdispls : a->sdispls;
}
static const char *send_base(const coll_args_t *a)
{
    return a->coll == PLX_COLL_ALLTOALLV && coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
}

/* Bytes of this rank's payload, table included. */
static size_t payload_bytes(const slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    int p = op->comm->size, me = op->comm->rank;
    size_t es = plx_dtype_size(a->dt);
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:       return a->rcounts[me] * es;
    case PLX_COLL_GATHERV:          return me == a->root ? 0 : a->count * es;
    case PLX_COLL_REDUCE_SCATTERV:  return coll_sum_counts(a->rcounts, p) * es;
    case PLX_COLL_SCATTERV:
        if (me != a->root) return 0;
        /* fall through */
    default: {                      /* alltoallv, scatterv at root */
        const size_t *c = send_counts(a);
        size_t b = (size_t)p * 8;
        for (int j = 0; j < p; j++)
            if (j != me) b += c[j] * es;
        return b;
    }
    }
}

/* This rank's block (no table), as the readers see it. */
static const char *block_src(const slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    size_t es = plx_dtype_size(a->dt);
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:
        return coll_in_place(a->sbuf) ? COLL_CAT(a->rbuf, a->rdispls[op->comm->rank], es) : a->sbuf;
    case PLX_COLL_REDUCE_SCATTERV:
        return coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    default:
        return a->sbuf;
    }
}

/* ---- can run ------------------------------------------------------------- */
/* allgatherv, reduce_scatterv: bytes is the total every rank knows; it
 * must fit the slot (never spilled). */
int plx_slots_v_total_can_run(plx_comm_t comm, size_t bytes)
{
    return !comm || plx_slots_can_run(comm, bytes);
}

/* alltoallv, gatherv, scatterv (and the direct forms): any size, so
 * single-copy reads must work, and a spilled table (16 bytes a rank) fit. */
int plx_slots_v_spill_can_run(plx_comm_t comm, size_t bytes)
{
    (void)bytes;
    if (!comm) return 1;
    return plx_slots_can_run(comm, (size_t)comm->size * 16) && plx_direct_can_run(comm, 0);
}

/* ---- start --------------------------------------------------------------- */
static void start_sig(plx_comm_t comm, const coll_args_t *a, slots_op_t *op, int spill, uint64_t sig)
{
    struct node_slots *ns = comm->slots;
    memset(op, 0, sizeof *op);
    op->comm = comm;
    op->ns = ns;
    op->a = *a;
    op->a.owned = NULL;
    op->called = a->coll;
    op->seq = plx_slots_v_take_seq(comm);
    op->sig = sig;
    op->phase = V_WRITE;
    op->status = PLX_SUCCESS;
    /* reduce_scatterv in place reads its output as input: never spilled */
    op->spill_at = a->coll == PLX_COLL_REDUCE_SCATTERV ? SIZE_MAX
                   : spill == PLX_SLOTS_V_SPILL_ALL    ? 0
                                                        : plx_slots_v_cap(op);
}

plx_status_t plx_slots_v_start(plx_comm_t comm, const coll_args_t *a, slots_op_t *op, int spill)
{
    coll_sig_t sig = coll_sig_of(comm, a);
    start_sig(comm, a, op, spill, coll_sig_word(&sig));
    return PLX_SUCCESS;
}

/* ---- the non-v forms with equal counts ------------------------------------ */
/* alltoall, scatter: a table of p pairs and p-1 blocks at the writer */
int plx_slots_u_table_can_run(plx_comm_t comm, size_t bytes)
{
    if (!comm) return 1;
    size_t p = (size_t)comm->size;
    return bytes <= (SIZE_MAX / 2) / p && plx_slots_can_run(comm, p * 8 + (p - 1) * bytes);
}

int plx_slots_u_block_can_run(plx_comm_t comm, size_t bytes)
{
    return plx_slots_can_run(comm, bytes);
}

/* reduce_scatter: every rank writes its whole input */
int plx_slots_u_input_can_run(plx_comm_t comm, size_t bytes)
{
    if (!comm) return 1;
    size_t p = (size_t)comm->size;
    return bytes <= SIZE_MAX / p && plx_slots_can_run(comm, p * bytes);
}

plx_status_t plx_slots_u_start(plx_comm_t comm, const coll_args_t *a, uint64_t sig, slots_op_t *op)
{
    static const plx_coll_t vform[PLX_COLL_COUNT] = {
        [PLX_COLL_ALLTOALL] = PLX_COLL_ALLTOALLV, [PLX_COLL_GATHER] = PLX_COLL_GATHERV,
        [PLX_COLL_SCATTER] = PLX_COLL_SCATTERV, [PLX_COLL_REDUCE_SCATTER] = PLX_COLL_REDUCE_SCATTERV,
    };
    size_t p = (size_t)comm->size;
    coll_args_t v = *a;
    v.coll = vform[a->coll];
    int held = 1;
    size_t *own = NULL;
    const size_t *u = plx_slots_uniform_get(comm, a->count);
    if (!u) {
        /* held by a pending call of another count: this call's own copy */
        held = 0;
        own = malloc(2 * p * sizeof *own);
        for (size_t i = 0; own && i < p; i++) {
            own[i] = a->count;
            own[p + i] = i * a->count;
        }
        u = own;
    }
    v.scounts = v.rcounts = u;
    v.sdispls = v.rdispls = u ? u + p : NULL;
    start_sig(comm, &v, op, PLX_SLOTS_V_SPILL_BIG, sig);
    op->spill_at = SIZE_MAX;   /* can_run: the payload fits the slot */
    op->called = a->coll;
    op->uni = held;
    op->vmem = own;
    op->vmem_size = 2 * p * sizeof *own;
    if (!u) {
        plx_error("plx_%s: out of memory for the count arrays", plx_coll_name(a->coll));
        plx_slots_v_break(op, PLX_ERR_NO_MEMORY);
        op->status = PLX_ERR_NO_MEMORY;
        op->phase = V_DONE;
    }
    return PLX_SUCCESS;
}

/* ---- keeping the caller's arrays ------------------------------------------ */
/* In-place alltoallv that spills: its blocks are copied aside (extent of
 * recvbuf's blocks), since the blocks arriving here overwrite them. */
static size_t scratch_need(const slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    if (a->coll != PLX_COLL_ALLTOALLV || !coll_in_place(a->sbuf)) return 0;
    if (payload_bytes(op) <= op->spill_at) return 0;
    size_t es = plx_dtype_size(a->dt), ext = 0;
    for (int i = 0; i < op->comm->size; i++)
        if (a->rcounts[i] && a->rdispls[i] + a->rcounts[i] > ext) ext = a->rdispls[i] + a->rcounts[i];
    return ext * es;
}

/* The kept arrays of a call that waits: a malloc/free pair per call.  (A
 * per-thread spare block saved that pair but was lost, and reported by
 * LeakSanitizer, when a thread such as the progress thread exited.) */
static void *vmem_get(size_t n) { return malloc(n); }

static void vmem_put(void *m, size_t n)
{
    (void)n;
    free(m);
}

/* Copy the count arrays (and make room for the scratch) into op->vmem;
 * NULL if out of memory. */
static char *keep(slots_op_t *op)
{
    if (op->vmem) return op->vmem;
    coll_args_t *a = &op->a;
    const size_t **arr[4] = { &a->scounts, &a->sdispls, &a->rcounts, &a->rdispls };
    size_t p = (size_t)op->comm->size, k = 0;
    for (int i = 0; i < 4; i++) k += *arr[i] != NULL;
    size_t head = (k * p * sizeof(size_t) + 63) & ~(size_t)63;
    size_t sz = head + scratch_need(op) + 1;
    char *m = vmem_get(sz);
    if (!m) return NULL;
    op->vmem_size = sz;
    size_t *at = (size_t *)(void *)m;
    for (int i = 0; i < 4; i++) {
        if (!*arr[i]) continue;
        memcpy(at, *arr[i], p * sizeof *at);
        *arr[i] = at;
        at += p;
    }
    op->vmem = m;
    return m;
}

static char *scratch_of(slots_op_t *op)
{
    size_t p = (size_t)op->comm->size, k = 0;
    const coll_args_t *a = &op->a;
    k = (a->scounts != NULL) + (a->sdispls != NULL) + (a->rcounts != NULL) + (a->rdispls != NULL);
    return (char *)op->vmem + ((k * p * sizeof(size_t) + 63) & ~(size_t)63);
}

static void finish(slots_op_t *op)
{
    if (op->uni) plx_slots_uniform_put(op->comm);
    op->uni = 0;
    vmem_put(op->vmem, op->vmem_size);
    op->vmem = NULL;
    op->phase = V_DONE;
}

/* ---- write --------------------------------------------------------------- */
static void put_pair32(unsigned char *t, int j, size_t off, size_t len)
{
    uint32_t v[2] = { (uint32_t)off, (uint32_t)len };
    memcpy(t + (size_t)j * 8, v, 8);
}

static void write_payload(slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    int p = op->comm->size, me = op->comm->rank;
    size_t es = plx_dtype_size(a->dt);
    unsigned char *line = plx_slots_v_line(op, me);
    uint64_t hdr = 0;
    if (writes(op, me) && op->status == PLX_SUCCESS) {
        size_t len = payload_bytes(op);
        hdr = len;
        if (len > op->spill_at) {
            /* the readers copy from this rank's buffer (address in the line) */
            const char *base = has_table(a->coll) ? send_base(a) : block_src(op);
            if (scratch_need(op)) {
                char *sc = keep(op) ? scratch_of(op) : NULL;
                if (!sc) {
                    op->status = PLX_ERR_NO_MEMORY;
                    memcpy(line, &(uint64_t){ 0 }, 8);
                    return;
                }
                memcpy(sc, a->rbuf, scratch_need(op));
                base = sc;
            }
            if (has_table(a->coll)) {
                unsigned char *t = plx_slots_v_data(op, me);
                const size_t *c = send_counts(a), *d = send_displs(a);
                for (int j = 0; j < p; j++) {
                    uint64_t v[2] = { j == me ? 0 : d[j] * es, j == me ? 0 : c[j] * es };
                    memcpy(t + (size_t)j * 16, v, 16);
                }
            }
            uint64_t addr = (uint64_t)(uintptr_t)base;
            memcpy(line + V_HDR, &addr, 8);
            hdr |= V_SPILLED;
            op->spilled = 1;
        } else if (len) {
            unsigned char *dst = len <= V_INLINE ? line + V_HDR : plx_slots_v_data(op, me);
            if (has_table(a->coll)) {
                const size_t *c = send_counts(a), *d = send_displs(a);
                const char *base = send_base(a);
                size_t at = (size_t)p * 8;
                for (int j = 0; j < p; j++) {
                    size_t b = j == me ? 0 : c[j] * es;
                    put_pair32(dst, j, at, b);
                    if (b) memcpy(dst + at, base + d[j] * es, b);
                    at += b;
                }
            } else if (a->coll == PLX_COLL_GATHERV) {
                plx_slots_write_for_root(op->comm, PLX_COLL_GATHERV, dst, block_src(op), len);
            } else {
                memcpy(dst, block_src(op), len);
            }
        }
    }
    memcpy(line, &hdr, 8);
}

/* ---- read ---------------------------------------------------------------- */
/* Member m's block for this rank: in its window (*src) or at address
 * *addr of its memory (*src NULL); its length in bytes. */
static size_t block_of(const slots_op_t *op, int m, const unsigned char **src, uint64_t *addr)
{
    const unsigned char *line = plx_slots_v_line(op, m);
    uint64_t hdr;
    memcpy(&hdr, line, 8);
    size_t len = (size_t)(hdr & ~V_SPILLED);
    int me = op->comm->rank;
    *src = NULL;
    *addr = 0;
    if (hdr & V_SPILLED) {
        memcpy(addr, line + V_HDR, 8);
        if (!has_table(op->a.coll)) return len;
        uint64_t v[2];
        memcpy(v, plx_slots_v_data(op, m) + (size_t)me * 16, 16);
        *addr += v[0];
        return (size_t)v[1];
    }
    const unsigned char *pl = len <= V_INLINE ? line + V_HDR : plx_slots_v_data(op, m);
    if (!has_table(op->a.coll)) {
        *src = pl;
        return len;
    }
    uint32_t v[2];
    memcpy(v, pl + (size_t)me * 8, 8);
    *src = pl + v[0];
    return v[1];
}

/* Where member m's block for this rank goes and how many bytes this rank
 * expects of it; 0 if it reads nothing of m. */
static int target(const slots_op_t *op, int m, char **dst, size_t *want)
{
    const coll_args_t *a = &op->a;
    int me = op->comm->rank;
    size_t es = plx_dtype_size(a->dt);
    if (m == me) return 0;
    switch (a->coll) {
    case PLX_COLL_GATHERV:
        if (me != a->root) return 0;
        /* fall through */
    case PLX_COLL_ALLGATHERV:
    case PLX_COLL_ALLTOALLV:
        *dst = (char *)a->rbuf + a->rdispls[m] * es;
        *want = a->rcounts[m] * es;
        return 1;
    case PLX_COLL_SCATTERV:
        if (m != a->root) return 0;
        *dst = a->rbuf;
        *want = a->count * es;
        return 1;
    default:
        return 0;
    }
}

/* This rank's own block, copied locally (nothing in place). */
static void own_block(slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    int me = op->comm->rank;
    size_t es = plx_dtype_size(a->dt);
    char *rbuf = a->rbuf;
    switch (a->coll) {
    case PLX_COLL_GATHERV:
        if (me != a->root) break;
        /* fall through */
    case PLX_COLL_ALLGATHERV:
        if (!coll_in_place(a->sbuf) && a->rcounts[me])
            memcpy(rbuf + a->rdispls[me] * es, a->sbuf, a->rcounts[me] * es);
        break;
    case PLX_COLL_ALLTOALLV:
        if (!coll_in_place(a->sbuf)) {
            size_t n = a->scounts[me] < a->rcounts[me] ? a->scounts[me] : a->rcounts[me];
            if (n) memcpy(rbuf + a->rdispls[me] * es, (const char *)a->sbuf + a->sdispls[me] * es, n * es);
        }
        break;
    case PLX_COLL_SCATTERV:
        if (me == a->root && !coll_in_place(a->rbuf) && a->scounts[me])
            memcpy(rbuf, (const char *)a->sbuf + a->sdispls[me] * es, a->scounts[me] * es);
        break;
    default:
        break;
    }
}

/* reduce_scatterv: block me of every member's input, members in order
 * 0..p-1, from their slots (never spilled). */
static void reduce_block(slots_op_t *op)
{
    const coll_args_t *a = &op->a;
    int p = op->comm->size, me = op->comm->rank;
    size_t es = plx_dtype_size(a->dt), n = a->rcounts[me], off = 0;
    if (!n) return;
    for (int i = 0; i < me; i++) off += a->rcounts[i];
    off *= es;
    const unsigned char *src[2];
    uint64_t addr;
    plx_op_t rop = coll_reduce_op(a->op);
    block_of(op, 0, &src[0], &addr);
    block_of(op, 1, &src[1], &addr);
    plx_reduce_local3(a->rbuf, src[0] + off, src[1] + off, n, a->dt, rop);
    for (int m = 2; m < p; m++) {
        block_of(op, m, &src[0], &addr);
        plx_reduce_local(a->rbuf, src[0] + off, n, a->dt, rop);
    }
    if (a->op == PLX_AVG) plx_avg_finish(a->rbuf, n, a->dt, p);
}

/* Every line this rank needs has arrived: copy its blocks out, resuming at
 * member vm, byte voff.  Single-copy reads of the direct forms go one
 * piece (PLX_DIRECT_PIECE) per call, so a progress pass stays short; 1 when
 * all is copied. */
static int copy_out(slots_op_t *op)
{
    plx_comm_t c = op->comm;
    if (op->a.coll == PLX_COLL_REDUCE_SCATTERV) {
        reduce_block(op);
        return 1;
    }
    if (op->vm == 0 && op->voff == 0) own_block(op);
    size_t budget = SIZE_MAX;
    if (op->spill_at == 0) budget = c->ctx->cfg.direct_piece ? c->ctx->cfg.direct_piece : (128u << 10);
    for (; op->vm < c->size; op->vm++, op->voff = 0) {
        int m = op->vm;
        char *dst;
        size_t want;
        if (!target(op, m, &dst, &want)) continue;
        const unsigned char *src;
        uint64_t addr;
        size_t len = block_of(op, m, &src, &addr), n = len < want ? len : want;
        if (op->voff == 0 && len != want && op->status == PLX_SUCCESS) {
            /* both sides know every block's size (a sender's count for a
             * rank is that rank's count for it), so a difference is ranks
             * disagreeing on the call, as on the point-to-point path
             * (lib/engine/sched.c); the buffer gets min(len, want) bytes */
            plx_error("plx_%s on comm %u (rank %d of %d): rank %d (world %d) sent %zu bytes for a "
                      "block of %zu: the ranks disagree on this call (their counts differ)",
                      plx_coll_name(op->called), c->id, c->rank, c->size, m, c->world_rank[m], len,
                      want);
            op->status = PLX_ERR_MISMATCH;
        }
        size_t k = n - op->voff;
        if (src) {
            if (k) memcpy(dst + op->voff, src + op->voff, k);
        } else if (k) {
            if (k > budget) k = budget;
            plx_context_t ctx = c->ctx;
            int w = c->world_rank[m];
            const plx_tl_ops_t *ops = ctx->tl[ctx->peer_tl[w]].ops;
            plx_status_t st = ops->peer_read(ctx->tl[ctx->peer_tl[w]].state, w, dst + op->voff,
                                             addr + op->voff, k);
            if (st != PLX_SUCCESS) {
                plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu: reading %zu "
                          "bytes of rank %d (world %d) failed: %s", plx_coll_name(op->called), c->id,
                          c->rank, c->size, (unsigned long long)op->seq, k, m, w, plx_strerror(st));
                op->status = st;
                return 1;
            }
            op->moved = 1;
        }
        op->voff += k;
        if (op->voff < n) return 0;   /* the rest of this block next time */
    }
    return 1;
}

/* Wait for the lines this rank needs (V_READ), then copy (V_COPY); 1 when
 * this rank has finished with its peers' slots and buffers. */
static int read_phase(slots_op_t *op)
{
    int p = op->comm->size;
    if (op->phase == V_READ) {
        if (plx_slots_v_local_done(op) != op->seq - 1) return 0;   /* finish in order */
        for (; op->next < p; op->next++)
            if (reads_from(op, op->next) && !plx_slots_v_arrived(op, op->next)) return 0;
        op->next = 0;
        op->vcopy = op->status == PLX_SUCCESS;   /* a mismatch reads nothing */
        op->phase = V_COPY;
    }
    if (op->vcopy && !copy_out(op)) return 0;
    plx_slots_v_finish_reads(op, reads_all(op));
    return 1;
}

/* A spilled payload: every member finished reading it. */
static int drain(slots_op_t *op)
{
    for (; op->next < op->comm->size; op->next++)
        if (op->next != op->comm->rank && plx_slots_v_done(op, op->next) < op->seq) return 0;
    return 1;
}

int plx_slots_v_advance(slots_op_t *op)
{
    plx_status_t st;
    if (op->phase == V_DONE) return 1;
    if (plx_slots_v_broken(op, &st)) {
        op->status = st;
        finish(op);
        return 1;
    }
    if (op->phase == V_WRITE) {
        if (!plx_slots_v_may_write(op)) goto later;
        write_payload(op);
        plx_slots_v_publish(op);
        op->phase = V_READ;
    }
    if (op->phase == V_READ || op->phase == V_COPY) {
        if (!read_phase(op)) goto later;
        if (!op->spilled) {
            finish(op);
            return 1;
        }
        op->phase = V_DRAIN;
    }
    if (drain(op)) {
        finish(op);
        return 1;
    }
later:
    /* the caller's arrays are only good during the call */
    if (!op->vmem && !op->uni && !keep(op) && op->status == PLX_SUCCESS) {
        plx_error("plx_%s: out of memory keeping the count arrays", plx_coll_name(op->called));
        op->status = PLX_ERR_NO_MEMORY;
    }
    return 0;
}

/* ---- deadlines and dead peers ---------------------------------------------- */
int plx_slots_v_check(slots_op_t *op, double elapsed, double limit)
{
    if (op->phase == V_DONE) return 0;
    plx_comm_t c = op->comm;
    uint64_t s = op->seq;
    int in_turn = plx_slots_v_local_done(op) == s - 1;
    coll_rank_list_t waited = { "", 0, 0 };   /* who are we waiting for? */
    plx_status_t st = PLX_SUCCESS;
    for (int m = 0; m < c->size; m++) {
        if (m == c->rank) continue;
        int missing;
        if (op->phase == V_WRITE) missing = plx_slots_v_done(op, m) + 2 < s;
        else if (op->phase == V_READ) missing = in_turn && reads_from(op, m) && !plx_slots_v_arrived(op, m);
        else if (op->phase == V_DRAIN) missing = plx_slots_v_done(op, m) < s;
        else missing = 0;   /* copying: only this rank's own work */
        if (!missing) continue;
        int w = c->world_rank[m];
        if (plx_peer_status(c->ctx, w) != PLX_SUCCESS) st = PLX_ERR_PEER_FAILED;
        coll_rank_list_add(&waited, m, w);
    }
    if (st == PLX_SUCCESS && elapsed < limit) return 0;
    if (st == PLX_SUCCESS) st = PLX_ERR_TIMEOUT;
    static const char *const what[] = { "write permission", "contribution", "", "release of its buffer",
                                        "end of its own copies" };
    const char *name = plx_coll_name(op->called);
    if (st == PLX_ERR_PEER_FAILED)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu: peer failed among "
                  "rank(s) %s", name, c->id, c->rank, c->size, (unsigned long long)s, waited.text);
    else
        plx_error("plx_%s timed out after %g s on comm %u (rank %d of %d), node-local sequence %llu "
                  "(%s): no %s from rank(s) %s", name, limit, c->id, c->rank, c->size,
                  (unsigned long long)s, op->spill_at ? "shm_slots" : "direct", what[op->phase],
                  waited.n ? waited.text : "(an earlier collective of this communicator)");
    plx_slots_v_break(op, st);
    op->status = st;
    finish(op);
    return 1;
}
