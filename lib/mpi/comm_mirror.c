/*
 * lib/mpi/comm_mirror.c — the layer's record of each MPI communicator, and
 * the Plexus communicator ("twin") behind it, both made lazily.
 *
 * A communicator's record (size, rank, intercommunicator or not, its
 * routing rows, its twin) is made at its first collective call, routed or
 * not, with the only MPI queries the layer makes about it, and hangs on
 * the MPI communicator as an attribute, so MPI itself tells the layer when
 * the communicator goes (the delete callback, run by MPI_Comm_free and
 * MPI_Comm_disconnect).  Later calls find it in comm_cache.c's table
 * (MPI_COMM_WORLD's directly, pm.world) without asking MPI anything: a
 * call the table leaves to MPI costs a probe, a few compares and a count.
 * MPI_COMM_WORLD's twin is the context's world communicator.
 *
 * Every other twin is made at the communicator's first blocking collective
 * that the routing table sends to Plexus, whatever call made the
 * communicator (dup, split, split_type, create, create_group, idup,
 * cart/graph, an intercommunicator merge): nothing is recorded when MPI
 * makes it, so a communicator that never runs a routed collective costs
 * nothing.  At that collective every rank of the communicator is there, so
 * they make the twin together, collective over its own ranks only:
 * plx_comm_create_group on the world twin with the communicator's ranks
 * translated to MPI_COMM_WORLD ranks.  Its tag must differ from any other
 * creation running at once over some of the same ranks (another thread's
 * communicator): one MPI_Allreduce(MAX) on the communicator picks one
 * rank's (sequence number, world rank) pair, which that rank handed to no
 * other communicator.  A communicator with a rank outside MPI_COMM_WORLD
 * (spawned) is marked as having none; intercommunicators never get here
 * (call.c).
 *
 * Only a blocking call makes a twin: a nonblocking collective must not wait
 * for the other ranks, and ranks may start nonblocking collectives on two
 * communicators in different orders, so a twin made there could deadlock.
 * Until a blocking routed collective has run, a communicator's nonblocking
 * collectives stay with MPI ("no twin yet" in the summary).  Every rank of
 * a communicator sees the same sequence of collectives on it, so all ranks
 * agree on whether a twin exists at each call.
 *
 * A record and its twin are freed when the MPI communicator is freed and
 * no bridged request on it is still in flight (refs).  Two threads must
 * not make one communicator's record or twin at once: MPI already forbids
 * them to run collectives on one communicator concurrently.
 */
#include "layer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;
static MPI_Group world_group = MPI_GROUP_NULL;
static int world_size;
static _Atomic unsigned long long next_seq;     /* this rank's offers of a creation tag */
static _Atomic unsigned long n_made;            /* twins made (the summary says how many) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pm_mirror_t *all;                /* every live twin, for MPI_Finalize */

static void unlink_mirror_locked(pm_mirror_t *m)
{
    for (pm_mirror_t **p = &all; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            return;
        }
}

void pm_mirror_unref(pm_mirror_t *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
    pthread_mutex_lock(&lock);
    unlink_mirror_locked(m);
    pthread_mutex_unlock(&lock);
    if (!m->is_world && m->pc && pm.ctx) plx_comm_free(&m->pc);
    free(m->scratch);
    free(m);
}

/* Plexus copies count arrays when a call starts, so one scratch block per
 * communicator serves every v-form call on it (made at the first). */
size_t *pm_mirror_scratch(pm_mirror_t *m, int arrays)
{
    if (!m->scratch) m->scratch = malloc(4 * (size_t)(m->size > 0 ? m->size : 1) * sizeof(size_t));
    return arrays <= 4 ? m->scratch : NULL;
}

static int delete_fn(MPI_Comm comm, int kv, void *attr, void *extra)
{
    (void)kv; (void)extra;
    pm_mirror_t *m = attr;
    /* before MPI can hand the handle out again */
    pm_cache_remove(comm, m);
    pthread_mutex_lock(&lock);
    m->mpi_freed = 1;
    pthread_mutex_unlock(&lock);
    pm_mirror_unref(m);
    return MPI_SUCCESS;
}

static pm_mirror_t *lookup(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag) return NULL;
    return v;
}

/* comm's record, made and hung on it now (the MPI queries, once); NULL
 * when MPI refuses (the call then goes to MPI, which reports it). */
