/*
 * lib/coll/direct_thp.c — collapse the whole 2 MiB pages of a buffer that
 * the direct collectives keep reading and writing with CMA into
 * transparent huge pages (madvise MADV_COLLAPSE, Linux 6.1 and later).
 *
 * Why: every process_vm_readv / process_vm_writev pins the peer's pages
 * one 4 KiB page at a time (page walk, reference count), which with 4 KiB
 * pages is about a third of a copy's time.  With the peer's buffer on
 * huge pages the pair of copies of 2-rank allreduce ran 1.5x (1 MiB) to
 * 2x (16 MiB) as fast here (perf/RESULTS.md, issue 11, session s8a).
 * The user's data and addresses stay as they were (the kernel's khugepaged
 * does the same to any process); only whole 2 MiB pages inside the buffer
 * are touched, so no memory outside it is populated.
 *
 * Collapsing costs about 1.4 ms per 2 MiB (a copy into a new page), so a
 * range is collapsed only on its after-th collective: a buffer used once
 * or twice pays nothing.  A range is tried once, whatever the outcome
 * (pages pinned elsewhere, no free huge page, an older kernel or THP
 * off: EINVAL): a failed try is not repeated on every call.
 */
#include "direct_thp.h"

#ifdef __linux__
#include <sys/mman.h>
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#endif

#define THP_BYTES ((uintptr_t)2 << 20)

void plx_thp_note(plx_thp_cache_t *c, const void *p, size_t len, int after)
{
#ifdef __linux__
    if (after <= 0 || !p) return;
    uintptr_t beg = ((uintptr_t)p + THP_BYTES - 1) & ~(THP_BYTES - 1);
    uintptr_t end = ((uintptr_t)p + len) & ~(THP_BYTES - 1);
    if ((uintptr_t)p + len < (uintptr_t)p || end <= beg) return;   /* no whole huge page inside */
    unsigned i;
    for (i = 0; i < PLX_THP_SLOTS; i++)
        if (c->e[i].beg == beg && c->e[i].end == end) break;
    if (i == PLX_THP_SLOTS) {
        i = c->next;
        c->next = (c->next + 1) % PLX_THP_SLOTS;
        c->e[i].beg = beg;
        c->e[i].end = end;
        c->e[i].seen = 0;
    }
    if (c->e[i].seen >= (unsigned)after) return;   /* tried already */
    if (++c->e[i].seen < (unsigned)after) return;
    (void)madvise((void *)beg, end - beg, MADV_COLLAPSE);   /* (whatever it says: tried once) */
#else
    (void)c; (void)p; (void)len; (void)after;
#endif
}
