/*
 * tests/unit/test_reduce.c — unit tests for the datatype table (dtype.c),
 * the float16/bfloat16 conversions (half.h) and the reduction kernels
 * (reduce.c).
 *
 * Every kernel result is compared with a straightforward scalar reference
 * written here independently of the library: integers through uint64_t,
 * half types decoded/rounded with frexp/ldexp/nearbyint in double.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "plexus.h"
#include "core/reduce.h"

/* ---- helpers ----------------------------------------------------------- */

/* splitmix64: small, seedable, state kept by the caller. */
typedef struct { uint64_t s; } rng_t;

static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const size_t lengths[] = { 0, 1, 3, 7, 8, 15, 16, 17, 33, 1000, (size_t)1 << 16 };
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])
#define MAX_LEN ((size_t)1 << 16)

static int is_float(plx_dtype_t dt)
{
    return dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64;
}

static int is_signed_int(plx_dtype_t dt)
{
    return dt == PLX_INT8 || dt == PLX_INT32 || dt == PLX_INT64;
}

/* ck_assert* write a checkpoint to Check's pipe on every call (a syscall),
 * which makes million-iteration loops crawl: loops use this instead. */
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                 \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* ---- reference half formats -------------------------------------------- */

struct hfmt {
    int p;          /* significand bits including the implicit one */
    int emin, emax; /* exponent range of normal numbers (emax is also the bias) */
    uint16_t inf, qnan;
};
static const struct hfmt F16 = { 11, -14, 15, 0x7c00, 0x7e00 };
static const struct hfmt BF16 = { 8, -126, 127, 0x7f80, 0x7fc0 };

static double ref_decode(uint16_t h, const struct hfmt *F)
{
    int mbits = F->p - 1;
    unsigned emask = (1u << (15 - mbits)) - 1;
    unsigned e = (h >> mbits) & emask, m = h & ((1u << mbits) - 1);
    double v;
    if (e == 0)
        v = ldexp(m, F->emin - mbits);
    else if (e == emask)
        v = m ? NAN : INFINITY;
    else
        v = ldexp((double)((1u << mbits) | m), (int)e - F->emax - mbits);
    return (h & 0x8000) ? -v : v;
}

/* x rounded to the format (nearest even, overflow to Inf), as a double. */
static double ref_round(double x, const struct hfmt *F)
{
    if (isnan(x) || isinf(x) || x == 0) return x;
    double ax = fabs(x);
    int e;
    frexp(ax, &e);
    int lead = e - 1 < F->emin ? F->emin : e - 1;
    double q = ldexp(1.0, lead - (F->p - 1));   /* spacing of the format at ax */
    double r = nearbyint(ax / q) * q;           /* default mode: ties to even */
    double maxv = ldexp(2.0 - ldexp(1.0, 1 - F->p), F->emax);
    if (r > maxv) r = INFINITY;
    return copysign(r, x);
}

/* Bits of a value that is exactly representable in the format. */
static uint16_t ref_encode(double v, const struct hfmt *F)
{
    uint16_t s = signbit(v) ? 0x8000 : 0;
    if (isnan(v)) return s | F->qnan;
    if (isinf(v)) return s | F->inf;
    v = fabs(v);
    if (v == 0) return s;
    int e, mbits = F->p - 1;
    frexp(v, &e);
    int lead = e - 1;
    if (lead < F->emin) return s | (uint16_t)ldexp(v, mbits - F->emin);
    unsigned mant = (unsigned)ldexp(v, mbits - lead) - (1u << mbits);
    return s | (uint16_t)(((unsigned)(lead + F->emax) << mbits) | mant);
}

static uint16_t ref_from_float(double x, const struct hfmt *F)
{
    return ref_encode(ref_round(x, F), F);
}

static int half_isnan(uint16_t h, const struct hfmt *F)
{
    return (h & 0x7fff) > F->inf;
}

/* ---- reference element ops -------------------------------------------- */

