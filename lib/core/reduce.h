/*
 * lib/core/reduce.h — local reduction kernels: combine two buffers element-wise
 * with a plx_op_t, for every plx_dtype_t.  Used by the collective
 * algorithms after each receive; no communication happens here.
 *
 * Semantics, for every entry point:
 *  - Integers wrap modulo 2^bits (sum, prod, and avg's sum); no UB.
 *  - BAND/BOR/BXOR exist only for the integer types (plx_op_valid).
 *  - AVG reduces exactly like SUM; the caller divides once at the end with
 *    plx_avg_finish (integers: the wrapped sum truncated toward zero).
 *  - float16/bfloat16: each element is widened to float (exact), combined
 *    in float and rounded back to nearest-even.  For SUM and PROD this is
 *    the correctly rounded half result (float has >= 2p+2 bits, so the
 *    double rounding is harmless).
 *  - MIN/MAX on float types are  a < b ? a : b  and  a > b ? a : b  with
 *    a = the first operand (inout, or a in the 3-operand form) and b the
 *    second (in, or b), compared as floats (also for float16/bfloat16, whose
 *    winning element is copied bit for bit).  NaN: when either element is
 *    NaN the result is the second operand's element, so a NaN arriving in
 *    b propagates and a NaN already in a is replaced; -0 vs +0 also gives
 *    the second operand.  Same as x86 minps/maxps, and deterministic for a
 *    fixed reduction order.
 *  - Float arithmetic runs in the caller's FPU mode: FTZ/DAZ (e.g. set by a
 *    -ffast-math program) flush float32/float64/bfloat16 subnormals;
 *    float16 results are the same either way.
 *  - Pointers should be aligned to the element size.  plx_reduce_local and
 *    plx_reduce_local3 also accept misaligned ones (slower, staged through
 *    an aligned stack buffer); a function from plx_reduce_fn does not.
 *  - Buffers must not overlap except for the exact aliases each function
 *    allows.  n == 0 or an invalid (dtype, op) does nothing.
 *  - User ops (plx_op_create, lib/core/user_op.h) go to the user's
 *    function through plx_reduce_local/plx_reduce_local3 with the operand
 *    order kept (first operand = lower ranks); plx_reduce_fn has no kernel
 *    for them (NULL).
 */
#ifndef PLX_REDUCE_H
#define PLX_REDUCE_H

#include <stddef.h>

#include "plexus.h"

/* inout[i] = inout[i] op in[i], i < n.  AVG behaves as SUM here (the caller
 * divides at the end).  inout and in must not overlap and must be aligned. */
typedef void (*plx_reduce_fn_t)(void *restrict inout, const void *restrict in, size_t n);

/* 1 if the combination is allowed (bitwise ops only on integer types); 0 for
 * that or for an out-of-range dtype or op. */
int plx_op_valid(plx_dtype_t dt, plx_op_t op);

/* The kernel for (dt, op); NULL if invalid. */
plx_reduce_fn_t plx_reduce_fn(plx_dtype_t dt, plx_op_t op);

/* inout[i] = inout[i] op in[i].  in == inout is allowed (x op x). */
void plx_reduce_local(void *inout, const void *in, size_t n, plx_dtype_t dt, plx_op_t op);

/* dst[i] = a[i] op b[i]; dst may equal a or b (exact alias), otherwise no
 * overlap.  a == b is allowed too.  Operand order is kept even when dst == b
 * (it matters for float MIN/MAX with NaN or signed zeros). */
void plx_reduce_local3(void *dst, const void *a, const void *b, size_t n, plx_dtype_t dt,
                       plx_op_t op);

/* AVG finalisation: buf[i] /= divisor (any alignment).  Integer types: integer division
 * truncating toward zero.  Floats: the exact quotient x / divisor rounded
 * once, computed in float for float16/bfloat16/float32 (then rounded to the
 * half type) and in double for float64.  divisor < 1 does nothing (caller
 * bug); divisor must be exact in float (<= 2^24) for the float types. */
void plx_avg_finish(void *buf, size_t n, plx_dtype_t dt, int divisor);

#endif /* PLX_REDUCE_H */
