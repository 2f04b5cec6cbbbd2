/*
 * lib/coll/signature.c — building, packing and describing call signatures
 * (see signature.h).
 */
#include "signature.h"

#include <stdio.h>

static int is_reduction(int c) { return coll_is_reduction((plx_coll_t)c); }

static int is_rooted(int c)
{
    return c == PLX_COLL_BCAST || c == PLX_COLL_REDUCE || c == PLX_COLL_GATHER ||
           c == PLX_COLL_SCATTER || c == PLX_COLL_GATHERV || c == PLX_COLL_SCATTERV;
}

/* The bytes every rank of comm agrees on for this call.  The v-forms'
 * counts differ by rank by design: allgatherv and reduce_scatterv agree on
 * the total (every rank passes all counts); alltoallv, gatherv and
 * scatterv on nothing a rank can check alone (0: only the collective and
 * the root are compared). */
static uint64_t agreed_bytes(plx_comm_t comm, const coll_args_t *a)
{
    size_t es = plx_dtype_size(a->dt);
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

coll_sig_t coll_sig_of(plx_comm_t comm, const coll_args_t *a)
{
    coll_sig_t s;
    uint64_t c = (uint64_t)a->coll & 0xff;
    /* a user op's handle is local (ranks may create their ops in another
     * order): compare only that it is one */
    uint64_t op = !is_reduction(a->coll) ? 0 : a->op >= PLX_OP_USER_BASE ? 0xff : (uint64_t)a->op & 0xff;
    uint64_t dt = is_reduction(a->coll) ? (uint64_t)a->dt & 0xff : 0;
    uint64_t root = is_rooted(a->coll) ? (uint64_t)(uint32_t)a->root : 0;
    s.word[0] = c | op << 8 | dt << 16 | (uint64_t)COLL_SIG_CALL << 24 | root << 32;
    s.word[1] = agreed_bytes(comm, a);
    return s;
}

uint64_t coll_sig_word(const coll_sig_t *s)
{
    uint64_t w0 = s->word[0];
    return ((w0 & 0xff) + 1) |                 /* collective + 1: the word is never 0 */
           (((w0 >> 8) & 0xff) == 0xff ? 0xf : (w0 >> 8) & 0xf) << 8 |   /* op (0xf: a user op) */
           ((w0 >> 16) & 0xf) << 12 |          /* datatype */
           ((w0 >> 32) & 0xffff) << 16 |       /* root */
           (s->word[1] & 0xffffffffu) << 32;   /* bytes */
}

static char *describe(int c, int op, int dt, uint64_t root, uint64_t bytes, char *buf, size_t len)
{
    const char *name = plx_coll_name((plx_coll_t)c);
    if (!name) {
        snprintf(buf, len, "an unknown collective (%d)", c);
        return buf;
    }
    if (c == PLX_COLL_BARRIER) {
        snprintf(buf, len, "barrier");
        return buf;
    }
    int n = snprintf(buf, len, "%s of %llu bytes", name, (unsigned long long)bytes);
    if (n < 0 || (size_t)n >= len) return buf;
    if (is_reduction(c))
        n += snprintf(buf + n, len - (size_t)n, " (%s %s)", plx_dtype_name((plx_dtype_t)dt),
                      op >= PLX_OP_COUNT ? "user op" : plx_op_name((plx_op_t)op));
    if (n >= 0 && (size_t)n < len && is_rooted(c))
        snprintf(buf + n, len - (size_t)n, " %s root %llu", c == PLX_COLL_BCAST ||
                 c == PLX_COLL_SCATTER ? "from" : "to", (unsigned long long)root);
    return buf;
}

char *coll_sig_describe(const coll_sig_t *s, char *buf, size_t len)
{
    uint64_t w = s->word[0];
    return describe((int)(w & 0xff), (int)((w >> 8) & 0xff), (int)((w >> 16) & 0xff), w >> 32,
                    s->word[1], buf, len);
}

char *coll_sig_describe_word(uint64_t w, char *buf, size_t len)
{
    if (w == COLL_SIG_WORD_ABANDONED) {
        snprintf(buf, len, "a call it abandoned (the ranks disagreed across paths)");
        return buf;
    }
    return describe((int)(w & 0xff) - 1, (int)((w >> 8) & 0xf), (int)((w >> 12) & 0xf),
                    (w >> 16) & 0xffff, w >> 32, buf, len);
}