static uint64_t load_u(const void *p, size_t es)
{
    uint8_t u8; uint32_t u32; uint64_t u64;
    switch (es) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: { uint16_t u16; memcpy(&u16, p, 2); return u16; }
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void store_u(void *p, uint64_t v, size_t es)
{
    uint8_t u8 = (uint8_t)v; uint16_t u16 = (uint16_t)v; uint32_t u32 = (uint32_t)v;
    switch (es) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static int64_t sext(uint64_t u, size_t es)
{
    unsigned bits = (unsigned)(es * 8);
    if (bits == 64) return (int64_t)u;
    uint64_t sign = (uint64_t)1 << (bits - 1);
    return (int64_t)((u ^ sign) - sign);    /* no implementation-defined casts */
}

static const struct hfmt *half_fmt(plx_dtype_t dt)
{
    return dt == PLX_FLOAT16 ? &F16 : &BF16;
}

/* *r = *a op *b, the slow obvious way. */
static void ref_elem(plx_dtype_t dt, plx_op_t op, const void *pa, const void *pb, void *pr)
{
    if (op == PLX_AVG) op = PLX_SUM;
    switch (dt) {
    case PLX_FLOAT32: {
        float a, b, r = 0;
        memcpy(&a, pa, 4); memcpy(&b, pb, 4);
        if (op == PLX_SUM) r = a + b;
        else if (op == PLX_PROD) r = a * b;
        else if (op == PLX_MIN) r = a < b ? a : b;
        else if (op == PLX_MAX) r = a > b ? a : b;
        memcpy(pr, &r, 4);
        return;
    }
    case PLX_FLOAT64: {
        double a, b, r = 0;
        memcpy(&a, pa, 8); memcpy(&b, pb, 8);
        if (op == PLX_SUM) r = a + b;
        else if (op == PLX_PROD) r = a * b;
        else if (op == PLX_MIN) r = a < b ? a : b;
        else if (op == PLX_MAX) r = a > b ? a : b;
        memcpy(pr, &r, 8);
        return;
    }
    case PLX_FLOAT16:
    case PLX_BFLOAT16: {
        const struct hfmt *F = half_fmt(dt);
        uint16_t a, b, r = 0;
        memcpy(&a, pa, 2); memcpy(&b, pb, 2);
        double da = ref_decode(a, F), db = ref_decode(b, F);
        if (op == PLX_MIN) r = da < db ? a : b;
        else if (op == PLX_MAX) r = da > db ? a : b;
        else {
            float fa = (float)da, fb = (float)db;   /* exact */
            float fr = op == PLX_SUM ? fa + fb : fa * fb;
            r = ref_from_float(fr, F);
        }
        memcpy(pr, &r, 2);
        return;
    }
    default: {
        size_t es = plx_dtype_size(dt);
        uint64_t ua = load_u(pa, es), ub = load_u(pb, es), r = 0;
        int64_t sa = sext(ua, es), sb = sext(ub, es);
        int sgn = is_signed_int(dt);
        switch (op) {
        case PLX_SUM: r = ua + ub; break;
        case PLX_PROD: r = ua * ub; break;   /* mod 2^64, so mod 2^bits too */
        case PLX_MIN: r = (sgn ? sa < sb : ua < ub) ? ua : ub; break;
        case PLX_MAX: r = (sgn ? sa > sb : ua > ub) ? ua : ub; break;
        case PLX_BAND: r = ua & ub; break;
        case PLX_BOR: r = ua | ub; break;
        case PLX_BXOR: r = ua ^ ub; break;
        default: break;
        }
        store_u(pr, r, es);
        return;
    }
    }
}

/* Same bits, or both NaN (payload choice of a NaN result is not specified). */
static int elem_same(plx_dtype_t dt, const void *p, const void *q)
{
    size_t es = plx_dtype_size(dt);
    if (memcmp(p, q, es) == 0) return 1;
    if (dt == PLX_FLOAT32) {
        float a, b; memcpy(&a, p, 4); memcpy(&b, q, 4);
        return isnan(a) && isnan(b);
    }
    if (dt == PLX_FLOAT64) {
        double a, b; memcpy(&a, p, 8); memcpy(&b, q, 8);
        return isnan(a) && isnan(b);
    }
    if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) {
        const struct hfmt *F = half_fmt(dt);
        return half_isnan((uint16_t)load_u(p, 2), F) && half_isnan((uint16_t)load_u(q, 2), F);
    }
    return 0;
}

/* ---- random data ------------------------------------------------------- */

static float rand_f32(rng_t *r)
{
    static const float spec[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX,
                                  -FLT_MAX, FLT_MIN, 1e-40f, 1.0f, -1.0f };
    uint64_t x = rng_next(r);
    switch (x & 15) {
    case 0: return spec[(x >> 8) % (sizeof spec / sizeof spec[0])];
    case 1: return plx_f32_from_bits((uint32_t)(x >> 32));
    default: {
        uint32_t sign = (uint32_t)(x >> 63) << 31;
        uint32_t e = 127 - 20 + (uint32_t)((x >> 40) % 41);
        return plx_f32_from_bits(sign | e << 23 | ((uint32_t)(x >> 8) & 0x7fffff));
    }
    }
}

static double rand_f64(rng_t *r)
{
    static const double spec[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, DBL_MAX,
                                   -DBL_MAX, DBL_MIN, 1e-310, 1.0, -1.0 };
    uint64_t x = rng_next(r);
    switch (x & 15) {
    case 0: return spec[(x >> 8) % (sizeof spec / sizeof spec[0])];
    case 1: { double d; uint64_t y = rng_next(r); memcpy(&d, &y, 8); return d; }
    default: {
        uint64_t y = rng_next(r);
        uint64_t sign = (x >> 63) << 63;
        uint64_t e = 1023 - 40 + (x >> 40) % 81;
        y = sign | e << 52 | (y & 0xfffffffffffffull);
        double d; memcpy(&d, &y, 8);
        return d;
    }
    }
}

static void fill(plx_dtype_t dt, void *buf, size_t n, rng_t *r)
{
    unsigned char *p = buf;
    size_t es = plx_dtype_size(dt);
    for (size_t i = 0; i < n; i++, p += es) {
        if (dt == PLX_FLOAT32) { float f = rand_f32(r); memcpy(p, &f, 4); }
        else if (dt == PLX_FLOAT64) { double d = rand_f64(r); memcpy(p, &d, 8); }
        else store_u(p, rng_next(r), es);   /* ints and halves: any bit pattern */
    }
}

/* ---- dtype.c ----------------------------------------------------------- */

START_TEST(test_dtype_table)
{
    static const size_t sizes[PLX_DTYPE_COUNT] = { 1, 1, 4, 4, 8, 8, 2, 2, 4, 8 };
    static const char *const dn[PLX_DTYPE_COUNT] = { "int8", "uint8", "int32", "uint32",
        "int64", "uint64", "float16", "bfloat16", "float32", "float64" };
    static const char *const on[PLX_OP_COUNT] = { "sum", "prod", "min", "max",
                                                  "avg", "band", "bor", "bxor" };
    for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
        ck_assert_uint_eq(plx_dtype_size((plx_dtype_t)d), sizes[d]);
        ck_assert_str_eq(plx_dtype_name((plx_dtype_t)d), dn[d]);
    }
    for (int o = 0; o < PLX_OP_COUNT; o++) ck_assert_str_eq(plx_op_name((plx_op_t)o), on[o]);
    ck_assert_uint_eq(plx_dtype_size(PLX_DTYPE_COUNT), 0);
    ck_assert_uint_eq(plx_dtype_size((plx_dtype_t)-1), 0);
    ck_assert_str_eq(plx_dtype_name(PLX_DTYPE_COUNT), "unknown");
    ck_assert_str_eq(plx_dtype_name((plx_dtype_t)-1), "unknown");
    ck_assert_str_eq(plx_op_name(PLX_OP_COUNT), "unknown");
    ck_assert_str_eq(plx_op_name((plx_op_t)-1), "unknown");
}
END_TEST

