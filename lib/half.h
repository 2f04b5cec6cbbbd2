/*
 * lib/half.h — float16 (IEEE 754 binary16) and bfloat16 <-> float
 * conversions, used by the reduction kernels (reduce.c) and the tests.
 *
 * All four are static inline and branch-free (integer selects plus, for
 * float16 subnormals, one float add/sub) so that a loop calling them
 * vectorises with plain SSE2; gcc 12's _Float16 on baseline x86-64 goes
 * through libgcc calls instead, which never vectorise.
 *
 * Guarantees:
 *  - half -> float is exact for every one of the 65536 bit patterns
 *    (NaN payloads are kept; a signalling NaN stays signalling).
 *  - float -> half rounds to nearest, ties to even; too large -> +-Inf;
 *    results below the smallest half subnormal round to +-0 (sign kept);
 *    NaN -> quiet NaN of the same sign keeping the top payload bits.
 *  - so half -> float -> half returns the same bits for every non-NaN
 *    pattern, and quiet NaNs too; a signalling NaN comes back quiet.
 * Requirement: the float rounding mode is the default round-to-nearest (the
 * float16 subnormal path uses the FPU adder to round).  FTZ/DAZ do not
 * change any result: every float these routines compute or read on the
 * float16 path is either a normal float or rounds to +-0 anyway.
 */
#ifndef PLX_HALF_H
#define PLX_HALF_H

#include <stdint.h>
#include <string.h>

/* Bit casts (memcpy compiles to a plain move and is alias-safe). */
static inline uint32_t plx_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float plx_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/*
 * c ? a : b as a bit mask.  The float16 paths need it: with plain ?: gcc
 * sinks the (trapping) float add/sub into a branch and then, under the
 * default -ftrapping-math, will not if-convert it back, so the loop stays
 * scalar.  Masks keep the float op unconditional.
 */
static inline uint32_t plx_sel32(int c, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* ---- float16 ----------------------------------------------------------- */

static inline float plx_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t em   = h & 0x7fffu;                         /* exponent | mantissa */
    /* Normal: move the fields up and rebias the exponent 15 -> 127. */
    uint32_t norm = (em << 13) + ((127u - 15u) << 23);
    /* Inf/NaN: exponent 31 -> 255, payload kept (pure integer: no quieting). */
    uint32_t inf  = (em << 13) + ((255u - 31u) << 23);
    /* Zero/subnormal: m * 2^-24 == (0.5 + m * 2^-24) - 0.5, both steps exact. */
    uint32_t sub  = plx_f32_bits(plx_f32_from_bits(0x3f000000u | em) - 0.5f);
    uint32_t r    = plx_sel32(em < 0x0400u, sub, plx_sel32(em >= 0x7c00u, inf, norm));
    return plx_f32_from_bits(sign | r);
}

static inline uint16_t plx_f32_to_f16(float f)
{
    uint32_t x    = plx_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a    = x & 0x7fffffffu;                     /* |f| as bits */
    /*
     * Normal result: rebias, then add 0xfff plus the lowest kept bit and
     * drop 13 bits: round to nearest, ties to even.  A carry out of the
     * mantissa bumps the exponent, which is the right answer, up to and
     * including Inf for 65520 <= |f| < 65536.  (Wraps harmlessly for
     * inputs that take another branch.)
     */
    uint32_t norm = (a - ((127u - 15u) << 23) + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    /*
     * |f| < 2^-14 (half subnormal or zero): 0.5f has an ulp of 2^-24, the
     * half subnormal step, so the float adder rounds |f| onto that grid
     * (nearest even); the low mantissa bits are then the half's bits.  A
     * round-up to 2^-14 gives 0x400, the smallest normal: also right.
     */
    uint32_t sub  = plx_f32_bits(plx_f32_from_bits(a) + 0.5f) - 0x3f000000u;
    /* NaN: keep the top payload bits, force quiet so it never becomes Inf. */
    uint32_t nan  = 0x7e00u | ((a >> 13) & 0x03ffu);
    uint32_t r    = plx_sel32(a < 0x38800000u, sub,          /* < 2^-14 */
                    plx_sel32(a < 0x47800000u, norm,         /* < 2^16 */
                    plx_sel32(a <= 0x7f800000u, 0x7c00u,     /* overflow: Inf */
                              nan)));
    return (uint16_t)(sign | r);
}

/* ---- bfloat16 ---------------------------------------------------------- */

/* bfloat16 is the top half of a float: exact, subnormals and NaNs included. */
static inline float plx_bf16_to_f32(uint16_t b)
{
    return plx_f32_from_bits((uint32_t)b << 16);
}

static inline uint16_t plx_f32_to_bf16(float f)
{
    uint32_t x = plx_f32_bits(f);
    /* Nearest even: add 0x7fff plus the lowest kept bit, drop 16 bits.  The
     * carry handles mantissa overflow, the largest floats round to Inf, and
     * subnormals need nothing special (same exponent range as float). */
    uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    /* NaN: truncate and force quiet, else a low-payload NaN would become Inf. */
    uint32_t nan     = (x >> 16) | 0x0040u;
    return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

#endif /* PLX_HALF_H */
