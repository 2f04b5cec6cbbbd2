/*
 * lib/core/user_op.c — the process-wide table of user-defined reduction
 * ops behind lib/core/user_op.h.
 *
 * The table is a fixed array of chunk pointers; chunks are allocated as
 * slots are handed out and never moved or freed, so readers (the reduction
 * kernels, on any thread, with or without a context lock) need no lock:
 * a slot's fields are written before its state is published with a
 * release store.  Creating and freeing take one mutex.
 */
#include "core/user_op.h"

#include <pthread.h>
#include <stdlib.h>

#define CHUNK_SLOTS 256
#define MAX_CHUNKS  64          /* 16384 ops over a process's lifetime */

enum { SLOT_EMPTY = 0, SLOT_LIVE, SLOT_FREED };

typedef struct slot {
    plx_user_op_t op;
    int state;                  /* SLOT_*, read with acquire */
} slot_t;

static slot_t *chunks[MAX_CHUNKS];
static unsigned next_slot;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;

static slot_t *slot_of(plx_op_t op)
{
    if (!plx_op_is_user(op)) return NULL;
    unsigned i = (unsigned)op - PLX_OP_USER_BASE;
    if (i >= (unsigned)CHUNK_SLOTS * MAX_CHUNKS) return NULL;
    slot_t *c = __atomic_load_n(&chunks[i / CHUNK_SLOTS], __ATOMIC_ACQUIRE);
    return c ? &c[i % CHUNK_SLOTS] : NULL;
}

plx_status_t plx_user_op_register(plx_op_fn_t fn, int commutative, void *user, plx_op_t *op)
{
    plx_status_t st = PLX_SUCCESS;
    pthread_mutex_lock(&table_mu);
    unsigned i = next_slot;
    if (i >= (unsigned)CHUNK_SLOTS * MAX_CHUNKS) {
        st = PLX_ERR_NO_MEMORY;
        goto out;
    }
    slot_t *c = chunks[i / CHUNK_SLOTS];
    if (!c) {
        c = calloc(CHUNK_SLOTS, sizeof *c);
        if (!c) {
            st = PLX_ERR_NO_MEMORY;
            goto out;
        }
        __atomic_store_n(&chunks[i / CHUNK_SLOTS], c, __ATOMIC_RELEASE);
    }
    slot_t *sl = &c[i % CHUNK_SLOTS];
    sl->op = (plx_user_op_t){ fn, user, commutative ? 1 : 0 };
    __atomic_store_n(&sl->state, SLOT_LIVE, __ATOMIC_RELEASE);
    next_slot = i + 1;
    *op = (plx_op_t)(PLX_OP_USER_BASE + i);
out:
    pthread_mutex_unlock(&table_mu);
    return st;
}

plx_status_t plx_user_op_retire(plx_op_t op)
{
    plx_status_t st = PLX_ERR_INVALID_ARG;
    pthread_mutex_lock(&table_mu);
    slot_t *sl = slot_of(op);
    if (sl && __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_LIVE) {
        __atomic_store_n(&sl->state, SLOT_FREED, __ATOMIC_RELEASE);
        st = PLX_SUCCESS;
    }
    pthread_mutex_unlock(&table_mu);
    return st;
}

const plx_user_op_t *plx_user_op_live(plx_op_t op)
{
    slot_t *sl = slot_of(op);
    return sl && __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_LIVE ? &sl->op : NULL;
}

const plx_user_op_t *plx_user_op_get(plx_op_t op)
{
    slot_t *sl = slot_of(op);
    return sl && __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SLOT_EMPTY ? &sl->op : NULL;
}

int plx_op_commutative(plx_op_t op)
{
    if (!plx_op_is_user(op)) return 1;
    const plx_user_op_t *u = plx_user_op_get(op);
    return u ? u->commutative : 1;
}