/* ---- validity ---------------------------------------------------------- */

START_TEST(test_valid_combos)
{
    for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
        for (int o = 0; o < PLX_OP_COUNT; o++) {
            plx_dtype_t dt = (plx_dtype_t)d;
            plx_op_t op = (plx_op_t)o;
            int bitwise = op == PLX_BAND || op == PLX_BOR || op == PLX_BXOR;
            int want = !(bitwise && is_float(dt));
            CHECK(plx_op_valid(dt, op) == want, "%s %s", plx_dtype_name(dt),
                          plx_op_name(op));
            CHECK((plx_reduce_fn(dt, op) != NULL) == want, "%s %s",
                          plx_dtype_name(dt), plx_op_name(op));
        }
        /* AVG reduces as SUM */
        ck_assert(plx_reduce_fn((plx_dtype_t)d, PLX_AVG) == plx_reduce_fn((plx_dtype_t)d, PLX_SUM));
    }
    ck_assert(!plx_op_valid(PLX_DTYPE_COUNT, PLX_SUM));
    ck_assert(!plx_op_valid((plx_dtype_t)-1, PLX_SUM));
    ck_assert(!plx_op_valid(PLX_INT32, PLX_OP_COUNT));
    ck_assert(!plx_op_valid(PLX_INT32, (plx_op_t)-1));
    ck_assert(plx_reduce_fn(PLX_DTYPE_COUNT, PLX_SUM) == NULL);
    ck_assert(plx_reduce_fn(PLX_INT32, PLX_OP_COUNT) == NULL);
}
END_TEST

/* Invalid combinations leave every buffer untouched. */
START_TEST(test_invalid_noop)
{
    double x[4] = { 1, 2, 3, 4 }, y[4] = { 5, 6, 7, 8 }, d[4] = { 9, 9, 9, 9 };
    const double x0[4] = { 1, 2, 3, 4 }, d0[4] = { 9, 9, 9, 9 };
    plx_reduce_local(x, y, 4, PLX_FLOAT64, PLX_BXOR);
    plx_reduce_local(x, y, 4, PLX_DTYPE_COUNT, PLX_SUM);
    plx_reduce_local(x, y, 4, PLX_FLOAT64, PLX_OP_COUNT);
    plx_reduce_local3(d, x, y, 4, PLX_FLOAT64, PLX_BAND);
    plx_reduce_local3(d, x, y, 4, (plx_dtype_t)-1, PLX_SUM);
    plx_avg_finish(x, 4, PLX_DTYPE_COUNT, 2);
    ck_assert(memcmp(x, x0, sizeof x) == 0);
    ck_assert(memcmp(d, d0, sizeof d) == 0);
    /* n == 0 never touches the pointers */
    plx_reduce_local(NULL, NULL, 0, PLX_FLOAT32, PLX_SUM);
    plx_reduce_local3(NULL, NULL, NULL, 0, PLX_FLOAT32, PLX_SUM);
    plx_avg_finish(NULL, 0, PLX_FLOAT32, 3);
}
END_TEST

/* ---- kernels against the reference ------------------------------------ */

enum variant { V_FN, V_LOCAL, V_3, V_3_DST_A, V_3_DST_B, V_3_A_B, V_3_ALL, V_LOCAL_SELF, V_COUNT };
static const char *const vnames[V_COUNT] = { "fn", "local", "local3", "local3 dst==a",
    "local3 dst==b", "local3 a==b", "local3 dst==a==b", "local x==x" };

/* Checks out[i] against expect[i] inside [off, off+n) and against the
 * destination's original contents (orig) outside: nothing else written. */
