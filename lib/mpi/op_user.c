/*
 * lib/mpi/op_user.c — MPI_Op_create'd ops as Plexus user ops.
 *
 * MPI_Op_create is intercepted to remember the user function (MPI gives
 * no way to read it back).  A routed reduction with such an op and a
 * predefined datatype gets a Plexus op made at its first use, one per
 * (MPI op, datatype) pair, so the callback can hand the user function the
 * very datatype the application passed.  Routing decisions agree on every
 * rank, so every rank makes its twins in the same order (Plexus asks for
 * that).  MPI_Op_free frees the twins; calls already started finish.
 */
#include "layer.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct user_op {
    MPI_Op mop;
    MPI_User_function *fn;
    int commute;
    MPI_Datatype dt;        /* MPI_DATATYPE_NULL: the record of MPI_Op_create itself */
    long size;
    plx_op_t pop;
    struct user_op *next;
} user_op_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static user_op_t *ops;
static user_op_t *retired;  /* freed twins: calls in flight may still use them */
/* MPI_Op_create'd ops seen: none (most codes) spares every reduction with
 * MPI_LAND, MPI_MINLOC, ... the lock and the list */
static _Atomic int n_created;

/* Plexus' callback: in op inout in MPI's order; MPI counts are int */
static void call_user(const void *in, void *inout, size_t count, plx_dtype_t dtype, void *user)
{
    (void)dtype;
    user_op_t *u = user;
    const char *a = in;
    char *b = inout;
    while (count) {
        int n = count > INT_MAX ? INT_MAX : (int)count;
        MPI_Datatype dt = u->dt;
        u->fn((void *)a, b, &n, &dt);
        a += (size_t)n * (size_t)u->size;
        b += (size_t)n * (size_t)u->size;
        count -= (size_t)n;
    }
}

int pm_user_op(MPI_Op op, MPI_Datatype dt, plx_op_t *pop)
{
    if (!atomic_load_explicit(&n_created, memory_order_relaxed)) return 0;
    int found = 0;
    pthread_mutex_lock(&lock);
    user_op_t *base = NULL;
    for (user_op_t *u = ops; u && !found; u = u->next) {
        if (u->mop != op) continue;
        if (u->dt == dt) {
            *pop = u->pop;
            found = 1;
        } else if (u->dt == MPI_DATATYPE_NULL) {
            base = u;
        }
    }
    user_op_t *t = found || !base ? NULL : calloc(1, sizeof *t);
    if (t) {
        *t = *base;
        t->dt = dt;
        t->size = pm_type_size(dt);
        if (t->size > 0 && plx_op_create(call_user, t->commute, t, &t->pop) == PLX_SUCCESS) {
            t->next = ops;
            ops = t;
            *pop = t->pop;
            found = 1;
        } else {
            free(t);
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    int rc = PMPI_Op_create(user_fn, commute, op);
    if (rc != MPI_SUCCESS || !user_fn) return rc;
    user_op_t *u = calloc(1, sizeof *u);
    if (!u) return rc;                  /* the op then simply stays with MPI */
    u->mop = *op;
    u->fn = user_fn;
    u->commute = commute != 0;
    u->dt = MPI_DATATYPE_NULL;
    pthread_mutex_lock(&lock);
    u->next = ops;
    ops = u;
    atomic_store(&n_created, 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* drop op's records (all of them: NULL op) and free their Plexus twins;
 * a twin's record outlives it until MPI_Finalize (calls in flight) */
static void forget(const MPI_Op *op)
{
    pthread_mutex_lock(&lock);
    for (user_op_t **p = &ops; *p;) {
        user_op_t *u = *p;
        if (op && u->mop != *op) {
            p = &u->next;
            continue;
        }
        *p = u->next;
        if (u->dt != MPI_DATATYPE_NULL) {
            plx_op_free(&u->pop);
            u->next = retired;
            retired = u;
        } else {
            free(u);
        }
    }
    if (!op) {
        while (retired) {
            user_op_t *u = retired;
            retired = u->next;
            free(u);
        }
    }
    pthread_mutex_unlock(&lock);
}

int MPI_Op_free(MPI_Op *op)
{
    MPI_Op old = op ? *op : MPI_OP_NULL;
    int rc = PMPI_Op_free(op);
    if (rc == MPI_SUCCESS) forget(&old);
    return rc;
}

/* MPI_Finalize, after every bridged request is done */
void pm_user_ops_finalize(void) { forget(NULL); }
