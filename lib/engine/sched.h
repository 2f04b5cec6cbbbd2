/*
 * lib/engine/sched.h — schedules: how every collective algorithm is expressed.
 *
 * A schedule is a list of rounds; a round is a list of steps.  When a round
 * starts, all its SEND and RECV steps are posted at once; when every one of
 * them has completed, its local steps (COPY, REDUCE, REDUCE3, AVG) run in the
 * order they were added, and the next round starts.  A round without
 * communication runs its local steps at once.  (This is the libNBC model:
 * simple to write, and nonblocking by construction — the progress engine
 * only has to call sched_advance.)
 *
 * Peers are ranks of the schedule's communicator.  All messages of one
 * schedule carry the same tag (communicator id + collective sequence
 * number); messages between a pair of ranks match in send order, so an
 * algorithm must post its receives from a peer in the order that peer sends.
 * Zero-byte messages are allowed (and must be matched like any other).
 *
 * Buffers named in steps must stay valid until the schedule completes;
 * sched_alloc() gives scratch memory freed with the schedule.  Building
 * never fails loudly: an allocation failure is remembered and returned by
 * sched_start.
 */
#ifndef PLX_SCHED_H
#define PLX_SCHED_H

#include "plx_internal.h"

typedef enum {
    SCHED_SEND = 0,
    SCHED_RECV,
    SCHED_COPY,      /* memcpy(dst, src, bytes) (memmove if overlapping) */
    SCHED_REDUCE,    /* dst[i] = dst[i] op src[i] */
    SCHED_REDUCE3,   /* dst[i] = src[i] op src2[i] */
    SCHED_AVG,       /* dst[i] /= divisor (AVG finalisation) */
    SCHED_HOOK       /* work driven by callbacks (sched_hook), e.g. a node-local phase */
} sched_kind_t;

/* A step whose work is done by code outside the schedule (the single-copy
 * node-local phase of lib/coll/hier.c): posted with the round like a
 * message, advanced on every pass until it says it finished.  Each
 * returns 1 when the work ended, with *st set (start may finish at once);
 * advance sets *moved when it did some work without finishing. */
typedef struct sched_hook_ops {
    int (*start)(void *arg, plx_status_t *st);
    int (*advance)(void *arg, plx_status_t *st, int *moved);
    /* deadline / dead peer check (logs its own message) */
    int (*check)(void *arg, double elapsed, double limit, plx_status_t *st);
    /* the schedule ends early with status st (never PLX_SUCCESS): never
     * called again afterwards */
    void (*cancel)(void *arg, plx_status_t st);
} sched_hook_ops_t;

typedef struct sched_step {
    uint8_t kind;
    int peer;                 /* SEND/RECV: communicator rank */
    void *dst;
    const void *src, *src2;
    size_t bytes;             /* SEND/RECV/COPY */
    size_t count;             /* REDUCE/REDUCE3/AVG: elements */
    plx_dtype_t dt;
    plx_op_t op;
    int divisor;
    plx_tl_req_t req;         /* SEND/RECV; HOOK: done and status */
    const sched_hook_ops_t *hook;   /* HOOK, with its argument in dst */
} sched_step_t;

typedef struct plx_sched plx_sched_t;

/* A new empty schedule on comm for collective `name` ("allreduce"...); takes
 * the communicator's next collective sequence number.  NULL only if out of
 * memory. */
plx_sched_t *sched_new(plx_comm_t comm, const char *name);

/* Make the ranks check that they agree on the call.  call: its number in
 * the communicator's call records (lib/coll/call_record.h), 0 if it has
 * none.  With records (every member on this node) no message is added:
 * each received message's sender has its record of the call compared
 * with this rank's, and a schedule that waits reaches the records' slow
 * path, which compares every member's.  Without: before anything else of
 * the schedule completes, sig (16 bytes, lib/coll/signature.h) goes to
 * rank+1 and rank-1's is compared with it when it arrives.  Call right
 * after sched_new, before any other step.  A difference, a message of the
 * wrong size, or a peer's notice that it saw one ends the schedule with
 * PLX_ERR_MISMATCH, and this rank then notifies every other member so that
 * none of them waits for it until PLX_TIMEOUT. */
void sched_sign(plx_sched_t *s, const uint64_t sig[2], uint64_t call);
/* The signature given to sched_sign: 1 and sig[] if s is signed. */
int sched_signature(const plx_sched_t *s, uint64_t sig[2]);
/* The ranks disagree on this call across paths (lib/coll/call_record.c):
 * end a running s with PLX_ERR_MISMATCH, notifying its peers as for a
 * mismatch of its own; 1 if it was running. */
int sched_abort_mismatch(plx_sched_t *s);

/* Scratch memory owned by the schedule (64-byte aligned, not zeroed). NULL
 * if out of memory (also recorded in the schedule). bytes may be 0. */
void *sched_alloc(plx_sched_t *s, size_t bytes);

void sched_send(plx_sched_t *s, int peer, const void *buf, size_t bytes);
void sched_recv(plx_sched_t *s, int peer, void *buf, size_t bytes);
void sched_copy(plx_sched_t *s, void *dst, const void *src, size_t bytes);
void sched_reduce(plx_sched_t *s, void *inout, const void *in, size_t count,
                  plx_dtype_t dt, plx_op_t op);
void sched_reduce3(plx_sched_t *s, void *dst, const void *a, const void *b, size_t count,
                   plx_dtype_t dt, plx_op_t op);
void sched_avg(plx_sched_t *s, void *buf, size_t count, plx_dtype_t dt, int divisor);
/* A hook step in the current round (arg: e.g. sched_alloc memory). */
void sched_hook(plx_sched_t *s, const sched_hook_ops_t *ops, void *arg);

/* Close the current round: steps added after this belong to the next one.
 * Closing an empty round does nothing. */
void sched_round(plx_sched_t *s);

/* Post the first round.  After this, sched_advance moves it. */
plx_status_t sched_start(plx_sched_t *s);
/* Advance as far as possible without waiting (the caller polls the
 * transports, once for all schedules); 1 when done (see sched_status). */
int sched_advance(plx_sched_t *s);
/* The same; *moved is set when anything happened (a hook's work counts),
 * so the caller does not back off while a hook is busy. */
int sched_advance_moved(plx_sched_t *s, int *moved);
plx_status_t sched_status(const plx_sched_t *s);
plx_comm_t sched_comm(const plx_sched_t *s);
/* Its collective sequence number (the same on every rank for one call). */
uint32_t sched_seq(const plx_sched_t *s);
void sched_free(plx_sched_t *s);

/* Persistent collectives (lib/engine/persist.c): a schedule built once and
 * run any number of times, each run a new collective.  sched_new_persistent
 * takes no sequence number; sched_seal ends the building (returns its
 * status, e.g. an allocation that failed); sched_restart, on a sealed or
 * finished one, takes the communicator's next sequence number and posts
 * round 0 like sched_start (errors then end the run: sched_status). */
plx_sched_t *sched_new_persistent(plx_comm_t comm, const char *name);
plx_status_t sched_seal(plx_sched_t *s);
plx_status_t sched_restart(plx_sched_t *s);

/* For the progress engine (lib/engine/request.c), which drives many schedules:
 * end a running schedule whose peer died or that has run `elapsed` >=
 * `limit` seconds, logging one line that names the collective, communicator,
 * sequence number, round and the ranks that never arrived.  Returns 1 if it
 * ended the schedule. */
int sched_check(plx_sched_t *s, double elapsed, double limit);


#endif /* PLX_SCHED_H */