static void check_out(plx_dtype_t dt, plx_op_t op, int v, size_t n, size_t off,
                      const unsigned char *out, const unsigned char *expect,
                      const unsigned char *orig)
{
    size_t es = plx_dtype_size(dt);
    for (size_t i = 0; i < n + 2; i++) {
        int inside = i >= off && i < off + n;
        const unsigned char *want = (inside ? expect : orig) + i * es;
        int ok = inside ? elem_same(dt, out + i * es, want)
                        : memcmp(out + i * es, want, es) == 0;
        if (!ok) {
            uint64_t got = load_u(out + i * es, es), w = load_u(want, es);
            ck_abort_msg("%s %s %s n=%zu off=%zu: element %zu is 0x%llx, want 0x%llx%s",
                         plx_dtype_name(dt), plx_op_name(op), vnames[v], n, off, i,
                         (unsigned long long)got, (unsigned long long)w,
                         inside ? "" : " (outside the range: must be untouched)");
        }
    }
}

START_TEST(test_kernels)
{
    plx_dtype_t dt = (plx_dtype_t)_i;
    size_t es = plx_dtype_size(dt), cap = (MAX_LEN + 2) * es;
    rng_t rng = { 0x5eed0000u + (uint64_t)_i };
    unsigned char *a = xmalloc(cap), *b = xmalloc(cap), *x = xmalloc(cap);
    unsigned char *e_ab = xmalloc(cap), *e_aa = xmalloc(cap), *canary = xmalloc(cap);
    memset(canary, 0xa5, cap);

    for (int o = 0; o < PLX_OP_COUNT; o++) {
        plx_op_t op = (plx_op_t)o;
        if (!plx_op_valid(dt, op)) continue;
        plx_reduce_fn_t fn = plx_reduce_fn(dt, op);
        for (size_t li = 0; li < N_LENGTHS; li++) {
            for (size_t off = 0; off <= 1; off++) {   /* off 1: one element past the malloc alignment */
                size_t n = lengths[li];
                fill(dt, a, n + 2, &rng);
                fill(dt, b, n + 2, &rng);
                for (size_t i = off; i < off + n; i++) {
                    ref_elem(dt, op, a + i * es, b + i * es, e_ab + i * es);
                    ref_elem(dt, op, a + i * es, a + i * es, e_aa + i * es);
                }
                unsigned char *xo = x + off * es;
                const unsigned char *ao = a + off * es, *bo = b + off * es;
                for (int v = 0; v < V_COUNT; v++) {
                    const unsigned char *orig = a, *expect = e_ab;
                    switch (v) {
                    case V_FN:
                        memcpy(x, a, cap);
                        fn(xo, bo, n);
                        break;
                    case V_LOCAL:
                        memcpy(x, a, cap);
                        plx_reduce_local(xo, bo, n, dt, op);
                        break;
                    case V_3:
                        memcpy(x, canary, cap); orig = canary;
                        plx_reduce_local3(xo, ao, bo, n, dt, op);
                        break;
                    case V_3_DST_A:
                        memcpy(x, a, cap);
                        plx_reduce_local3(xo, xo, bo, n, dt, op);
                        break;
                    case V_3_DST_B:   /* result must still be a op b, not b op a */
                        memcpy(x, b, cap); orig = b;
                        plx_reduce_local3(xo, ao, xo, n, dt, op);
                        break;
                    case V_3_A_B:
                        memcpy(x, canary, cap); orig = canary; expect = e_aa;
                        plx_reduce_local3(xo, ao, ao, n, dt, op);
                        break;
                    case V_3_ALL:
                        memcpy(x, a, cap); expect = e_aa;
                        plx_reduce_local3(xo, xo, xo, n, dt, op);
                        break;
                    case V_LOCAL_SELF:
                        memcpy(x, a, cap); expect = e_aa;
                        plx_reduce_local(xo, xo, n, dt, op);
                        break;
                    }
                    check_out(dt, op, v, n, off, x, expect, orig);
                }
            }
        }
    }
    free(a); free(b); free(x); free(e_ab); free(e_aa); free(canary);
}
END_TEST

