/*
 * lib/engine/request.h — requests and the progress engine that drives them.
 *
 * A request is either a running schedule (every collective) or one
 * point-to-point transfer.  The context keeps every request in flight on
 * one list; plx_engine_progress() polls the transports once and then moves
 * each request, so a wait on one request also advances all the others (a
 * peer may be waiting on any of them).  Finished request objects are kept
 * on a free list: a blocking call (i-form + wait) allocates nothing.
 * Every function here expects ctx->lock held, except the public calls.
 */
#ifndef PLX_REQUEST_H
#define PLX_REQUEST_H

#include "plx_internal.h"
#include "engine/sched.h"
#include "coll/node_slots.h"
#include "coll/node_direct.h"

#define PLX_REQ_MAGIC 0x504c5852u   /* "PLXR" */

enum { REQ_SCHED = 1, REQ_SEND, REQ_RECV, REQ_SLOTS, REQ_HOOK, REQ_DONE, REQ_DIRECT };

/* A request driven by code outside the engine (the task-graph executor):
 * the engine calls advance under ctx->lock on every progress pass and
 * check every ~100 ms; each returns 1 when the work ended, with *st set.
 * cancel is called instead if the context is finalized while in flight. */
typedef struct plx_req_hook {
    int (*advance)(void *arg, plx_status_t *st);
    int (*check)(void *arg, double elapsed, double limit, plx_status_t *st);
    void (*cancel)(void *arg);
    void *arg;
} plx_req_hook_t;

struct plx_request {
    uint32_t magic;
    int kind;
    int done;                  /* finished: status is final */
    int detached;              /* plx_request_free'd while in flight */
    plx_status_t status;
    plx_context_t ctx;
    double started;            /* for PLX_TIMEOUT */
    struct plx_request *next, *prev;   /* ctx active list, or free list (next) */
    /* REQ_SCHED */
    plx_sched_t *sched;
    /* REQ_SLOTS */
    slots_op_t slots;
    /* REQ_HOOK */
    plx_req_hook_t hook;
    /* REQ_DIRECT */
    direct_op_t direct;
    /* persistent (made by a plx_*_init, lib/engine/persist.c): survives
     * completion; inactive (done, status SUCCESS, on no list) between runs */
    int persistent;
    int active;                /* started by plx_start and not yet collected */
    struct plx_persist *pers;  /* its saved arguments and how it runs again */
    /* collectives on a comm with call records: the call's number (0: none),
     * compared across paths by the slow path (lib/coll/call_record.c), with
     * the signature and path it was published with (kept, not rebuilt from
     * the op: the v-forms' direct op keeps no coll_args_t of its own) */
    uint64_t call;
    uint64_t call_sig[2];
    int call_path;
    /* REQ_SEND / REQ_RECV */
    plx_comm_t comm;
    int peer, tag;
    size_t elem_size;
    size_t *received;
    plx_tl_req_t treq;
};

/* A mismatched call ended r (a collective with a call number): tell the
 * peers through the call records (lib/coll/call_record.c). */
void plx_req_call_failed(struct plx_request *r);
/* The collective r was started as call number call of its comm (0: none),
 * published with signature sig and path (CALLREC_*). */
static inline void plx_req_set_call(struct plx_request *r, uint64_t call, const uint64_t sig[2],
                                    int path)
{
    r->call = call;
    r->call_sig[0] = sig[0];
    r->call_sig[1] = sig[1];
    r->call_path = path;
    /* it may have ended inside its start (every peer was there) */
    if (__builtin_expect(r->done && r->status == PLX_ERR_MISMATCH, 0)) plx_req_call_failed(r);
}

/* A fresh request (from the free list when possible); NULL if out of memory. */
struct plx_request *plx_req_alloc(plx_context_t ctx);
/* For engine-internal users (the graph executor): the argument checks of
 * the public calls (lib/api/coll.c, lib/api/p2p.c) and starting with the
 * context lock already held.  kind: REQ_SEND or REQ_RECV. */
plx_status_t plx_coll_check_args(const char *fn, plx_comm_t comm, const coll_args_t *a);
plx_status_t plx_coll_start_locked(plx_comm_t comm, const coll_args_t *a, plx_request_t *req);
plx_status_t plx_p2p_check_args(const char *fn, const void *buf, size_t count, plx_dtype_t dt,
                                int peer, int tag, plx_comm_t comm);
