/*
 * lib/coll/call_record.h — cross-path mismatch detection on node-local
 * communicators: every collective call, whatever path it takes (shm_slots,
 * direct, a schedule), publishes its communicator-level call number and a
 * hash of its signature in the caller's shared window; a request that waits
 * (its slow path, lib/engine/request.c's deadline checks, never the fast path)
 * compares its peers' records of the same call.
 *
 * The per-path checks (slots signature word, direct header) only meet
 * ranks that took the same path; ranks that disagree so that they take
 * different paths (a count on the other side of the slots limit, a
 * collective whose algorithm runs elsewhere) only meet here.  Schedules on
 * these communicators have no signature messages: their data messages carry
 * bits of this rank's record hash in the tag, so calls that disagree do not
 * match and wait (lib/engine/sched.c, "Mismatches"), and
 * the slow path here compares their records on the same path too.
 *
 * Only communicators whose members all share this node and whose id has a
 * slots window (id < 16, as for shm_slots and direct) have records; on the
 * others every collective runs as a signed schedule (lib/engine/sched.c), whose
 * ring already compares every rank's call.
 */
#ifndef PLX_COLL_CALL_RECORD_H
#define PLX_COLL_CALL_RECORD_H

#include "signature.h"

/* The path a call took (2 bits of its record; 0: another, e.g. a device
 * library, never compared). */
enum { CALLREC_OTHER = 0, CALLREC_SLOTS, CALLREC_DIRECT, CALLREC_SCHED };

struct call_record {
    int n, me;
    unsigned char **win;             /* [n] the slots window of each member (channel = comm id) */
    uint64_t next;                   /* the next call's number */
    uint64_t detail_call;            /* the call whose details this rank published last */
    uint64_t defer_call;             /* a mismatch seen on it waits for the peer's details... */
    int defer_checks;                /* ...for at most CALLREC_DEFER_CHECKS slow checks */
    int poisoned;                    /* a cross-path mismatch put the paths out of step here */
};

/* Offsets in the slots window (lib/coll/node_slots.c keeps 0..511 and
 * 640..): the 128-byte pair 512..639, whose lines peers read only in their
 * slow path (a pair of its own: the adjacent-line prefetcher fetches
 * 128-byte pairs, and the slots protocol's lines are read on every call) */
#define CALLREC_RING_OFF   512       /* 8 words: call n in word n & 7 (one line) */
#define CALLREC_DETAIL_OFF 576       /* gen, call, signature (2 words), path: slow path only */
#define CALLREC_NOTICE_OFF 624       /* the last call on which this rank saw a mismatch */
#define CALLREC_DEFER_CHECKS 10      /* ~1 s: a peer publishes its details at its first slow check */

int plx_callrec_setup(plx_comm_t comm);

/* 32 bits of the 16-byte signature, mixed. */
static inline uint64_t plx_callrec_hash(const coll_sig_t *s)
{
    uint64_t h = s->word[0] * 0x9e3779b97f4a7c15ull ^ (s->word[1] + 0x632be59bd9b4e019ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h & 0xffffffffu;
}

/* Number this call and publish its record: one store (release: a plain
 * store on x86) into this rank's window.  hash: plx_callrec_hash of its
 * signature (lib/api/coll.c keeps it with the call's plan).  Returns the
 * call number, 0 if comm has no records. */
static inline uint64_t plx_callrec_publish_hash(plx_comm_t comm, uint64_t hash, int path)
{
    if (__builtin_expect(comm->callrec_state <= 0, 0)) {
        if (comm->callrec_state < 0 || (comm->callrec_state = plx_callrec_setup(comm)) < 0) return 0;
    }
    struct call_record *cr = comm->callrec;
    uint64_t n = cr->next++;
    uint64_t *ring = (uint64_t *)(cr->win[cr->me] + CALLREC_RING_OFF);
    __atomic_store_n(&ring[n & 7], n << 32 | (hash & ~3ull) | (uint64_t)path, __ATOMIC_RELEASE);
    return n;
}

static inline uint64_t plx_callrec_publish(plx_comm_t comm, const coll_sig_t *sig, int path)
{
    return plx_callrec_publish_hash(comm, plx_callrec_hash(sig), path);
}

/* Schedules on a communicator with records (lib/engine/sched.c, "Mismatches")
 * exchange no signature messages: their data tags carry bits of the record
 * hash, a receive of the wrong size compares its sender's record (to name
 * both calls), and the slow path below compares every peer's, the same
 * path included.  plx_callrec_peer_differs: 1 if member m's record of call is there and
 * holds another signature or path than rec (this rank's ring word of
 * call); 0 if it agrees or is not there (m went 8 calls on: not compared). */
static inline uint64_t plx_callrec_peer_word(const struct call_record *cr, int m, uint64_t call)
{
    const uint64_t *ring = (const uint64_t *)(cr->win[m] + CALLREC_RING_OFF);
    return __atomic_load_n(&ring[call & 7], __ATOMIC_ACQUIRE);
}
static inline int plx_callrec_peer_differs(const struct call_record *cr, int m, uint64_t call,
                                           uint64_t rec)
{
    uint64_t w = plx_callrec_peer_word(cr, m, call);
    return w >> 32 == (call & 0xffffffffu) && (w & 0xffffffffu) != (rec & 0xffffffffu);
}

/* This rank's ring word of call (what peers compare with). */
static inline uint64_t plx_callrec_word(const struct call_record *cr, uint64_t call)
{
    const uint64_t *ring = (const uint64_t *)(cr->win[cr->me] + CALLREC_RING_OFF);
    return __atomic_load_n(&ring[call & 7], __ATOMIC_RELAXED);
}

/* Publish this rank's details of call (signature, path) so that a peer
 * that finds a difference can name this side; a schedule does it at its
 * start (a few stores to a line peers read only when they differ). */
void plx_callrec_publish_detail(plx_comm_t comm, uint64_t call, const coll_sig_t *sig, int path);

/* Member m's details of call: 1 and *sig if it published them. */
int plx_callrec_peer_detail(plx_comm_t comm, int m, uint64_t call, coll_sig_t *sig);

/* The slow path of a request waiting on call number call (sig: its
 * signature, path: CALLREC_*): PLX_ERR_MISMATCH (logged, naming both sides,
 * and published as a notice) if a peer's record of the same call has
 * another signature AND another path (on the same path the path's own check
 * sees it and keeps its windows in step; a schedule has none but its data
 * receipts, so for path CALLREC_SCHED the same path counts too), or if a
 * peer published a notice of this call; else PLX_SUCCESS. */
plx_status_t plx_callrec_check(plx_comm_t comm, uint64_t call, const coll_sig_t *sig, int path);

/* Call number call ended with PLX_ERR_MISMATCH here: if a cross-path
 * mismatch put this comm out of step (a later call fails at once), tell the
 * peers, so that one waiting for this rank on that call stops too. */
void plx_callrec_failed(plx_comm_t comm, uint64_t call);

/* The last call number this comm used (a reused id starts above it). */
uint64_t plx_callrec_last(plx_comm_t comm);
void plx_callrec_release(plx_comm_t comm);

#endif /* PLX_COLL_CALL_RECORD_H */