/* Pointers not aligned to the element size: staged path, incl. several chunks. */
START_TEST(test_misaligned)
{
    plx_dtype_t dt = (plx_dtype_t)_i;
    size_t es = plx_dtype_size(dt);
    if (es == 1) return;
    static const size_t lens[] = { 1, 17, 1000, 5000 };
    rng_t rng = { 0xa11900u + (uint64_t)_i };
    size_t cap = 5000 * es + 16;
    unsigned char *a = xmalloc(cap), *b = xmalloc(cap), *x = xmalloc(cap), *e = xmalloc(cap);
    for (int o = 0; o < PLX_OP_COUNT; o++) {
        plx_op_t op = (plx_op_t)o;
        if (!plx_op_valid(dt, op)) continue;
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            size_t n = lens[li];
            fill(dt, a, cap / es, &rng);
            fill(dt, b, cap / es, &rng);
            /* shifts: x by 1 byte, inputs by 0 or 3 bytes */
            for (int k = 0; k < 4; k++) {
                size_t sx = 1, sa = (k & 1) ? 3 : 0, sb = (k & 2) ? 3 : 0;
                for (size_t i = 0; i < n; i++)
                    ref_elem(dt, op, a + sa + i * es, b + sb + i * es, e + i * es);
                memcpy(x + sx, a + sa, n * es);
                plx_reduce_local(x + sx, b + sb, n, dt, op);
                for (size_t i = 0; i < n; i++)
                    CHECK(elem_same(dt, x + sx + i * es, e + i * es),
                                  "local %s %s n=%zu k=%d i=%zu", plx_dtype_name(dt),
                                  plx_op_name(op), n, k, i);
                memset(x, 0, cap);
                plx_reduce_local3(x + sx, a + sa, b + sb, n, dt, op);
                for (size_t i = 0; i < n; i++)
                    CHECK(elem_same(dt, x + sx + i * es, e + i * es),
                                  "local3 %s %s n=%zu k=%d i=%zu", plx_dtype_name(dt),
                                  plx_op_name(op), n, k, i);
                memcpy(x + sx, b + sb, n * es);   /* dst == b, misaligned */
                plx_reduce_local3(x + sx, a + sa, x + sx, n, dt, op);
                for (size_t i = 0; i < n; i++)
                    CHECK(elem_same(dt, x + sx + i * es, e + i * es),
                                  "local3 dst==b %s %s n=%zu k=%d i=%zu", plx_dtype_name(dt),
                                  plx_op_name(op), n, k, i);
            }
        }
    }
    free(a); free(b); free(x); free(e);
}
END_TEST

/* Signed sums and products wrap modulo 2^bits (UBSan must stay silent). */
START_TEST(test_signed_wrap)
{
    int8_t a8[] = { 127, -128, 16, -128, 100, -1 }, b8[] = { 1, -1, 16, -1, 3, -1 };
    int8_t s8[6], p8[6];
    plx_reduce_local3(s8, a8, b8, 6, PLX_INT8, PLX_SUM);
    plx_reduce_local3(p8, a8, b8, 6, PLX_INT8, PLX_PROD);
    const int8_t ws8[] = { -128, 127, 32, 127, 103, -2 }, wp8[] = { 127, -128, 0, -128, 44, 1 };
    ck_assert(memcmp(s8, ws8, sizeof s8) == 0);
    ck_assert(memcmp(p8, wp8, sizeof p8) == 0);

    int32_t a32[] = { INT32_MAX, INT32_MIN, 65536, INT32_MIN, -3 };
    int32_t b32[] = { 1, -1, 65536, -1, INT32_MAX };
    int32_t s32[5], p32[5];
    plx_reduce_local3(s32, a32, b32, 5, PLX_INT32, PLX_SUM);
    plx_reduce_local3(p32, a32, b32, 5, PLX_INT32, PLX_PROD);
    const int32_t ws32[] = { INT32_MIN, INT32_MAX, 131072, INT32_MAX, INT32_MAX - 3 };
    const int32_t wp32[] = { INT32_MAX, INT32_MIN, 0, INT32_MIN, INT32_MIN + 3 };
    ck_assert(memcmp(s32, ws32, sizeof s32) == 0);
    ck_assert(memcmp(p32, wp32, sizeof p32) == 0);

    int64_t a64[] = { INT64_MAX, INT64_MIN, INT64_C(1) << 32, INT64_MIN, 3 };
    int64_t b64[] = { 1, -1, INT64_C(1) << 32, -1, INT64_MAX };
    int64_t s64[5], p64[5];
    memcpy(s64, a64, sizeof s64);
    memcpy(p64, a64, sizeof p64);
    plx_reduce_local(s64, b64, 5, PLX_INT64, PLX_AVG);   /* AVG sums (and wraps) too */
    plx_reduce_local(p64, b64, 5, PLX_INT64, PLX_PROD);
    const int64_t ws64[] = { INT64_MIN, INT64_MAX, INT64_C(1) << 33, INT64_MAX, INT64_MIN + 2 };
    const int64_t wp64[] = { INT64_MAX, INT64_MIN, 0, INT64_MIN, INT64_MAX - 2 };
    ck_assert(memcmp(s64, ws64, sizeof s64) == 0);
    ck_assert(memcmp(p64, wp64, sizeof p64) == 0);
}
END_TEST

/* Float MIN/MAX: the documented NaN / signed-zero rule, operand order kept. */
START_TEST(test_float_minmax_order)
{
    float a[4] = { NAN, 1.0f, -0.0f, 0.0f }, b[4] = { 1.0f, NAN, 0.0f, -0.0f }, d[4];
    plx_reduce_local3(d, a, b, 4, PLX_FLOAT32, PLX_MIN);
    ck_assert(d[0] == 1.0f && isnan(d[1]));               /* NaN in a replaced, in b kept */
    ck_assert(!signbit(d[2]) && signbit(d[3]));           /* -0 vs +0: second operand */
    memcpy(d, b, sizeof d);
    plx_reduce_local3(d, a, d, 4, PLX_FLOAT32, PLX_MAX);  /* dst == b */
    ck_assert(d[0] == 1.0f && isnan(d[1]));
    ck_assert(!signbit(d[2]) && signbit(d[3]));
    uint16_t h[2] = { 0x7e00, 0x3c00 }, g[2] = { 0x3c00, 0x7e00 };   /* f16 NaN, 1.0 */
    plx_reduce_local(h, g, 2, PLX_FLOAT16, PLX_MIN);
    ck_assert_uint_eq(h[0], 0x3c00);
    ck_assert_uint_eq(h[1], 0x7e00);
}
END_TEST

