/*
 * lib/api/op.c — the public calls for user-defined reduction ops,
 * plx_op_create and plx_op_free; the table itself is lib/core/user_op.c.
 */
#include "plx_internal.h"
#include "core/user_op.h"

plx_status_t plx_op_create(plx_op_fn_t fn, int commutative, void *user, plx_op_t *op)
{
    const char *name = "plx_op_create";
    if (!fn) return plx_bad_arg(name, "fn is NULL");
    if (!op) return plx_bad_arg(name, "op is NULL");
    return plx_user_op_register(fn, commutative, user, op);
}

plx_status_t plx_op_free(plx_op_t *op)
{
    const char *name = "plx_op_free";
    if (!op) return plx_bad_arg(name, "op is NULL");
    if (!plx_op_is_user(*op))
        return plx_bad_arg(name, "op %d is a built-in op (only plx_op_create's ops are freed)", (int)*op);
    if (plx_user_op_retire(*op) != PLX_SUCCESS)
        return plx_bad_arg(name, "op %d was not made by plx_op_create or is already freed", (int)*op);
    *op = PLX_OP_NULL;
    return PLX_SUCCESS;
}
