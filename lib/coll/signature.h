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

coll_sig_t coll_sig_of(plx_comm_t comm, const coll_args_t *a);

/* The 64-bit form of node-local slots: the same fields with root and
 * bytes cut to 16 and 32 bits (slot payloads and node sizes are far
 * smaller), never 0. */
uint64_t coll_sig_word(const coll_sig_t *s);
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