/* f16 SUM/PROD through float equal the correctly rounded f16 result. */
START_TEST(test_f16_correctly_rounded)
{
    rng_t rng = { 77 };
    enum { N = 1 << 16 };
    uint16_t *a = xmalloc(N * 2), *b = xmalloc(N * 2), *x = xmalloc(N * 2);
    for (int op = PLX_SUM; op <= PLX_PROD; op++) {
        for (int i = 0; i < N; i++) {
            do a[i] = (uint16_t)rng_next(&rng); while (half_isnan(a[i], &F16));
            do b[i] = (uint16_t)rng_next(&rng); while (half_isnan(b[i], &F16));
        }
        memcpy(x, a, N * 2);
        plx_reduce_local(x, b, N, PLX_FLOAT16, (plx_op_t)op);
        for (int i = 0; i < N; i++) {
            double da = ref_decode(a[i], &F16), db = ref_decode(b[i], &F16);
            double exact = op == PLX_SUM ? da + db : da * db;   /* exact in double */
            uint16_t want = ref_from_float(exact, &F16);
            CHECK(x[i] == want || (half_isnan(x[i], &F16) && half_isnan(want, &F16)),
                          "%s 0x%04x 0x%04x -> 0x%04x, want 0x%04x", op ? "prod" : "sum",
                          a[i], b[i], x[i], want);
        }
    }
    free(a); free(b); free(x);
}
END_TEST

/* ---- half conversions -------------------------------------------------- */

START_TEST(test_f16_all_patterns)
{
    for (uint32_t u = 0; u <= 0xffff; u++) {
        uint16_t h = (uint16_t)u;
        float f = plx_f16_to_f32(h);
        double ref = ref_decode(h, &F16);
        uint16_t back = plx_f32_to_f16(f);
        CHECK(!signbit(f) == !(h & 0x8000), "sign of 0x%04x", h);
        if (isnan(ref)) {
            /* sign and payload carried into the float (quiet), back as a quiet NaN */
            uint32_t want = (uint32_t)(h & 0x8000) << 16 | 0x7fc00000u | (uint32_t)(h & 0x3ff) << 13;
            CHECK(plx_f32_bits(f) == want, "NaN 0x%04x -> 0x%08x", h, plx_f32_bits(f));
            CHECK(back == (h | 0x0200), "NaN 0x%04x -> 0x%04x", h, back);
        } else {
            CHECK((double)f == ref, "0x%04x -> %a, want %a", h, (double)f, ref);
            CHECK(back == h, "round trip 0x%04x -> 0x%04x", h, back);
        }
    }
}
END_TEST

START_TEST(test_bf16_all_patterns)
{
    for (uint32_t u = 0; u <= 0xffff; u++) {
        uint16_t h = (uint16_t)u;
        float f = plx_bf16_to_f32(h);
        double ref = ref_decode(h, &BF16);
        uint16_t back = plx_f32_to_bf16(f);
        CHECK(plx_f32_bits(f) == u << 16, "bf16 0x%04x -> 0x%08x", h, plx_f32_bits(f));
        if (isnan(ref)) {
            CHECK(isnan(f), "bf16 NaN 0x%04x", h);
            CHECK(back == (h | 0x0040), "NaN 0x%04x -> 0x%04x", h, back);
        } else {
            CHECK((double)f == ref && !signbit(f) == !(h & 0x8000), "0x%04x", h);
            CHECK(back == h, "round trip 0x%04x -> 0x%04x", h, back);
        }
    }
}
END_TEST

static void check_f2h(float f, const struct hfmt *F)
{
    uint16_t got = F == &F16 ? plx_f32_to_f16(f) : plx_f32_to_bf16(f);
    uint16_t want = ref_from_float(f, F);
    if (isnan(f)) {
        CHECK(half_isnan(got, F) && !(got & 0x8000) == !signbit(f),
                      "%s: NaN 0x%08x -> 0x%04x", F == &F16 ? "f16" : "bf16", plx_f32_bits(f), got);
        return;
    }
    CHECK(got == want, "%s: %a (0x%08x) -> 0x%04x, want 0x%04x",
                  F == &F16 ? "f16" : "bf16", (double)f, plx_f32_bits(f), got, want);
}

/* Random floats: all bit patterns, and a dense sample around each format's range. */
START_TEST(test_f2h_random)
{
    const struct hfmt *F = _i ? &BF16 : &F16;
    rng_t rng = { 1000 + (uint64_t)_i };
    for (int i = 0; i < (1 << 21); i++) {
        uint64_t x = rng_next(&rng);
        check_f2h(plx_f32_from_bits((uint32_t)x), F);
        /* exponents spanning subnormal .. overflow of the half format */
        int lo = 127 + F->emin - F->p - 2, hi = 127 + F->emax + 2;
        if (hi > 254) hi = 254;
        if (lo < 0) lo = 0;
        uint32_t e = (uint32_t)lo + (uint32_t)((x >> 32) % (uint32_t)(hi - lo + 1));
        /* bias the dropped mantissa bits toward ties: low bits all 0 or 1 sometimes */
        uint32_t m = (uint32_t)(x >> 8) & 0x7fffff;
        if ((x & 3) == 0) m &= ~0xfffu;
        if ((x & 3) == 1) m |= 0xfffu;
        check_f2h(plx_f32_from_bits((uint32_t)(x >> 63) << 31 | e << 23 | m), F);
    }
}
END_TEST

