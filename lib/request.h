/*
 * lib/request.h — requests and the progress engine that drives them.
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
#include "sched.h"
#include "coll/node_slots.h"

#define PLX_REQ_MAGIC 0x504c5852u   /* "PLXR" */

enum { REQ_SCHED = 1, REQ_SEND, REQ_RECV, REQ_SLOTS, REQ_DONE };

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
    /* REQ_SEND / REQ_RECV */
    plx_comm_t comm;
    int peer, tag;
    size_t elem_size;
    size_t *received;
    plx_tl_req_t treq;
};

/* A fresh request (from the free list when possible); NULL if out of memory. */
struct plx_request *plx_req_alloc(plx_context_t ctx);
/* Give back a request that was never started. */
void plx_req_release(struct plx_request *r);
/* Start schedule s and hand back its request (s belongs to the request
 * from here on, also on failure). */
plx_status_t plx_req_start_sched(plx_sched_t *s, plx_request_t *out);
/* Start a node-local collective (lib/coll/node_slots.c) as a request. */
plx_status_t plx_req_start_slots(plx_comm_t comm, const coll_args_t *a, plx_request_t *out);
/* A request that is already complete with status st (count-0 calls);
 * takes the lock itself. */
plx_status_t plx_req_completed(plx_context_t ctx, plx_status_t st, plx_request_t *out);
/* Put a posted p2p request on the active list. */
void plx_req_activate(struct plx_request *r);
/* Poll the transports once and move every active request; returns the
 * number of events (0: nothing moved, the caller may back off). */
int plx_engine_progress(plx_context_t ctx);
/* End requests past PLX_TIMEOUT or whose peer died; looks at the clock and
 * does real work at most every 100 ms. */
void plx_engine_check_deadlines(plx_context_t ctx);

/* The background progress thread (PLX_PROGRESS=thread, lib/progress_thread.c).
 * start: at the end of plx_init; stop: first thing in plx_finalize (joins). */
plx_status_t plx_progress_thread_start(plx_context_t ctx);
void plx_progress_thread_stop(plx_context_t ctx);

#endif /* PLX_REQUEST_H */
