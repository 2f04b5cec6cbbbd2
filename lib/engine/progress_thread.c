/*
 * lib/engine/progress_thread.c — PLX_PROGRESS=thread: one background thread per
 * context that drives every request in flight while the application
 * computes (or sleeps in a GPU wait), so a collective posted with plx_i*
 * completes without the application calling plx_test.
 *
 * Why it does not burn a core: with nothing in flight it lingers 1 ms
 * (PT_LINGER_S, polling and yielding: the next collective of a loop is
 * usually posted by then, and waking a thread asleep on a condition
 * variable costs 40-100 us on this VM, a third of a 1 MiB allreduce),
 * then sleeps on a condition variable (plx_req_activate wakes it); with
 * work in flight that does not move it backs off like every wait (spin 64
 * polls, sched_yield for 2 ms, then 20 us sleeps), letting go of the
 * context lock between polls so application threads are never locked out
 * for long.  A single-copy collective alone in flight moves as a lone
 * caller's would (op->solo THREAD: its pieces, and with more ranks than
 * cores the caller's naps -- yield 1 ms, then sleep until the member's
 * store); the application thread on this core sleeps or computes meanwhile.
 *
 * Handing the lock over: while the thread runs, an application thread
 * that finds the context lock taken polls for it (plx_ctx_lock_polling)
 * and says so (pt.want); the thread, after each pass, lets it in before
 * taking the lock again.  With a plain mutex each hand-over was a futex
 * sleep and wake-up: measured 30-40 us from a collective's end to the
 * return of the plx_wait that was already waiting for it.
 *
 * Standing aside for a waiter: while an application thread is inside a
 * wait (or a blocking collective), pt.driving > 0 and this thread sleeps on
 * its condition variable; the waiter moves everything in a lone caller's
 * steps (larger direct pieces, one-call copies, bounded spins) and wakes it
 * on the way out (plx_req_drive_end).  On the core the two share at 2 ranks
 * the lock otherwise went back and forth once per 128 KiB piece: plain
 * post + wait 1-4 MiB 15-25 % faster (perf/RESULTS.md, session s5o).
 *
 * One CPU for both (plexusrun binds each rank when ranks <= cores): the
 * lock's holder cannot run while the other spins on the same core, so a
 * pause spin for the lock or for a hand-over only delays it; both threads
 * yield at once instead (pt.one_core).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#endif
#include "engine/request.h"

#include <sched.h>
#include <string.h>
#include <sys/prctl.h>

/* with nothing in flight, poll this long before sleeping: measured
 * (plx_perf --overlap, 4 launches each) 0 / 300 us / 1 ms: 4 MiB at 2 ranks
 * median 0.72 / 0.91 / 0.94, 1 MiB at 4 ranks 0.65 (300 us) / 0.94 (1 ms):
 * the next post of a loop can come a third of a collective later */
#define PT_LINGER_S   1e-3
#define LOCK_POLL_S   2e-3     /* poll for a taken context lock this long, then sleep on it */
#define HANDOVER_POLLS 256     /* at most this many polls for a waiter to take the lock */

/* Take ctx->lock without sleeping on the mutex, for up to LOCK_POLL_S
 * (then block: its holder may be doing something long, e.g. creating a
 * communicator).  announce: count this thread in pt.want, so that the
 * progress thread lets go of the lock for it. */
static void lock_polling(plx_context_t ctx, int announce)
{
    if (announce) __atomic_add_fetch(&ctx->pt.want, 1, __ATOMIC_SEQ_CST);
    double since = 0;
    /* sharing one CPU with the holder: no pause spins (see the top) */
    for (unsigned i = ctx->pt.one_core ? 64 : 0; !plx_ctx_trylock(ctx); i++) {
        if (i < 64) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        if (since == 0) since = plx_now();
        else if ((i & 15) == 0 && plx_now() - since > LOCK_POLL_S) {
            pthread_mutex_lock(&ctx->lock);
            break;
        }
        sched_yield();
    }
    if (announce) __atomic_sub_fetch(&ctx->pt.want, 1, __ATOMIC_SEQ_CST);
}

