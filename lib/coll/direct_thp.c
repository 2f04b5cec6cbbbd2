/*
 * lib/coll/direct_thp.c — put a buffer that the direct collectives keep
 * reading and writing with CMA on transparent huge pages (madvise
 * MADV_COLLAPSE, Linux 6.1 and later).
 *
 * Why: every process_vm_readv / process_vm_writev pins the peer's pages
 * one 4 KiB page at a time (page walk, reference count), about a third of
 * a copy's time with 4 KiB pages.  With both processes' buffers on huge
 * pages the pair of copies of 2-rank allreduce ran 1.5x (1 MiB) to 2x
 * (16 MiB) as fast here (perf/RESULTS.md, issue 11, session s8a).
 *
 * What is collapsed: the 2 MiB pages the buffer touches.  Those wholly
 * inside it always; one that reaches past either end only if all of it is
 * mapped (mincore; the kernel refuses a 2 MiB page that is not all in one
 * mapping) and the 4 KiB pages of it not yet in memory, which a collapse
 * fills, come to at most half the buffer's length or at most what the
 * kernel's own khugepaged may fill in one 2 MiB page
 * (/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none, 511 of 512
 * by default), whichever allows more.  Why the ends: a malloc'd buffer is
 * rarely 2 MiB-aligned, and its first and last 2 MiB usually reach into
 * memory the program mapped but never touched (the rest of its
 * allocation); left on 4 KiB pages they held plx_perf's 2-rank alltoall
 * 4 MiB at 1.32-1.35x and allgather 16 MiB at 1.20-1.22x the time of the
 * buffers collapsed whole (perf/RESULTS.md, issue 11, session s12a).  Half
 * the buffer alone left the 512 KiB-2 MiB inputs of 2-rank allgather and
 * alltoall at 1-4 MiB on 4 KiB pages (their end pages are mostly
 * untouched), and those are the ones whose peers then read with CMA
 * instead of staging (node_direct.c, "Staged input"): 0.65-0.73x the time
 * (perf/RESULTS.md, issue 11, session s13c).  The data and the addresses
 * stay as they were: it is what the kernel's khugepaged, or THP "always"
 * at the first touch, does to any process.
 *
 * When: collapsing costs about 1.2 ms per 2 MiB (a copy into a new page),
 * so a buffer is collapsed on its after-th collective only: one used once
 * or twice pays nothing, like a registration cache that registers what
 * comes back.  Each buffer is tried once whatever the outcome (pages pinned
 * elsewhere, no free huge page, an older kernel or THP off: EINVAL), so a
 * failure is not repeated on every call.
 */
#include "direct_thp.h"

#ifdef __linux__
#include <stdio.h>
#include <sys/mman.h>
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#endif

#define THP_BYTES ((uintptr_t)2 << 20)
#define THP_MASK  (THP_BYTES - 1)

#ifdef __linux__
/* The bytes of one 2 MiB page that khugepaged may fill when it collapses
 * it (max_ptes_none 4 KiB pages), read once; 0 where it cannot be read. */
static size_t khugepaged_fill(void)
{
    static long fill = -1;
    long f = __atomic_load_n(&fill, __ATOMIC_RELAXED);
    if (f < 0) {
        long v = 0;
        FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none", "r");
        if (fp) {
            if (fscanf(fp, "%ld", &v) != 1 || v < 0) v = 0;
            fclose(fp);
        }
        f = v * 4096;
        __atomic_store_n(&fill, f, __ATOMIC_RELAXED);   /* (a race reads the same file) */
    }
    return (size_t)f;
}

/* May the 2 MiB page at addr (aligned), which reaches past a buffer of len
 * bytes, be collapsed: all of it mapped, and the 4 KiB pages of it not in
 * memory (which the collapse adds) at most len / 2 or at most what
 * khugepaged fills? */
static int end_ok(uintptr_t addr, size_t len)
{
    unsigned char v[THP_BYTES / 4096];
    if (mincore((void *)addr, THP_BYTES, v) != 0) return 0;   /* (ENOMEM: not all mapped) */
    size_t missing = 0;
    for (size_t i = 0; i < sizeof v; i++)
        if (!(v[i] & 1)) missing += 4096;
    return missing <= len / 2 || missing <= khugepaged_fill();
}
#endif

int plx_thp_note(plx_thp_cache_t *c, const void *p, size_t len, int after)
{
#ifdef __linux__
    uintptr_t a = (uintptr_t)p, q = a + len;
    if (after <= 0 || !p || len == 0 || q < a || q > UINTPTR_MAX - THP_MASK) return 0;
    uintptr_t lo = a & ~THP_MASK, hi = (q + THP_MASK) & ~THP_MASK;
    unsigned i;
    for (i = 0; i < PLX_THP_SLOTS; i++)
        if (c->e[i].beg == lo && c->e[i].end == hi) break;
    if (i == PLX_THP_SLOTS) {
        i = c->next;
        c->next = (c->next + 1) % PLX_THP_SLOTS;
        c->e[i].beg = lo;
        c->e[i].end = hi;
        c->e[i].seen = 0;
        c->e[i].huge = 0;
    }
    if (c->e[i].seen >= (unsigned)after) return c->e[i].huge;   /* tried already */
    if (++c->e[i].seen < (unsigned)after) return 0;
    /* the whole 2 MiB pages inside, then those at the ends if end_ok
     * (a buffer inside one 2 MiB page: both ends are that page) */
    uintptr_t b = (a + THP_MASK) & ~THP_MASK, e = q & ~THP_MASK, t = hi - THP_BYTES;
    int head = lo < a && end_ok(lo, len);
    if (head) b = lo;
    if (q < hi && (t == lo && lo < a ? head : end_ok(t, len))) e = hi;
    /* (whatever it says: tried once) */
    int ok = e > b && madvise((void *)b, e - b, MADV_COLLAPSE) == 0;
    c->e[i].huge = ok && b == lo && e == hi;
    return c->e[i].huge;
#else
    (void)c; (void)p; (void)len; (void)after;
    return 0;
#endif
}
