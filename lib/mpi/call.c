/*
 * lib/mpi/call.c — one path for every routed collective call: find the
 * communicator's twin, decide (counting why), and after the plx_i* call
 * either wait (blocking MPI call) or hand back an MPI request
 * (nonblocking one, requests.c).
 *
 * Deciding (pm_call_begin, pm_call_route: inline in layer.h) asks MPI
 * nothing: the communicator's record (comm_mirror.c, found through
 * comm_cache.c) has its size, rank and routing rows.  The twin is made at
 * the communicator's first blocking routed call; a nonblocking one never
 * makes it (it stays with MPI until a blocking routed call has).
 *
 * A blocking call is plx_i* plus plx_test in a loop, not Plexus's blocking
 * call, because the wait must be able to poke MPI's progress engine, and
 * that is needed for deadlock freedom: MPI promises that operations the
 * application started before the collective still progress while it sits
 * in any MPI call.  A rank that started an MPI_Isend (or a nonblocking
 * collective this layer left to MPI: one with a user op on a derived
 * type, or any on a communicator without a twin yet) and then entered a
 * routed collective may be the only one who can move that message (a
 * rendezvous send over TCP, Open MPI's libnbc rounds, UCX without
 * single-copy), while its peer sits in MPI_Wait or MPI_Recv on it and
 * reaches the collective only afterwards.  Plexus's blocking call cannot
 * poke MPI, and the layer cannot know whether such an operation is
 * pending (it does not see point-to-point calls), so no thread level or
 * layer state makes skipping the poke safe.  It costs little: the first
 * 64 rounds only spin on plx_test (an 8-byte collective is done long
 * before), so the poke and the yield come only when a peer is late; and
 * plx_i* + plx_test against plx_allreduce measured about 90 instructions
 * more per call at 1 rank (callgrind) and no difference beyond 10 ns at 2
 * ranks (minimum over batches), against the 250-560 instructions per call
 * that the layer's own decision cost before it kept per-communicator
 * records (MPI queries, an attribute read, locked adds; perf/RESULTS.md,
 * issue 15).
 * After the spin, the peer we wait for may need this core on an
 * oversubscribed node: each round also yields.  Plexus ends a request
 * that waits longer than PLX_TIMEOUT, so the loop is bounded.
 */
#include "layer.h"
#include <limits.h>

#include <sched.h>

/* pm_quick (layer.h) for a communicator other than MPI_COMM_WORLD: a
 * table probe, out of line so that the interceptors stay small. */
pm_mirror_t *pm_quick_other(unsigned colls, MPI_Comm comm)
{
    if (!pm.active) return NULL;
    pm_mirror_t *m = comm == MPI_COMM_NULL ? NULL : pm_comm_rec(comm);
    if (!m) {                           /* MPI reports what is wrong with comm */
        for (int c = 0; c < PM_NCOLL; c++)
            if ((colls >> c) & 1) {
                pm_count((pm_coll_t)c, PM_WHY_COMM, 0);
                break;
            }
    }
    return m;
}

/* pm_size_falls (layer.h) for a type other than the last one asked on
 * this communicator and collective: the byte rows decide, and for a
 * predefined type they are kept as element counts for the next call.
 * Not kept under MPI_THREAD_MULTIPLE (two threads could write one entry
 * at once); there every call decides from the byte rows. */
int pm_size_falls_slow(pm_mirror_t *m, pm_coll_t coll, int count, MPI_Datatype type, int blocks)
{
    if (pm.counting) return 0;          /* every call counts why: no rule kept */
    const pm_type_info_t *ti = pm_type_find(type);
    if (!ti) return 0;                  /* derived: the full path decides */
    size_t unit = (size_t)ti->size * (size_t)(blocks > 0 ? blocks : 1);
    int falls = count >= 0 && pm_route(m, coll, (size_t)count * unit) != PM_TO_PLEXUS;
    if (pm.thread_level == MPI_THREAD_MULTIPLE || unit == 0 || blocks <= 0) return falls;
    /* bytes in [lo, hi) <=> count in [ceil(lo / unit), ceil(hi / unit)), counts < 2^31 */
    const pm_route_t *r = &m->route[coll];
    struct pm_count_rule *k = &m->rule[coll];
    const size_t top = (size_t)1 << 31;
    k->n = 0;
    k->below = UINT_MAX;
    for (int i = 0; i < r->n; i++) {
        size_t lo = r->lo[i] / unit + (r->lo[i] % unit != 0);
        size_t hi = r->hi[i] / unit + (r->hi[i] % unit != 0);
        if (lo > top) lo = top;
        if (hi > top) hi = top;
        if (hi <= lo) continue;
        k->lo[k->n] = (unsigned)lo;
        k->w[k->n] = (unsigned)(hi - lo);
        if ((unsigned)lo < k->below) k->below = (unsigned)lo;
        k->n++;
    }
    k->t = type;
    return falls;
}

/* PM_TO_PLEXUS with the twin made, or why the call stays with MPI */
int pm_call_twin(pm_call_t *c)
{
    pm_mirror_t *m = c->m;
    if (m->twin == PM_TWIN_NEVER) return PM_WHY_COMM;
    if (!c->blocking) return PM_WHY_LAZY;
    return pm_mirror_make_twin(m) ? PM_TO_PLEXUS : PM_WHY_COMM;
}

int pm_call_abandon(pm_call_t *c, int mpi_code)
{
    for (int i = 0; i < c->nstage; i++) {
        c->stage[i].out = 0;
        pm_stage_close(&c->stage[i]);
    }
    PMPI_Comm_call_errhandler(c->comm, mpi_code);
    return mpi_code;
}

static plx_status_t wait_plx(plx_request_t *preq)
{
    for (unsigned i = 0;; i++) {
        int done = 0;
        plx_status_t st = plx_test(preq, &done);
        if (done || st != PLX_SUCCESS) return st;
        if (i >= 64) {
            if ((i & 15) == 0) pm_poke_mpi();
            sched_yield();
        }
    }
}

int pm_call_finish(pm_call_t *c, plx_status_t st, plx_request_t preq, MPI_Request *mreq)
{
    if (st == PLX_SUCCESS && mreq) return pm_bridge(c, preq, mreq);
    if (mreq) *mreq = MPI_REQUEST_NULL;
    if (st == PLX_SUCCESS) st = wait_plx(&preq);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->nstage; i++) {
        if (st != PLX_SUCCESS) c->stage[i].out = 0;
        int r = pm_stage_close(&c->stage[i]);
        if (rc == MPI_SUCCESS) rc = r;
    }
    if (st != PLX_SUCCESS) return pm_raise(c->comm, st);
    if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(c->comm, rc);
    return rc;
}