void plx_ctx_lock_polling(plx_context_t ctx) { lock_polling(ctx, 1); }

/* After letting go of the lock: give an application thread that waits
 * for it the chance to take it (it polls: on its own core it takes it at
 * once, on ours it needs us to yield). */
static void hand_over(plx_context_t ctx)
{
    for (int i = 0; i < HANDOVER_POLLS && __atomic_load_n(&ctx->pt.want, __ATOMIC_SEQ_CST); i++) {
        if (i < 32 && !ctx->pt.one_core) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

static void *progress_main(void *arg)
{
    plx_context_t ctx = arg;
    /* the default 50 us timer slack would turn each 20 us back-off sleep
     * into ~70 us of latency on every message the thread waits for */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    unsigned iter = 0;
    double idle_since = 0, nap_since = 0;
    lock_polling(ctx, 0);
    while (!ctx->pt.stop) {
        if (ctx->pt.driving) {
            /* an application thread waits and drives everything itself
             * (plx_req_drive_begin); its drive_end wakes us */
            ctx->pt.sleeping = 1;
            pthread_cond_wait(&ctx->pt.wake, &ctx->lock);
            ctx->pt.sleeping = 0;
            idle_since = nap_since = 0;
            plx_backoff_reset(&bo);
            continue;
        }
        if (!ctx->active_head) {
            double now = plx_now();
            if (idle_since == 0) {
                idle_since = now;
                nap_since = 0;
                plx_backoff_reset(&bo);
            }
            if (now - idle_since >= PT_LINGER_S) {
                ctx->pt.sleeping = 1;
                pthread_cond_wait(&ctx->pt.wake, &ctx->lock);
                ctx->pt.sleeping = 0;
                idle_since = nap_since = 0;
                plx_backoff_reset(&bo);
                continue;
            }
            /* linger: watch for a post without holding the lock (the
             * poster would otherwise have to wait for it) */
            unsigned seen = ctx->pt.posts;
            plx_ctx_unlock(ctx);
            hand_over(ctx);
            for (int k = 0; k < 8 && __atomic_load_n(&ctx->pt.posts, __ATOMIC_ACQUIRE) == seen &&
                            !__atomic_load_n(&ctx->pt.stop, __ATOMIC_ACQUIRE); k++)
                plx_backoff_idle(&bo);
            lock_polling(ctx, 0);
            continue;
        }
        idle_since = 0;
        int events = plx_engine_progress(ctx);
        if ((++iter & 63) == 0) plx_engine_check_deadlines(ctx);
        /* its op alone, waiting for a member while ranks outnumber cores:
         * nap as a waiting caller does (yield, then sleep until the
         * member's store) rather than 20 us back-off sleeps */
        direct_sleep_t ds;
        int nap = events == 0 && plx_req_nap_target(ctx, ctx->active_head, &ds);
        plx_ctx_unlock(ctx);
        hand_over(ctx);
        plx_req_idle_step(events, nap, &ds, &nap_since, &bo);
        lock_polling(ctx, 0);
    }
    plx_ctx_unlock(ctx);
    return NULL;
}

plx_status_t plx_progress_thread_start(plx_context_t ctx)
{
    /* the thread inherits the caller's affinity: one CPU means it shares it */
    cpu_set_t cs;
    ctx->pt.one_core = sched_getaffinity(0, sizeof cs, &cs) == 0 && CPU_COUNT(&cs) == 1;
    if (pthread_cond_init(&ctx->pt.wake, NULL) != 0) return PLX_ERR_NO_MEMORY;
    ctx->pt.stop = 0;
    ctx->pt.sleeping = 0;
    ctx->pt.want = 0;
    ctx->pt.driving = 0;
    ctx->pt.posts = 0;
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
    __atomic_store_n(&ctx->pt.stop, 1, __ATOMIC_RELEASE);   /* a lingering thread reads it unlocked */
    pthread_cond_signal(&ctx->pt.wake);
    plx_ctx_unlock(ctx);
    pthread_join(ctx->pt.tid, NULL);
    pthread_cond_destroy(&ctx->pt.wake);
    ctx->pt.running = 0;
}