/* Every tie between two adjacent finite half values, and one float ulp either side. */
START_TEST(test_f2h_ties)
{
    const struct hfmt *F = _i ? &BF16 : &F16;
    uint16_t top = F->inf;                       /* Inf: above the largest finite */
    for (uint16_t h = 0; h < top; h++) {
        double v0 = ref_decode(h, F);
        double v1 = h + 1 == top ? ldexp(1.0, F->emax + 1) : ref_decode((uint16_t)(h + 1), F);
        float mid = (float)((v0 + v1) / 2);      /* exact: needs p + 1 bits */
        CHECK((double)mid == (v0 + v1) / 2, "midpoint above 0x%04x not exact", h);
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
        for (int s = 0; s < 2; s++) {
            float m = s ? -mid : mid;
            uint16_t sg = s ? 0x8000 : 0;
            uint16_t (*conv)(float) = F == &F16 ? plx_f32_to_f16 : plx_f32_to_bf16;
            CHECK(conv(m) == (sg | even), "tie %a -> 0x%04x", (double)m, conv(m));
            CHECK(conv(nextafterf(m, s ? -INFINITY : INFINITY)) == (sg | (h + 1)),
                  "just above tie %a", (double)m);
            CHECK(conv(nextafterf(m, 0.0f)) == (sg | h), "just below tie %a", (double)m);
        }
    }
}
END_TEST

START_TEST(test_f2h_edges)
{
    static const struct { float f; uint16_t h; } f16e[] = {
        { 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3c00 }, { -2.0f, 0xc000 },
        { 65504.0f, 0x7bff }, { 65519.996f, 0x7bff }, { 65520.0f, 0x7c00 }, { -65520.0f, 0xfc00 },
        { 65536.0f, 0x7c00 }, { FLT_MAX, 0x7c00 }, { INFINITY, 0x7c00 }, { -INFINITY, 0xfc00 },
        { 0x1p-24f, 0x0001 }, { 0x1p-25f, 0x0000 }, { -0x1p-25f, 0x8000 }, { 0x1.000002p-25f, 0x0001 },
        { 0x3p-25f, 0x0002 }, { 0x5p-25f, 0x0002 }, { 0x1p-14f, 0x0400 }, { 0x1.ffcp-15f, 0x0400 }, { 0x1.ff8p-15f, 0x03ff },
        { 0x1.ff0p-15f, 0x03fe }, { 0x1p-15f, 0x0200 },
        { 1e-30f, 0x0000 }, { -1e-30f, 0x8000 }, { 0x1p-149f, 0x0000 }, { FLT_MIN, 0x0000 },
        { 0x1.002p0f, 0x3c00 }, { 0x1.006p0f, 0x3c02 }, { 0x1.002002p0f, 0x3c01 },
    };
    for (size_t i = 0; i < sizeof f16e / sizeof f16e[0]; i++)
        CHECK(plx_f32_to_f16(f16e[i].f) == f16e[i].h, "f16 %a -> 0x%04x, want 0x%04x",
                      (double)f16e[i].f, plx_f32_to_f16(f16e[i].f), f16e[i].h);
    static const struct { uint32_t f; uint16_t h; } bfe[] = {
        { 0x7f7fffff, 0x7f80 },  /* FLT_MAX rounds to Inf */
        { 0x7f7f7fff, 0x7f7f }, { 0x7f7f8000, 0x7f80 }, { 0x7f7e8000, 0x7f7e },
        { 0x00008000, 0x0000 }, { 0x00018000, 0x0002 }, { 0x00008001, 0x0001 },
        { 0x00000001, 0x0000 }, { 0x80000001, 0x8000 }, { 0x007fffff, 0x0080 },
        { 0x3f808000, 0x3f80 }, { 0x3f818000, 0x3f82 }, { 0x3f808001, 0x3f81 },
        { 0x7f800000, 0x7f80 }, { 0xff800000, 0xff80 },
        { 0x7f800001, 0x7fc0 }, { 0xff800001, 0xffc0 },   /* low-payload NaN stays NaN */
        { 0x7fffffff, 0x7fff }, { 0x7fc00000, 0x7fc0 },
    };
    for (size_t i = 0; i < sizeof bfe / sizeof bfe[0]; i++) {
        uint16_t got = plx_f32_to_bf16(plx_f32_from_bits(bfe[i].f));
        CHECK(got == bfe[i].h, "bf16 0x%08x -> 0x%04x, want 0x%04x", bfe[i].f, got, bfe[i].h);
    }
    /* f16 NaNs: low payload must not turn into Inf; sign kept */
    ck_assert_uint_eq(plx_f32_to_f16(plx_f32_from_bits(0x7f800001)), 0x7e00);
    ck_assert_uint_eq(plx_f32_to_f16(plx_f32_from_bits(0xffc00000)), 0xfe00);
    ck_assert_uint_eq(plx_f32_to_f16(plx_f32_from_bits(0x7fffffff)), 0x7fff);
}
END_TEST

