/*
 * lib/core/half.h — float16 (IEEE 754 binary16) and bfloat16 <-> float
 * conversions, used by the reduction kernels (reduce.c) and the tests.
 *
 * All four are static inline and branch-free (bit masks, integer ops and
 * a few float multiplies/adds by powers of two) so that a loop calling them
 * vectorises with plain SSE2.  gcc 12's _Float16 is no alternative on
 * baseline x86-64: every conversion is a libgcc call (about 50 ns/element
 * measured), and even with -mf16c gcc 12 does not vectorise it.
 *
 * Guarantees:
 *  - half -> float is exact for every one of the 65536 bit patterns; NaN
 *    sign and payload are kept (a float16 signalling NaN comes out quiet).
 *  - float -> half rounds to nearest, ties to even; too large -> +-Inf;
 *    results below half the smallest half subnormal -> +-0 (sign kept);
 *    NaN -> quiet NaN of the same sign keeping the top payload bits.
 *  - so half -> float -> half returns the same bits for every non-NaN and
 *    every quiet NaN pattern; a signalling NaN comes back quiet.
 * Requirements: float arithmetic in float precision (SSE, NEON...; not x87
 * excess precision) in the default round-to-nearest mode, since the float16
 * paths let the FPU do the rounding.  FTZ/DAZ change nothing on the float16
 * paths (every float they touch is normal or rounds to +-0 anyway).
 */
#ifndef PLX_HALF_H
#define PLX_HALF_H

#include <float.h>
#include <stdint.h>
#include <string.h>

/* The float16 paths rely on float ops rounding to float precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "half.h needs FLT_EVAL_METHOD == 0 (on 32-bit x86 build with -msse2 -mfpmath=sse)"
#endif

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
 * sinks the (trapping) float ops into a branch and then, under the default
 * -ftrapping-math, will not if-convert them back, so the loop stays scalar.
 * Masks keep the float ops unconditional.  Compares below are on values
 * < 2^31 cast to int32_t: SSE2 has signed 32-bit compares only.
 */
static inline uint32_t plx_sel32(int c, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* ---- float16 ----------------------------------------------------------- */

static inline float plx_f16_to_f32(uint16_t h)
{
    uint32_t w    = (uint32_t)h << 16;
    uint32_t sign = w & 0x80000000u;
    uint32_t em   = (w << 1) >> 17;                      /* exponent | mantissa */
    /* Normal, Inf, NaN: fields up, exponent + 224 (so 31 -> 255), then
     * * 2^-112 rebias; exact for finite values, Inf stays Inf, NaN NaN. */
    float norm = plx_f32_from_bits((em << 13) + (224u << 23)) * 0x1p-112f;
    /* Zero/subnormal: m * 2^-24 == (0.5 + m * 2^-24) - 0.5, both steps exact. */
    float sub  = plx_f32_from_bits(0x3f000000u | em) - 0.5f;
    /* em < 2^15, so a signed compare is exact (SSE2 has no unsigned one). */
    uint32_t r = plx_sel32((int32_t)em < 0x0400, plx_f32_bits(sub), plx_f32_bits(norm));
    return plx_f32_from_bits(sign | r);
}

static inline uint16_t plx_f32_to_f16(float f)
{
    uint32_t x    = plx_f32_bits(f);
    uint32_t a    = x & 0x7fffffffu;                     /* |f| as bits */
    /* |f| * 4, or Inf when |f| >= 2^16 (the first product overflows). */
    float base = (plx_f32_from_bits(a) * 0x1p+112f) * 0x1p-110f;
    /*
     * Add 2^(e+15), e = exponent of |f| but at least -14: the sum's float
     * ulp is then 4x the half ulp, so the float adder rounds to nearest
     * even at half precision (subnormals included).  The sum's fraction
     * holds the half mantissa with its implicit bit at bit 10 (none for
     * subnormals) and the low 5 bits of its exponent hold the half exponent
     * minus one: adding the two gives the half's bits, a rounding carry
     * included (65520 -> Inf).
     */
    uint32_t e = a & 0x7f800000u;
    e          = plx_sel32((int32_t)e < 0x38800000, 0x38800000u, e);
    float sum  = base + plx_f32_from_bits(e + (15u << 23));
    uint32_t s = plx_f32_bits(sum);
    /* Assemble the half in the top 16 bits and shift once at the end:
     * one 32->16 narrowing for the vectoriser instead of one per term. */
    uint32_t hi = ((s << 3) & 0x7c000000u) + ((s << 16) & 0x0fff0000u);
    /* NaN: quiet, top payload bits kept. */
    hi = plx_sel32((int32_t)a > 0x7f800000, 0x7e000000u | ((a << 3) & 0x03ff0000u), hi);
    return (uint16_t)((hi | (x & 0x80000000u)) >> 16);
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
    uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
    /* NaN: force quiet (truncation alone could turn it into Inf).  Select
     * on 32 bits and shift once: a single narrowing when vectorised. */
    uint32_t r = plx_sel32((int32_t)(x & 0x7fffffffu) > 0x7f800000, x | 0x00400000u, rounded);
    return (uint16_t)(r >> 16);
}

#endif /* PLX_HALF_H */
