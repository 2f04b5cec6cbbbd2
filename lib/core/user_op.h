/*
 * lib/core/user_op.h — the registry of user-defined reduction ops
 * (plx_op_create / plx_op_free in include/plexus.h).
 *
 * A user op is a plx_op_t value >= PLX_OP_USER_BASE naming one slot of a
 * process-wide table: the user's function, its pointer argument and whether
 * it commutes.  Slots are never reused, so a handle freed while collectives
 * that use it are still in flight keeps working for them (plx_op_free only
 * stops new calls from using it), and a stale handle is always detected.
 * Lookups take no lock: a slot is written once, then published.
 */
#ifndef PLX_USER_OP_H
#define PLX_USER_OP_H

#include "plexus.h"

typedef struct plx_user_op {
    plx_op_fn_t fn;
    void *user;
    int commutative;
} plx_user_op_t;

/* 1 if op is in the user range (valid or not). */
static inline int plx_op_is_user(plx_op_t op) { return (unsigned)op >= PLX_OP_USER_BASE; }

/* A new slot; PLX_ERR_NO_MEMORY when the table is full. */
plx_status_t plx_user_op_register(plx_op_fn_t fn, int commutative, void *user, plx_op_t *op);
/* Mark op freed; PLX_ERR_INVALID_ARG if it is not a live user op. */
plx_status_t plx_user_op_retire(plx_op_t op);

/* The op's slot if it is live (created and not freed), else NULL: what the
 * argument checks use. */
const plx_user_op_t *plx_user_op_live(plx_op_t op);
/* The op's slot even after plx_op_free (collectives already started keep
 * using it); NULL if it was never created: what the kernels use. */
const plx_user_op_t *plx_user_op_get(plx_op_t op);

/* 1 for every built-in op and for user ops created commutative. */
int plx_op_commutative(plx_op_t op);

#endif /* PLX_USER_OP_H */