/* ---- AVG finish -------------------------------------------------------- */

START_TEST(test_avg_finish)
{
    plx_dtype_t dt = (plx_dtype_t)_i;
    size_t es = plx_dtype_size(dt);
    enum { N = 1003 };
    static const int divisors[] = { 1, 2, 3, 7, 64, 1000 };
    rng_t rng = { 555 + (uint64_t)_i };
    unsigned char *x = xmalloc(N * es + 1), *orig = xmalloc(N * es), *w = xmalloc(N * es);
    for (size_t di = 0; di < sizeof divisors / sizeof divisors[0]; di++) {
        int d = divisors[di];
        fill(dt, orig, N, &rng);
        for (size_t i = 0; i < N; i++) {
            const unsigned char *p = orig + i * es;
            unsigned char *q = w + i * es;
            if (dt == PLX_FLOAT32) {
                float f; memcpy(&f, p, 4); f = f / (float)d; memcpy(q, &f, 4);
            } else if (dt == PLX_FLOAT64) {
                double f; memcpy(&f, p, 8); f = f / d; memcpy(q, &f, 8);
            } else if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) {
                const struct hfmt *F = half_fmt(dt);
                float f = (float)ref_decode((uint16_t)load_u(p, 2), F) / (float)d;
                store_u(q, ref_from_float(f, F), 2);
            } else if (is_signed_int(dt)) {
                int64_t v = sext(load_u(p, es), es) / d;   /* C: truncates toward zero */
                store_u(q, (uint64_t)v, es);
            } else {
                store_u(q, load_u(p, es) / (uint64_t)d, es);
            }
        }
        for (int mis = 0; mis <= 1; mis++) {   /* aligned, then misaligned by one byte */
            unsigned char *xb = x + (es > 1 ? mis : 0);
            memcpy(xb, orig, N * es);
            plx_avg_finish(xb, N, dt, d);
            for (size_t i = 0; i < N; i++)
                CHECK(elem_same(dt, xb + i * es, w + i * es), "%s /%d i=%zu mis=%d",
                              plx_dtype_name(dt), d, i, mis);
        }
    }
    /* divisor < 1: refused, buffer untouched */
    memcpy(x, orig, N * es);
    plx_avg_finish(x, N, dt, 0);
    plx_avg_finish(x, N, dt, -1);
    ck_assert(memcmp(x, orig, N * es) == 0);
    free(x); free(orig); free(w);
}
END_TEST

START_TEST(test_avg_examples)
{
    int8_t i8[] = { -7, 7, -128, 127 };
    plx_avg_finish(i8, 4, PLX_INT8, 2);
    ck_assert(i8[0] == -3 && i8[1] == 3 && i8[2] == -64 && i8[3] == 63);
    uint8_t u8[] = { 255, 7 };
    plx_avg_finish(u8, 2, PLX_UINT8, 200);
    ck_assert(u8[0] == 1 && u8[1] == 0);
    int64_t i64[] = { INT64_MIN, -5 };
    plx_avg_finish(i64, 2, PLX_INT64, 3);
    ck_assert(i64[0] == INT64_MIN / 3 && i64[1] == -1);
    uint16_t h[] = { 0x4200 /* 3.0 */, 0x3c00 /* 1.0 */ };
    plx_avg_finish(h, 2, PLX_FLOAT16, 3);
    ck_assert_uint_eq(h[0], 0x3c00);
    ck_assert_uint_eq(h[1], 0x3555);   /* 1/3 rounded to nearest f16 */
    uint16_t bf[] = { 0x4040 /* 3.0 */ };
    plx_avg_finish(bf, 1, PLX_BFLOAT16, 3);
    ck_assert_uint_eq(bf[0], 0x3f80);
}
END_TEST

/* ---- suite ------------------------------------------------------------- */

static Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("dtype");
    tcase_add_test(tc, test_dtype_table);
    tcase_add_test(tc, test_valid_combos);
    tcase_add_test(tc, test_invalid_noop);
    suite_add_tcase(s, tc);

    tc = tcase_create("kernels");
    tcase_set_timeout(tc, 300);   /* sanitizer builds are slow */
    tcase_add_loop_test(tc, test_kernels, 0, PLX_DTYPE_COUNT);
    tcase_add_loop_test(tc, test_misaligned, 0, PLX_DTYPE_COUNT);
    tcase_add_test(tc, test_signed_wrap);
    tcase_add_test(tc, test_float_minmax_order);
    tcase_add_test(tc, test_f16_correctly_rounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("half");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_f16_all_patterns);
    tcase_add_test(tc, test_bf16_all_patterns);
    tcase_add_loop_test(tc, test_f2h_random, 0, 2);
    tcase_add_loop_test(tc, test_f2h_ties, 0, 2);
    tcase_add_test(tc, test_f2h_edges);
    suite_add_tcase(s, tc);

    tc = tcase_create("avg");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_avg_finish, 0, PLX_DTYPE_COUNT);
    tcase_add_test(tc, test_avg_examples);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(reduce_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
