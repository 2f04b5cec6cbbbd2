/*
 * lib/api/dtype.c — element sizes and names of the public datatypes and ops
 * (plx_dtype_size, plx_dtype_name, plx_op_name from plexus.h).
 */
#include "plx_internal.h"
#include "core/user_op.h"

/* The sizes are plx_internal.h's PLX_DTYPE_LOG2_SIZES (inline for the hot
 * path); a new datatype needs its nibble there. */
_Static_assert(PLX_DTYPE_COUNT == 10, "PLX_DTYPE_LOG2_SIZES has a nibble for each of 10 datatypes");

/* Designated initialisers keep each entry next to its enum value. */
static const char *const dtype_names[PLX_DTYPE_COUNT] = {
    [PLX_INT8] = "int8",       [PLX_UINT8] = "uint8",       [PLX_INT32] = "int32",
    [PLX_UINT32] = "uint32",   [PLX_INT64] = "int64",       [PLX_UINT64] = "uint64",
    [PLX_FLOAT16] = "float16", [PLX_BFLOAT16] = "bfloat16", [PLX_FLOAT32] = "float32",
    [PLX_FLOAT64] = "float64",
};

static const char *const op_names[PLX_OP_COUNT] = {
    [PLX_SUM] = "sum", [PLX_PROD] = "prod", [PLX_MIN] = "min", [PLX_MAX] = "max",
    [PLX_AVG] = "avg", [PLX_BAND] = "band", [PLX_BOR] = "bor", [PLX_BXOR] = "bxor",
};

/* The unsigned compare also rejects negative values cast into the enum. */
size_t plx_dtype_size(plx_dtype_t dtype)
{
    return plx_dtype_size_fast(dtype);
}

const char *plx_dtype_name(plx_dtype_t dtype)
{
    return (unsigned)dtype < PLX_DTYPE_COUNT ? dtype_names[dtype] : "unknown";
}

const char *plx_op_name(plx_op_t op)
{
    if (plx_user_op_get(op)) return "user";   /* plx_op_create's handles, freed ones too */
    return (unsigned)op < PLX_OP_COUNT ? op_names[op] : "unknown";
}
