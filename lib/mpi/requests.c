/*
 * lib/mpi/requests.c — a Plexus nonblocking collective as an MPI request.
 *
 * Choice: MPI generalized requests (MPI_Grequest_start), completed by the
 * layer.  The request the application gets is a real MPI request, so every
 * MPI function that takes requests (MPI_Wait*, MPI_Test*, MPI_Request_free,
 * MPI_Request_get_status, MPI_Startall excluded) accepts it in any array
 * mixed with point-to-point requests, and MPI itself fills the status and
 * keeps Waitsome/Testsome/Request_free semantics.  The other way — fake
 * handles in a table of our own — would have to reimplement all of those
 * over arrays mixing both kinds, with the MPI's own handle encoding.
 *
 * What MPI cannot do is move Plexus, so the layer intercepts the wait and
 * test calls: while a routed request is in flight, each one first
 * advances Plexus (plx_test on every request in flight; a finished one is
 * unpacked if needed and MPI_Grequest_complete'd), then asks MPI with the
 * nonblocking PMPI_Test* form, looping for the Wait* forms.  With nothing
 * of Plexus in flight they go straight to PMPI_ (no cost).  Routed
 * collective calls also advance Plexus, and MPI_Finalize drains.
 *
 * Status of a completed collective, as MPI defines for collectives: source
 * MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0, not cancelled; the error is the
 * MPI code of the Plexus failure (the communicator's error handler is
 * called first).  Collectives cannot be cancelled (MPI_Cancel is erroneous
 * on them): the cancel callback does nothing.
 */
#include "layer.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct bridge {
    plx_request_t preq;
    MPI_Request mreq;
    pm_call_t call;
    int code;                   /* what the request reports: MPI_SUCCESS or an MPI code */
    int completed, freed;       /* memory goes when both the layer and MPI are done */
    struct bridge *next;
} bridge_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bridge_t *inflight;
_Atomic int pm_n_inflight;

static int query_fn(void *extra, MPI_Status *status)
{
    bridge_t *b = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return b->code;
}

static void release(bridge_t *b, int by_mpi)
{
    pthread_mutex_lock(&lock);
    if (by_mpi) b->freed = 1;
    else b->completed = 1;
    int last = b->freed && b->completed;
    pthread_mutex_unlock(&lock);
    if (last) free(b);
}

static int free_fn(void *extra)
{
    release(extra, 1);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra; (void)complete;
    return MPI_SUCCESS;
}

void pm_poke_mpi(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, pm.oob, &flag, MPI_STATUS_IGNORE);
}

int pm_bridge(pm_call_t *c, plx_request_t preq, MPI_Request *mreq)
{
    bridge_t *b = calloc(1, sizeof *b);
    int rc = b ? PMPI_Grequest_start(query_fn, free_fn, cancel_fn, b, &b->mreq) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(b);
        plx_request_free(&preq);        /* it goes on and ends by itself */
        *mreq = MPI_REQUEST_NULL;
        return pm_call_abandon(c, rc);
    }
    b->preq = preq;
    b->call = *c;
    /* MPI lets the application free the communicator before the request
     * completes: the record (and its twin) stay until complete() */
    atomic_fetch_add(&c->m->refs, 1);
    *mreq = b->mreq;
    pthread_mutex_lock(&lock);
    b->next = inflight;
    inflight = b;
    atomic_fetch_add(&pm_n_inflight, 1);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static void complete(bridge_t *b, plx_status_t st)
{
    pm_call_t *c = &b->call;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->nstage; i++) {
        if (st != PLX_SUCCESS) c->stage[i].out = 0;
        int r = pm_stage_close(&c->stage[i]);
        if (rc == MPI_SUCCESS) rc = r;
    }
    b->code = st != PLX_SUCCESS ? pm_error_code(st) : rc;
    /* the communicator's handler, as for a blocking call, while it exists */
    if (b->code != MPI_SUCCESS && c->m && !c->m->mpi_freed)
        PMPI_Comm_call_errhandler(c->comm, b->code);
    pm_mirror_unref(c->m);
    c->m = NULL;
    PMPI_Grequest_complete(b->mreq);
    release(b, 0);
}

void pm_progress_slow(void)
{
    if (pthread_mutex_trylock(&lock) != 0) return;  /* another thread is at it */
    bridge_t *done = NULL;
    for (bridge_t **p = &inflight; *p;) {
        bridge_t *b = *p;
        int fin = 0;
        plx_status_t st = plx_test(&b->preq, &fin);
        if (!fin && st == PLX_SUCCESS) {
            p = &b->next;
            continue;
        }
        *p = b->next;
        atomic_fetch_sub(&pm_n_inflight, 1);
        b->code = (int)st;      /* the Plexus status until complete() */
        b->next = done;
        done = b;
    }
    pthread_mutex_unlock(&lock);
    /* MPI calls (which may run free_fn) outside the lock */
    while (done) {
        bridge_t *b = done;
        done = b->next;
        complete(b, (plx_status_t)b->code);
    }
}

static int plexus_in_flight(void)
{
    return pm.active && atomic_load_explicit(&pm_n_inflight, memory_order_relaxed) > 0;
}

/* in the Wait* loops: spin a little, then let the other ranks have the core */
static void backoff(unsigned i)
{
    if (i >= 64) sched_yield();
}

void pm_drain(void)
{
    for (unsigned i = 0; plexus_in_flight(); i++) {
        pm_progress();
        pm_poke_mpi();
        backoff(i);
    }
}

/* ---- the request functions -------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!plexus_in_flight()) return PMPI_Wait(request, status);
    for (unsigned i = 0;; i++) {
        int flag = 0;
        pm_progress();
        int rc = PMPI_Test(request, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (!plexus_in_flight()) return PMPI_Wait(request, status);
        backoff(i);
    }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!plexus_in_flight()) return PMPI_Waitall(count, requests, statuses);
    for (unsigned i = 0;; i++) {
        int flag = 0;
        pm_progress();
        int rc = PMPI_Testall(count, requests, &flag, statuses);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (!plexus_in_flight()) return PMPI_Waitall(count, requests, statuses);
        backoff(i);
    }
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!plexus_in_flight()) return PMPI_Waitany(count, requests, index, status);
    for (unsigned i = 0;; i++) {
        int flag = 0;
        pm_progress();
        int rc = PMPI_Testany(count, requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (!plexus_in_flight()) return PMPI_Waitany(count, requests, index, status);
        backoff(i);
    }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (!plexus_in_flight()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    for (unsigned i = 0;; i++) {
        pm_progress();
        int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc;     /* MPI_UNDEFINED: none active */
        if (!plexus_in_flight())
            return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
        backoff(i);
    }
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (pm.active) pm_progress();
    return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (pm.active) pm_progress();
    return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (pm.active) pm_progress();
    return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (pm.active) pm_progress();
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (pm.active) pm_progress();
    return PMPI_Request_get_status(request, flag, status);
}
