/*
 * lib/coll/direct_thp.h — whole 2 MiB pages of the buffers that node-local
 * single-copy collectives (node_direct.c) publish, collapsed into
 * transparent huge pages once a buffer keeps coming back (see direct_thp.c).
 */
#ifndef PLX_DIRECT_THP_H
#define PLX_DIRECT_THP_H

#include <stddef.h>
#include <stdint.h>

#define PLX_THP_SLOTS 8

typedef struct plx_thp_cache {
    struct { uintptr_t beg, end; unsigned seen, huge; } e[PLX_THP_SLOTS];
    unsigned next;     /* the slot a new range takes (round robin) */
} plx_thp_cache_t;

/* Count one more collective on [p, p+len); on the after-th one with the
 * same whole 2 MiB pages, collapse them (once).  after 0: never.
 * Returns 1 when every 2 MiB page the buffer touches was collapsed (on
 * this call or an earlier one), else 0.  (The cache only knows what it
 * did: a buffer freed and another mapped at the same addresses, or a huge
 * page the kernel split since, still counts as huge -- only the speed of
 * a choice made on it depends on that, never a result.) */
int plx_thp_note(plx_thp_cache_t *c, const void *p, size_t len, int after);

#endif
