/*
 * lib/coll/signature.c — describing call signatures for messages (building
 * and packing them is inline in signature.h: every call does it).
 */
#include "signature.h"

#include <stdio.h>

static int is_reduction(int c) { return coll_is_reduction((plx_coll_t)c); }
static int is_rooted(int c) { return coll_is_rooted((plx_coll_t)c); }

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