static pm_mirror_t *attach(MPI_Comm comm, int is_world)
{
    int inter = 0, size = 0, rank = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return NULL;
    pm_mirror_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->comm = comm;
    m->size = size;
    m->rank = rank;
    m->inter = inter;
    m->twin = inter ? PM_TWIN_NEVER : PM_TWIN_NOT_YET;
    m->is_world = is_world;
    pm_policy_fill(m->route, size);
    for (int c = 0; c < PM_NCOLL; c++)
        if (pm.counting || (!inter && m->route[c].n)) m->may |= PM_BIT(c);
    atomic_init(&m->refs, 1);
    if (is_world) {
        plx_comm_t world = NULL;
        if (plx_comm_world(pm.ctx, &world) != PLX_SUCCESS) {
            free(m);
            return NULL;
        }
        m->pc = world;
        m->twin = PM_TWIN_OK;
    }
    pthread_mutex_lock(&lock);
    m->next = all;
    all = m;
    pthread_mutex_unlock(&lock);
    if (PMPI_Comm_set_attr(comm, keyval, m) != MPI_SUCCESS) {
        pm_mirror_unref(m);
        return NULL;
    }
    return m;
}

pm_mirror_t *pm_mirror_slow(MPI_Comm comm)
{
    if (!pm.active || comm == MPI_COMM_NULL) return NULL;
    /* an attribute but no slot: the table was full when it was made */
    pm_mirror_t *m = lookup(comm);
    if (!m && !(m = attach(comm, 0))) return NULL;
    pm_cache_insert(comm, m);
    return m;
}

int pm_mirror_init(void)
{
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_group(MPI_COMM_WORLD, &world_group)) != MPI_SUCCESS) return rc;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (!(pm.world = attach(MPI_COMM_WORLD, 1))) return MPI_ERR_INTERN;
    pm_cache_insert(MPI_COMM_WORLD, pm.world);
    pm.world_may = pm.world->may;
    return MPI_SUCCESS;
}

/* comm's ranks as MPI_COMM_WORLD ranks (*ranks malloc'd); 0 when some rank
 * is not in MPI_COMM_WORLD, -1 on an MPI failure. */
static int world_ranks(MPI_Comm comm, int n, int **ranks)
{
    MPI_Group g;
    int *mine = malloc(2 * (size_t)n * sizeof(int));
    if (!mine || PMPI_Comm_group(comm, &g) != MPI_SUCCESS) {
        free(mine);
        return -1;
    }
    int *out = mine + n, ok = 1;
    for (int i = 0; i < n; i++) mine[i] = i;
    if (PMPI_Group_translate_ranks(g, n, mine, world_group, out) != MPI_SUCCESS) ok = -1;
    PMPI_Group_free(&g);
    for (int i = 0; ok == 1 && i < n; i++)
        if (out[i] == MPI_UNDEFINED) ok = 0;
    if (ok == 1) memmove(mine, out, (size_t)n * sizeof(int));
    else free(mine);
    *ranks = ok == 1 ? mine : NULL;
    return ok;
}

int pm_mirror_make_twin(pm_mirror_t *m)
{
    MPI_Comm comm = m->comm;
    int n = m->size, *ranks = NULL;
    int in_world = world_ranks(comm, n, &ranks);
    if (in_world <= 0) {
        /* every rank sees the same group: all mark it, all keep to MPI */
        if (in_world == 0) m->twin = PM_TWIN_NEVER;
        return 0;
    }
    unsigned long long mine = atomic_fetch_add(&next_seq, 1) * (unsigned long long)world_size +
                         (unsigned long long)pm.world_rank, pick = 0;
    int rc = PMPI_Allreduce(&mine, &pick, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        PMPI_Comm_call_errhandler(comm, rc);
        return 0;
    }
    plx_comm_t world = NULL, pc = NULL;
    plx_comm_world(pm.ctx, &world);
    plx_status_t st = plx_comm_create_group(world, n, ranks, (int)(pick % PLX_TAG_MAX), &pc);
    free(ranks);
    if (st != PLX_SUCCESS) {
        pm_raise(comm, st);
        return 0;
    }
    m->pc = pc;
    m->twin = PM_TWIN_OK;
    atomic_fetch_add(&n_made, 1);
    return 1;
}

unsigned long pm_mirror_made(void)
{
    return atomic_load(&n_made);
}

void pm_mirror_finalize(void)
{
    /* MPI_COMM_WORLD's attribute would otherwise be deleted inside
     * PMPI_Finalize, after plx_finalize; communicators the application did
     * not free lose their twin here (plx_finalize frees the Plexus side). */
    pm.world = NULL;
    pm.world_may = 0;
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    pthread_mutex_lock(&lock);
    for (pm_mirror_t *m = all; m; m = m->next) m->pc = NULL;
    pthread_mutex_unlock(&lock);
    PMPI_Comm_free_keyval(&keyval);
    if (world_group != MPI_GROUP_NULL) PMPI_Group_free(&world_group);
}