plx_status_t plx_p2p_start_locked(int kind, void *buf, size_t count, plx_dtype_t dt, int peer,
                                  int tag, plx_comm_t comm, size_t *received, plx_request_t *req);

/* Give back a request that was never started. */
void plx_req_release(struct plx_request *r);
/* Start schedule s and hand back its request (s belongs to the request
 * from here on, also on failure). */
plx_status_t plx_req_start_sched(plx_sched_t *s, plx_request_t *out);
/* Start a node-local collective (lib/coll/node_slots.c) as a request;
 * sig: coll_sig_word of the call (the caller has built it already). */
plx_status_t plx_req_start_slots(plx_comm_t comm, const coll_args_t *a, uint64_t sig,
                                 plx_request_t *out);
/* Start a node-local single-copy collective (lib/coll/node_direct.c). */
plx_status_t plx_req_start_direct(plx_comm_t comm, const coll_args_t *a, plx_request_t *out);
/* Start a hook request (lock held); its advance runs once at once. */
plx_status_t plx_req_start_hook(plx_context_t ctx, const plx_req_hook_t *h, plx_request_t *out);
/* For engine-internal users holding the lock: is it finished, and hand
 * back its status freeing it (only once finished). */
int plx_req_is_done(plx_request_t r);
plx_status_t plx_req_collect_locked(plx_request_t *req);
/* An application thread is about to wait (lock held, begin/end paired):
 * while any does, the progress thread leaves all work to it, and direct
 * collectives move in a lone caller's steps (plx_req_direct_solo).  The
 * blocking calls say so before their start, the waits on entry. */
void plx_req_drive_end_slow(plx_context_t ctx);
static inline void plx_req_drive_begin(plx_context_t ctx)
{
    if (ctx->pt.running) ctx->pt.driving++;
}
static inline void plx_req_drive_end(plx_context_t ctx)
{
    if (ctx->pt.running) plx_req_drive_end_slow(ctx);
}
/* The step size a direct request r may take now (DIRECT_SOLO_*, lib/coll/node_direct.h). */
int plx_req_direct_solo(const struct plx_request *r);
/* A direct collective r, alone in flight, moved in lone steps (op->solo),
 * waiting for a member's store while ranks outnumber cores: 1 and *ds set
 * if its waiter (the application's or the progress thread) should nap on
 * that store rather than back off (lock held). */
int plx_req_nap_target(plx_context_t ctx, const struct plx_request *r, direct_sleep_t *ds);
/* After one engine pass (lock not held), the step every progress loop
 * takes: events > 0: start the back-off over; nap (plx_req_nap_target
 * said so, *ds): yield for a while from the first nap (*nap_since, 0: none
 * yet), then sleep until the store, bounded; else back off. */
void plx_req_idle_step(int events, int nap, direct_sleep_t *ds, double *nap_since, plx_backoff_t *bo);
/* plx_wait with ctx->lock already held (the blocking calls). */
plx_status_t plx_req_wait_locked(plx_request_t *req);
/* A request that is already complete with status st (count-0 calls). */
plx_status_t plx_req_completed_locked(plx_context_t ctx, plx_status_t st, plx_request_t *out);
/* Put a posted p2p request on the active list. */
void plx_req_activate(struct plx_request *r);
/* End an active request with status st (its work is over). */
void plx_req_finish_locked(struct plx_request *r, plx_status_t st);
/* lib/engine/persist.c, for the engine: free what a persistent request
 * holds (its schedule, saved arguments) before the object is recycled;
 * at finalize, free every persistent request still there. */
void plx_persist_release(struct plx_request *r);
void plx_persist_release_all(plx_context_t ctx);
/* Poll the transports once and move every active request; returns the
 * number of events (0: nothing moved, the caller may back off). */
int plx_engine_progress(plx_context_t ctx);
/* End requests past PLX_TIMEOUT or whose peer died; looks at the clock and
 * does real work at most every 100 ms. */
void plx_engine_check_deadlines(plx_context_t ctx);

/* The background progress thread (PLX_PROGRESS=thread, lib/engine/progress_thread.c).
 * start: at the end of plx_init; stop: first thing in plx_finalize (joins). */
plx_status_t plx_progress_thread_start(plx_context_t ctx);
void plx_progress_thread_stop(plx_context_t ctx);

#endif /* PLX_REQUEST_H */
