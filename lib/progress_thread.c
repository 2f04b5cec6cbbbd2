/*
 * lib/progress_thread.c — PLX_PROGRESS=thread: one background thread per
 * context that drives every request in flight while the application
 * computes (or sleeps in a GPU wait), so a collective posted with plx_i*
 * completes without the application calling plx_test.
 *
 * Why it does not burn a core: with nothing in flight it sleeps on a
 * condition variable (plx_req_activate wakes it); with work in flight that
 * does not move it backs off like every wait (spin 64 polls, sched_yield
 * for 2 ms, then 20 us sleeps), letting go of the context lock between
 * polls so application threads are never locked out for long.
 */
#include "request.h"

#include <string.h>
#include <sys/prctl.h>

static void *progress_main(void *arg)
{
    plx_context_t ctx = arg;
    /* the default 50 us timer slack would turn each 20 us back-off sleep
     * into ~70 us of latency on every message the thread waits for */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    unsigned iter = 0;
    plx_ctx_lock(ctx);
    while (!ctx->pt.stop) {
        if (!ctx->active_head) {
            ctx->pt.sleeping = 1;
            pthread_cond_wait(&ctx->pt.wake, &ctx->lock);
            ctx->pt.sleeping = 0;
            plx_backoff_reset(&bo);
            continue;
        }
        int events = plx_engine_progress(ctx);
        if ((++iter & 63) == 0) plx_engine_check_deadlines(ctx);
        plx_ctx_unlock(ctx);
        if (events > 0) plx_backoff_reset(&bo);
        else plx_backoff_idle(&bo);
        plx_ctx_lock(ctx);
    }
    plx_ctx_unlock(ctx);
    return NULL;
}

plx_status_t plx_progress_thread_start(plx_context_t ctx)
{
    if (pthread_cond_init(&ctx->pt.wake, NULL) != 0) return PLX_ERR_NO_MEMORY;
    ctx->pt.stop = 0;
    ctx->pt.sleeping = 0;
    int rc = pthread_create(&ctx->pt.tid, NULL, progress_main, ctx);
    if (rc != 0) {
        pthread_cond_destroy(&ctx->pt.wake);
        plx_error("PLX_PROGRESS=thread: cannot start the progress thread: %s", strerror(rc));
        return PLX_ERR_NO_MEMORY;
    }
    ctx->pt.running = 1;
    plx_debug("progress thread started");
    return PLX_SUCCESS;
}

void plx_progress_thread_stop(plx_context_t ctx)
{
    if (!ctx->pt.running) return;
    plx_ctx_lock(ctx);
    ctx->pt.stop = 1;
    pthread_cond_signal(&ctx->pt.wake);
    plx_ctx_unlock(ctx);
    pthread_join(ctx->pt.tid, NULL);
    pthread_cond_destroy(&ctx->pt.wake);
    ctx->pt.running = 0;
}
