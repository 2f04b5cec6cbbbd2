/*
 * lib/coll/signature.h — what a rank called, in a form other ranks can
 * compare: the collective, the bytes per rank (count x datatype size), the
 * root of rooted collectives, and the op and datatype of reductions.
 *
 * Ranks that disagree on any of these would exchange messages of wrong
 * sizes or read each other's shared slots wrongly; comparing signatures
 * turns that into PLX_ERR_MISMATCH with a message naming both sides.
 *   - node-local slots (node_slots.c) compare the 64-bit word written next
 *     to the sequence number;
 *   - schedules (sched.c) send the 16-byte form to the next rank in a ring
 *     at the start of every collective (over several nodes: a ring per
 *     node plus one of node leaders), so if any two ranks disagree some
 *     neighbouring pair does and one of them sees it.
 */
#ifndef PLX_COLL_SIGNATURE_H
#define PLX_COLL_SIGNATURE_H

#include "coll.h"

/* Kind of a 16-byte signature message (the top byte of word 0). */
enum { COLL_SIG_CALL = 0x5a, COLL_SIG_NOTICE = 0xa5 };

/* The 16-byte form: word[0] = coll | op << 8 | dt << 16 | kind << 24 |
 * root << 32, word[1] = bytes.  Fields a collective does not use are 0
 * (dt and op matter for reductions only: a byte count is a byte count for
 * a bcast, but int32 summed as float32 is garbage). */
typedef struct coll_sig {
    uint64_t word[2];
} coll_sig_t;

/* Collectives with a root (compared in the signature). */
static inline int coll_is_rooted(plx_coll_t c)
{
    return c == PLX_COLL_BCAST || c == PLX_COLL_REDUCE || c == PLX_COLL_GATHER ||
           c == PLX_COLL_SCATTER || c == PLX_COLL_GATHERV || c == PLX_COLL_SCATTERV;
}

/* The bytes every rank of comm agrees on for this call.  The v-forms'
 * counts differ by rank by design: allgatherv and reduce_scatterv agree on
 * the total (every rank passes all counts); alltoallv, gatherv and
 * scatterv on nothing a rank can check alone (0: only the collective and
 * the root are compared). */
static inline uint64_t coll_sig_bytes(plx_comm_t comm, const coll_args_t *a)
{
    size_t es = plx_dtype_size_fast(a->dt);
    switch (a->coll) {
    case PLX_COLL_BARRIER:
    case PLX_COLL_ALLTOALLV:
    case PLX_COLL_GATHERV:
    case PLX_COLL_SCATTERV:
        return 0;
    case PLX_COLL_ALLGATHERV:
    case PLX_COLL_REDUCE_SCATTERV:
        return (uint64_t)coll_sum_counts(a->rcounts, comm->size) * es;
    default:
        return (uint64_t)a->count * es;
    }
}

/* Inline: every collective call builds one (the 8-byte path counts its
 * instructions; perf/RESULTS.md "Issue 13: the cost of an 8-byte call"). */
static inline coll_sig_t coll_sig_of(plx_comm_t comm, const coll_args_t *a)
{
    coll_sig_t s;
    int red = coll_is_reduction(a->coll);
    uint64_t c = (uint64_t)a->coll & 0xff;
    /* a user op's handle is local (ranks may create their ops in another
     * order): compare only that it is one */
    uint64_t op = !red ? 0 : a->op >= PLX_OP_USER_BASE ? 0xff : (uint64_t)a->op & 0xff;
    uint64_t dt = red ? (uint64_t)a->dt & 0xff : 0;
    uint64_t root = coll_is_rooted(a->coll) ? (uint64_t)(uint32_t)a->root : 0;
    s.word[0] = c | op << 8 | dt << 16 | (uint64_t)COLL_SIG_CALL << 24 | root << 32;
    s.word[1] = coll_sig_bytes(comm, a);
    return s;
}

/* The 64-bit form of node-local slots: the same fields with root and
 * bytes cut to 16 and 32 bits (slot payloads and node sizes are far
 * smaller), never 0. */
static inline uint64_t coll_sig_word(const coll_sig_t *s)
{
    uint64_t w0 = s->word[0];
    return ((w0 & 0xff) + 1) |                 /* collective + 1: the word is never 0 */
           (((w0 >> 8) & 0xff) == 0xff ? 0xf : (w0 >> 8) & 0xf) << 8 |   /* op (0xf: a user op) */
           ((w0 >> 16) & 0xf) << 12 |          /* datatype */
           ((w0 >> 32) & 0xffff) << 16 |       /* root */
           (s->word[1] & 0xffffffffu) << 32;   /* bytes */
}
/* A slot word no call has: left by a rank that abandoned its call on a
 * cross-path mismatch (lib/coll/node_slots.c plx_slots_abort). */
#define COLL_SIG_WORD_ABANDONED 0xffull

/* "allreduce of 400 bytes (float32 sum)", "bcast of 8 bytes from root 2";
 * a word (slots) or a full signature.  Returns buf. */
char *coll_sig_describe(const coll_sig_t *s, char *buf, size_t len);
char *coll_sig_describe_word(uint64_t w, char *buf, size_t len);

static inline int coll_sig_equal(const coll_sig_t *a, const coll_sig_t *b)
{
    return a->word[0] == b->word[0] && a->word[1] == b->word[1];
}

#endif /* PLX_COLL_SIGNATURE_H */
