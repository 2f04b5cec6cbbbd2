/*
 * lib/coll/signature.c — building, packing and describing call signatures
 * (see signature.h).
 */
#include "signature.h"

#include <stdio.h>

static int is_reduction(int c)
{
    return c == PLX_COLL_REDUCE || c == PLX_COLL_ALLREDUCE || c == PLX_COLL_REDUCE_SCATTER;
}

static int is_rooted(int c)
{
    return c == PLX_COLL_BCAST || c == PLX_COLL_REDUCE || c == PLX_COLL_GATHER ||
           c == PLX_COLL_SCATTER;
}

coll_sig_t coll_sig_of(const coll_args_t *a)
{
    coll_sig_t s;
    uint64_t c = (uint64_t)a->coll & 0xff;
    uint64_t op = is_reduction(a->coll) ? (uint64_t)a->op & 0xff : 0;
    uint64_t dt = is_reduction(a->coll) ? (uint64_t)a->dt & 0xff : 0;
    uint64_t root = is_rooted(a->coll) ? (uint64_t)(uint32_t)a->root : 0;
    s.word[0] = c | op << 8 | dt << 16 | (uint64_t)COLL_SIG_CALL << 24 | root << 32;
    s.word[1] = a->coll == PLX_COLL_BARRIER ? 0 : (uint64_t)a->count * plx_dtype_size(a->dt);
    return s;
}

uint64_t coll_sig_word(const coll_sig_t *s)
{
    uint64_t w0 = s->word[0];
    return ((w0 & 0xff) + 1) |                 /* collective + 1: the word is never 0 */
           ((w0 >> 8) & 0xf) << 8 |            /* op */
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
                      plx_op_name((plx_op_t)op));
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
    return describe((int)(w & 0xff) - 1, (int)((w >> 8) & 0xf), (int)((w >> 12) & 0xf),
                    (w >> 16) & 0xffff, w >> 32, buf, len);
}
