/*
 * transports/shm/shm_ring.h — the SPSC eager ring of one ordered pair of
 * local ranks (inline, hot path).
 *
 * A ring is an array of 64-byte cells plus a byte ring for payloads larger
 * than SHM_INLINE.  The producer writes the payload and the cell, then
 * publishes the cell with ONE release store of cell->seq = n + 1 (n = message
 * number); the consumer polls that word with an acquire load.  Because every
 * cell only ever holds headers, a stale cell can never look valid (its seq
 * is from an older lap), so nothing has to be cleared.  Payload placement in
 * the byte ring is deterministic (never split across the wrap: skip to the
 * start instead), so both sides compute the same position without sending
 * it.  The consumer publishes what it freed on its own cache line; the
 * producer reads that line only when its cached copy says "full".
 */
#ifndef PLX_SHM_RING_H
#define PLX_SHM_RING_H

#include <string.h>
#include "shm_internal.h"

#define SHM_ALIGN_UP(x, a) (((x) + ((uint64_t)(a) - 1)) & ~((uint64_t)(a) - 1))

/* Position of a payload of sz bytes (already line-rounded) starting at or
 * after pos: never straddle the end of the byte ring. */
static inline uint64_t shm_ring_place(uint64_t pos, uint64_t sz, uint64_t dsize)
{
    uint64_t off = pos & (dsize - 1);
    return off + sz > dsize ? pos + (dsize - off) : pos;
}

/* Try to publish one message (payload p/len).  Returns 1 if written, 0 if
 * the ring is full (nothing written; the caller queues and retries). */
static inline int shm_ring_push(shm_out_t *o, uint32_t ncells, uint64_t dsize, uint32_t type,
                                uint64_t tag, const void *p, uint32_t len)
{
    uint64_t n = o->head;
    if (__builtin_expect(n - o->ctail >= ncells, 0)) {
        o->ctail = atomic_load_explicit(&o->ctl->cell_tail, memory_order_acquire);
        if (n - o->ctail >= ncells) return 0;
    }
    shm_cell_t *c = &o->cells[n & (ncells - 1)];
    if (len <= SHM_INLINE) {
        if (len) memcpy(c->inl, p, len);
    } else {
        uint64_t sz = SHM_ALIGN_UP((uint64_t)len, SHM_CACHELINE);
        uint64_t pos = shm_ring_place(o->dhead, sz, dsize);
        if (pos + sz - o->dtail > dsize) {
            o->dtail = atomic_load_explicit(&o->ctl->data_tail, memory_order_acquire);
            if (pos + sz - o->dtail > dsize) return 0;
        }
        memcpy(o->data + (pos & (dsize - 1)), p, len);
        o->dhead = pos + sz;
    }
    c->tag = tag;
    c->len = len;
    c->type = type;
    atomic_store_explicit(&c->seq, n + 1, memory_order_release);
    o->head = n + 1;
    return 1;
}

/* The next valid cell, or NULL.  Its payload is shm_ring_payload(). */
static inline shm_cell_t *shm_ring_peek(shm_in_t *in, uint32_t ncells)
{
    shm_cell_t *c = &in->cells[in->tail & (ncells - 1)];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != in->tail + 1) return NULL;
    return c;
}

static inline const unsigned char *shm_ring_payload(shm_in_t *in, const shm_cell_t *c,
                                                    uint64_t dsize)
{
    if (c->len <= SHM_INLINE) return c->inl;
    uint64_t pos = shm_ring_place(in->dtail, SHM_ALIGN_UP((uint64_t)c->len, SHM_CACHELINE), dsize);
    return in->data + (pos & (dsize - 1));
}

/* Free the cell (and its payload) for the producer. */
static inline void shm_ring_pop(shm_in_t *in, const shm_cell_t *c, uint64_t dsize)
{
    if (c->len > SHM_INLINE) {
        uint64_t sz = SHM_ALIGN_UP((uint64_t)c->len, SHM_CACHELINE);
        in->dtail = shm_ring_place(in->dtail, sz, dsize) + sz;
        atomic_store_explicit(&in->ctl->data_tail, in->dtail, memory_order_release);
    }
    in->tail++;
    atomic_store_explicit(&in->ctl->cell_tail, in->tail, memory_order_release);
}

#endif /* PLX_SHM_RING_H */
