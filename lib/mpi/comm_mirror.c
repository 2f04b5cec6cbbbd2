/*
 * lib/mpi/comm_mirror.c — the Plexus communicator ("twin") behind each MPI
 * communicator.
 *
 * The twin hangs on the MPI communicator as an attribute, so MPI itself
 * tells the layer when the communicator goes (the delete callback, run by
 * MPI_Comm_free and MPI_Comm_disconnect) and a lookup costs one attribute
 * read.  MPI_COMM_WORLD's twin is the context's world communicator.
 *
 * New twins are made when MPI makes a communicator out of one that has a
 * twin (comm_create.c): Plexus makes communicators by splitting a parent,
 * which is collective over the parent, so the twin is split off inside the
 * MPI call that is itself collective over the parent — the only moment
 * every rank of the parent is there.  (With a group-collective
 * plx_comm_create the split could move to the first collective.)  The
 * colour is the parent rank of the new communicator's rank 0 and the key
 * the new rank, which works for every kind of creating call (dup, split,
 * split_type, create, cart/graph) without knowing its arguments.
 * Intercommunicators, and communicators made by calls collective over
 * something else (MPI_Comm_create_group, MPI_Intercomm_merge, spawn,
 * MPI_Comm_idup), get no twin: their collectives stay with MPI.
 *
 * A twin is freed when the MPI communicator is freed and no routed call
 * or request on it is still in flight (refs).
 */
#include "layer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int keyval = MPI_KEYVAL_INVALID;
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
    (void)comm; (void)kv; (void)extra;
    pm_mirror_t *m = attr;
    pthread_mutex_lock(&lock);
    m->mpi_freed = 1;
    pthread_mutex_unlock(&lock);
    pm_mirror_unref(m);
    return MPI_SUCCESS;
}

static int attach(MPI_Comm comm, plx_comm_t pc, int is_world)
{
    pm_mirror_t *m = calloc(1, sizeof *m);
    if (!m) return MPI_ERR_NO_MEM;
    m->pc = pc;
    m->is_world = is_world;
    atomic_init(&m->refs, 1);
    plx_comm_size(pc, &m->size);
    pthread_mutex_lock(&lock);
    m->next = all;
    all = m;
    pthread_mutex_unlock(&lock);
    int rc = PMPI_Comm_set_attr(comm, keyval, m);
    if (rc != MPI_SUCCESS) pm_mirror_unref(m);
    return rc;
}

int pm_mirror_init(void)
{
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
    if (rc != MPI_SUCCESS) return rc;
    plx_comm_t world;
    if (plx_comm_world(pm.ctx, &world) != PLX_SUCCESS) return MPI_ERR_INTERN;
    return attach(MPI_COMM_WORLD, world, 1);
}

pm_mirror_t *pm_mirror_get(MPI_Comm comm)
{
    if (!pm.active || comm == MPI_COMM_NULL) return NULL;
    void *v = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag || !v) return NULL;
    pm_mirror_t *m = v;
    /* the attribute's own reference keeps m alive while comm exists */
    atomic_fetch_add(&m->refs, 1);
    return m;
}

int pm_mirror_derive(MPI_Comm parent, MPI_Comm newcomm)
{
    pm_mirror_t *pm_parent = pm_mirror_get(parent);
    if (!pm_parent) return MPI_SUCCESS;
    int color = PLX_UNDEFINED, key = 0, inter = 0;
    if (newcomm != MPI_COMM_NULL) PMPI_Comm_test_inter(newcomm, &inter);
    if (newcomm != MPI_COMM_NULL && !inter) {
        MPI_Group g_new, g_parent;
        int zero = 0, first = MPI_UNDEFINED;
        PMPI_Comm_group(newcomm, &g_new);
        PMPI_Comm_group(parent, &g_parent);
        PMPI_Group_translate_ranks(g_new, 1, &zero, g_parent, &first);
        PMPI_Group_free(&g_new);
        PMPI_Group_free(&g_parent);
        PMPI_Comm_rank(newcomm, &key);
        if (first != MPI_UNDEFINED) color = first;
    }
    plx_comm_t pc = NULL;
    plx_status_t st = plx_comm_split(pm_parent->pc, color, key, &pc);
    pm_mirror_unref(pm_parent);
    if (st != PLX_SUCCESS) return pm_raise(parent, st);
    if (!pc) return MPI_SUCCESS;
    return attach(newcomm, pc, 0);
}

void pm_mirror_finalize(void)
{
    /* MPI_COMM_WORLD's attribute would otherwise be deleted inside
     * PMPI_Finalize, after plx_finalize; communicators the application did
     * not free lose their twin here (plx_finalize frees the Plexus side). */
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    pthread_mutex_lock(&lock);
    for (pm_mirror_t *m = all; m; m = m->next) m->pc = NULL;
    pthread_mutex_unlock(&lock);
    PMPI_Comm_free_keyval(&keyval);
}
