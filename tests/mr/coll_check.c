/*
 * tests/mr/coll_check.c — multi-rank correctness test of every Plexus
 * collective, launched by plexusrun (`plexusrun -n N coll_check [opts]`).
 *
 * What it checks, and why:
 *  - every collective (barrier, bcast, reduce, allreduce, allgather,
 *    reduce_scatter, alltoall, gather, scatter) x every datatype x counts
 *    {0, 1, 7, 1000, 1<<20} x every valid op (all ops up to count 1000; at
 *    1<<20 only SUM, MAX and AVG, to bound the run time) x roots {0, size-1}
 *    x in place and not.  Each rank checks its result element by element
 *    against a serial reference it computes itself: every rank can generate
 *    every rank's input from (generator id, seed, test id, index).
 *    Reduction inputs are small integers (-3..3, or 0..6 on unsigned types;
 *    {-2,-1,1,2} / {1,2} for PROD; raw bits for the bitwise ops), so sums
 *    and products are exact in any order, also in float16 and bfloat16
 *    (PROD is skipped above 6 ranks, where products would leave int8; the
 *    program refuses more than 21 ranks); AVG is compared with a tolerance
 *    of 1 ulp on float types and exactly (C integer division, truncating
 *    toward zero) on integers.  The reference is computed in int64 and
 *    converted once, results are compared with memcmp first (and element by
 *    element only to locate a difference), so the check stays cheap enough
 *    for 5 ranks on 2 cores.
 *    Copy collectives carry hashed bit patterns (no NaN/Inf) so a block that
 *    lands in the wrong place cannot go unnoticed.
 *  - the API's buffer contracts: the send buffer is never written; buffers
 *    the API says are ignored (recvbuf of reduce/gather at non-roots, sendbuf
 *    of scatter at non-roots) are passed filled with sentinel bytes and must
 *    come back unchanged; 64 guard bytes before and after every buffer must
 *    be untouched (nothing written past the end of the receive region).
 *  - barrier really synchronises: no rank leaves before the last one entered
 *    (checked with CLOCK_REALTIME stamps, one rank arriving late).
 *  - communicators: plx_comm_split into odd/even ranks (key = rank and key =
 *    -rank, i.e. reversed order), a split with PLX_UNDEFINED, plx_comm_dup;
 *    allreduce/bcast/allgather/alltoall checked on each, with inputs derived
 *    from the WORLD rank so that a wrong membership or rank order shows;
 *    plx_comm_free, and a freed handle (a copy kept before the free: the
 *    library keeps freed comm memory with a dead marker until finalize)
 *    gives PLX_ERR_INVALID_ARG; 100 dup/free cycles (ids reused or not, no
 *    cross-talk); a split with one colour per rank (size-1 comms); a split
 *    of a split.
 *
 * Output: one line per failure
 *   FAIL comm=.. coll=.. dtype=.. op=.. count=.. root=.. inplace=.. rank=..
 *        what=.. index=.. got=.. expected=..
 * and finally `coll_check: rank R size S: N checks, M failures`.  Exit 1 if
 * any failure.  Rank 0 also prints the time spent per collective.
 *
 * Options: --quick (counts {0,1,7,1000} only), --coll NAME[,NAME...]
 * (barrier, bcast, reduce, allreduce, allgather, reduce_scatter, alltoall,
 * gather, scatter, comm), --seed N, --big-dtypes NAME[,NAME...] (datatypes
 * used at counts >= 1<<20; default all), --counts N[,N...] (replaces the
 * count list, for exploring; counts >= 1<<20 get only SUM/MAX/AVG), --tag X
 * (ignored; lets a runner find its own processes), --nb (every collective,
 * barrier included, through its nonblocking i-form; the request is completed
 * in rotation by plx_wait, a plx_test polling loop, plx_waitall and
 * plx_waitany, and the request contracts of plexus.h are checked on the way:
 * see "blocking or nonblocking calls" below).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plexus.h"

#define GUARD 64               /* guard bytes before and after each buffer */
#define SENT_BYTE 0xA5         /* sentinel fill */
#define MAX_PRINTED 200        /* failure lines printed per rank */

enum {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER,
    C_ALLTOALL, C_GATHER, C_SCATTER, C_NCOLL
};
static const char *coll_names[C_NCOLL + 1] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "reduce_scatter",
    "alltoall", "gather", "scatter", "comm"
};
#define C_COMM C_NCOLL

/* kinds of generated input */
enum { K_COPY, K_SMALL, K_PROD, K_BITS };

/* ---- global state ------------------------------------------------------ */
static int g_rank, g_size;            /* world */
static uint64_t g_seed = 12345;
static uint64_t g_tid;                /* test id, identical on every rank */
static long g_checks, g_fails, g_printed, g_status_fails;
static int g_quick;
static int g_coll_on[C_NCOLL + 1];
static int g_big_dt_on[PLX_DTYPE_COUNT];
static const char *g_comm_name = "world";

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "coll_check: rank %d: fatal: ", g_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- float16 / bfloat16: tests/mr/half_ref.h ---- */
#include "half_ref.h"

static int is_float(plx_dtype_t dt)
{
    return dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64;
}
static int is_signed_int(plx_dtype_t dt)
{
    return dt == PLX_INT8 || dt == PLX_INT32 || dt == PLX_INT64;
}

static size_t esize(plx_dtype_t dt)
{
    static const size_t sz[PLX_DTYPE_COUNT] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
    return sz[dt];
}

/* ---- deterministic input -----------------------------------------------
 * Element k of generator g's input in test tid: a hash of (seed, tid, g)
 * gives a per-vector base, a cheap mix of (base, k) gives the element. */
static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t base_of(int gen, uint64_t tid)
{
    return mix64(mix64(g_seed) ^ mix64(tid * 0x10001ull + 7) ^ ((uint64_t)gen << 40));
}

static inline uint64_t hk(uint64_t base, size_t k)
{
    uint64_t h = (base + (uint64_t)k) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ull;
}

/* Small input values are picked by the top 3 bits of the hash from an
 * 8-entry table: -3..3 (0..6 for unsigned types) for SUM/MIN/MAX/AVG, and
 * {-2,-1,1,2} ({1,2} unsigned) for PROD, so products of 5 ranks fit int8. */
static const int8_t tab_small_s[8] = {-3, -2, -1, 0, 1, 2, 3, -1};
static const int8_t tab_small_u[8] = {0, 1, 2, 3, 4, 5, 6, 2};
static const int8_t tab_prod_s[8] = {-2, -1, 1, 2, 2, 1, -1, -2};
static const int8_t tab_prod_u[8] = {1, 2, 1, 2, 2, 1, 2, 1};

static int dt_signed(plx_dtype_t dt) { return is_signed_int(dt) || is_float(dt); }

static const int8_t *small_tab(int kind, plx_dtype_t dt)
{
    int sgn = dt_signed(dt);
    if (kind == K_PROD) return sgn ? tab_prod_s : tab_prod_u;
    return sgn ? tab_small_s : tab_small_u;
}

/* Fill n elements: input indices k0 .. k0+n-1 of generator gen.  Buffers
 * are 64-byte aligned plus whole elements, so typed stores are fine. */
static void gen_fill(plx_dtype_t dt, int kind, int gen, uint64_t tid, size_t k0, size_t n, void *buf)
{
    const uint64_t base = base_of(gen, tid) + k0;
    if (kind == K_COPY || kind == K_BITS) {
        /* hashed bits; float types never get NaN/Inf (top exponent bit
         * cleared; K_BITS is never used on floats) */
        uint64_t mask = ~0ull;
        if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) mask = ~(1ull << 14);
        else if (dt == PLX_FLOAT32) mask = ~(1ull << 30);
        else if (dt == PLX_FLOAT64) mask = ~(1ull << 62);
        switch (esize(dt)) {
        case 1: for (size_t i = 0; i < n; i++) ((uint8_t *)buf)[i] = (uint8_t)(hk(base, i) >> 56); break;
        case 2: for (size_t i = 0; i < n; i++) ((uint16_t *)buf)[i] = (uint16_t)((hk(base, i) >> 48) & mask); break;
        case 4: for (size_t i = 0; i < n; i++) ((uint32_t *)buf)[i] = (uint32_t)((hk(base, i) >> 32) & mask); break;
        default: for (size_t i = 0; i < n; i++) ((uint64_t *)buf)[i] = hk(base, i) & mask; break;
        }
        return;
    }
    const int8_t *tab = small_tab(kind, dt);
    if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) {
        uint16_t t16[8];
        for (int j = 0; j < 8; j++)
            t16[j] = dt == PLX_FLOAT16 ? f2h((float)tab[j]) : f2bf((float)tab[j]);
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)buf)[i] = t16[hk(base, i) >> 61];
        return;
    }
#define GEN_LOOP(T) for (size_t i = 0; i < n; i++) ((T *)buf)[i] = (T)tab[hk(base, i) >> 61]
    switch (dt) {
    case PLX_INT8: GEN_LOOP(int8_t); break;
    case PLX_UINT8: GEN_LOOP(uint8_t); break;
    case PLX_INT32: GEN_LOOP(int32_t); break;
    case PLX_UINT32: GEN_LOOP(uint32_t); break;
    case PLX_INT64: GEN_LOOP(int64_t); break;
    case PLX_UINT64: GEN_LOOP(uint64_t); break;
    case PLX_FLOAT32: GEN_LOOP(float); break;
    case PLX_FLOAT64: GEN_LOOP(double); break;
    default: break;
    }
#undef GEN_LOOP
}

/* ---- reference reductions ---------------------------------------------- */
static int op_kind(int op)
{
    if (op == PLX_PROD) return K_PROD;
    if (op == PLX_BAND || op == PLX_BOR || op == PLX_BXOR) return K_BITS;
    return K_SMALL;
}

/* Scratch memory, grown on demand. */
typedef struct scratch {
    void *p;
    size_t cap;
} scratch_t;

static void *scratch_need(scratch_t *s, size_t bytes)
{
    if (bytes > s->cap || !s->p) {
        free(s->p);
        s->p = NULL;
        if (posix_memalign(&s->p, 64, bytes ? bytes : 64) != 0)
            die("out of memory (%zu bytes)", bytes);
        s->cap = bytes;
    }
    return s->p;
}

static scratch_t g_exp, g_pristine, g_acc;

/* exp[0..cnt) = op over the inputs of gens[0..n) at indices k0.. (in dt).
 * Bitwise ops: the inputs are the raw hash bits gen_fill stores, combined
 * in uint64 and truncated to the element width at the end. */
static void ref_reduce_vec(plx_dtype_t dt, int op, const int *gens, int n, uint64_t tid, size_t k0,
                           size_t cnt, void *exp)
{
    const int kind = op_kind(op);
    const int8_t *tab = small_tab(kind, dt);
    const int shift = 64 - 8 * (int)esize(dt);     /* K_BITS: gen_fill keeps the top bits */
    int64_t *acc = scratch_need(&g_acc, cnt * sizeof(int64_t));
    for (int r = 0; r < n; r++) {
        const uint64_t base = base_of(gens[r], tid) + k0;
        if (kind == K_BITS) {
            uint64_t *u = (uint64_t *)acc;
#define BIT_LOOP(EXPR) for (size_t i = 0; i < cnt; i++) { uint64_t v = hk(base, i) >> shift; EXPR; }
            if (r == 0) BIT_LOOP(u[i] = v)
            else if (op == PLX_BAND) BIT_LOOP(u[i] &= v)
            else if (op == PLX_BOR) BIT_LOOP(u[i] |= v)
            else BIT_LOOP(u[i] ^= v)
#undef BIT_LOOP
            continue;
        }
#define RED_LOOP(EXPR) for (size_t i = 0; i < cnt; i++) { int64_t v = tab[hk(base, i) >> 61]; EXPR; }
        if (r == 0) {
            RED_LOOP(acc[i] = v);
            continue;
        }
        switch (op) {
        case PLX_SUM: case PLX_AVG: RED_LOOP(acc[i] += v); break;
        case PLX_PROD: RED_LOOP(acc[i] *= v); break;
        case PLX_MIN: RED_LOOP(if (v < acc[i]) acc[i] = v); break;
        case PLX_MAX: RED_LOOP(if (v > acc[i]) acc[i] = v); break;
        default: break;
        }
#undef RED_LOOP
    }
    if (op == PLX_AVG) {
        switch (dt) {
        case PLX_FLOAT16: for (size_t i = 0; i < cnt; i++) ((uint16_t *)exp)[i] = f2h((float)acc[i] / (float)n); return;
        case PLX_BFLOAT16: for (size_t i = 0; i < cnt; i++) ((uint16_t *)exp)[i] = f2bf((float)acc[i] / (float)n); return;
        case PLX_FLOAT32: for (size_t i = 0; i < cnt; i++) ((float *)exp)[i] = (float)acc[i] / (float)n; return;
        case PLX_FLOAT64: for (size_t i = 0; i < cnt; i++) ((double *)exp)[i] = (double)acc[i] / (double)n; return;
        default:
            /* C integer division (truncation); inputs are >= 0 for unsigned types */
            for (size_t i = 0; i < cnt; i++) acc[i] /= n;
            break;
        }
    }
    if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) {
        /* results are integers in -64..64 (sums, products, min, max) */
        uint16_t t16[129];
        for (int v = -64; v <= 64; v++)
            t16[v + 64] = dt == PLX_FLOAT16 ? f2h((float)v) : f2bf((float)v);
        for (size_t i = 0; i < cnt; i++)
            ((uint16_t *)exp)[i] = t16[acc[i] + 64];
        return;
    }
#define CONV_LOOP(T) for (size_t i = 0; i < cnt; i++) ((T *)exp)[i] = (T)acc[i]
    switch (dt) {
    case PLX_INT8: CONV_LOOP(int8_t); break;
    case PLX_UINT8: CONV_LOOP(uint8_t); break;
    case PLX_INT32: CONV_LOOP(int32_t); break;
    case PLX_UINT32: CONV_LOOP(uint32_t); break;
    case PLX_INT64: CONV_LOOP(int64_t); break;
    case PLX_UINT64: CONV_LOOP(uint64_t); break;
    case PLX_FLOAT32: CONV_LOOP(float); break;
    case PLX_FLOAT64: CONV_LOOP(double); break;
    default: break;
    }
#undef CONV_LOOP
}

/* Ordered integer of a float bit pattern, for ulp distance. */
static int64_t ordered(plx_dtype_t dt, const void *p)
{
    uint64_t x = 0, sign, mag;
    size_t es = esize(dt);
    memcpy(&x, p, es);
    sign = 1ull << (es * 8 - 1);
    mag = x & (sign - 1);
    return (x & sign) ? -(int64_t)mag : (int64_t)mag;
}

static int elem_equal(plx_dtype_t dt, const void *got, const void *exp, int tol_ulp)
{
    if (tol_ulp == 0 || !is_float(dt))
        return memcmp(got, exp, esize(dt)) == 0;
    int64_t a = ordered(dt, got), b = ordered(dt, exp);
    int64_t d = a > b ? a - b : b - a;
    return d <= tol_ulp;
}

static void fmt_elem(plx_dtype_t dt, const void *p, char *out, size_t len)
{
    switch (dt) {
    case PLX_INT8: { int8_t x; memcpy(&x, p, 1); snprintf(out, len, "%d", x); break; }
    case PLX_UINT8: { uint8_t x; memcpy(&x, p, 1); snprintf(out, len, "%u", x); break; }
    case PLX_INT32: { int32_t x; memcpy(&x, p, 4); snprintf(out, len, "%" PRId32, x); break; }
    case PLX_UINT32: { uint32_t x; memcpy(&x, p, 4); snprintf(out, len, "%" PRIu32, x); break; }
    case PLX_INT64: { int64_t x; memcpy(&x, p, 8); snprintf(out, len, "%" PRId64, x); break; }
    case PLX_UINT64: { uint64_t x; memcpy(&x, p, 8); snprintf(out, len, "%" PRIu64, x); break; }
    case PLX_FLOAT16: { uint16_t x; memcpy(&x, p, 2); snprintf(out, len, "%.6g(0x%04x)", (double)h2f(x), x); break; }
    case PLX_BFLOAT16: { uint16_t x; memcpy(&x, p, 2); snprintf(out, len, "%.6g(0x%04x)", (double)bf2f(x), x); break; }
    case PLX_FLOAT32: { float x; uint32_t b; memcpy(&x, p, 4); memcpy(&b, p, 4); snprintf(out, len, "%.9g(0x%08x)", (double)x, b); break; }
    case PLX_FLOAT64: { double x; uint64_t b; memcpy(&x, p, 8); memcpy(&b, p, 8); snprintf(out, len, "%.17g(0x%016" PRIx64 ")", x, b); break; }
    default: snprintf(out, len, "?"); break;
    }
}

/* ---- failure reporting -------------------------------------------------- */
typedef struct tcase {
    int coll;
    plx_dtype_t dt;
    int op;                    /* -1: not a reduction */
    size_t count;
    int root;                  /* -1: not rooted */
    int inplace;
} tcase_t;

static void report(const tcase_t *t, int rank, const char *what, long index, const char *got,
                   const char *exp)
{
    g_fails++;
    if (g_printed++ >= MAX_PRINTED) {
        if (g_printed == MAX_PRINTED + 1)
            printf("coll_check: rank %d: more failures, not printed\n", g_rank);
        return;
    }
    char rootb[16], idxb[24];
    if (t->root >= 0) snprintf(rootb, sizeof rootb, "%d", t->root);
    else snprintf(rootb, sizeof rootb, "-");
    if (index >= 0) snprintf(idxb, sizeof idxb, "%ld", index);
    else snprintf(idxb, sizeof idxb, "-");
    printf("FAIL comm=%s coll=%s dtype=%s op=%s count=%zu root=%s inplace=%d rank=%d what=%s "
           "index=%s got=%s expected=%s\n",
           g_comm_name, coll_names[t->coll], plx_dtype_name(t->dt),
           t->op >= 0 ? plx_op_name((plx_op_t)t->op) : "-", t->count, rootb, t->inplace, rank,
           what, idxb, got, exp);
    fflush(stdout);
}

/* ---- buffers with guards ------------------------------------------------ */
typedef struct gbuf {
    unsigned char *base;       /* GUARD + cap + GUARD */
    size_t cap;
} gbuf_t;

static void gbuf_need(gbuf_t *b, size_t bytes)
{
    if (bytes <= b->cap && b->base)
        return;
    free(b->base);
    b->base = NULL;
    if (posix_memalign((void **)&b->base, 64, bytes + 2 * GUARD) != 0)
        die("out of memory (%zu bytes)", bytes);
    b->cap = bytes;
}

static unsigned char *gbuf_ptr(gbuf_t *b) { return b->base + GUARD; }

/* Sentinel over guard + bytes + guard. */
static void gbuf_sentinel(gbuf_t *b, size_t bytes)
{
    memset(b->base, SENT_BYTE, bytes + 2 * GUARD);
}

/* Check the guards around a region of `bytes`. */
static void check_guards(const tcase_t *t, gbuf_t *b, size_t bytes, const char *name)
{
    g_checks++;
    for (size_t i = 0; i < GUARD; i++) {
        if (b->base[i] != SENT_BYTE) {
            char what[64], got[16];
            snprintf(what, sizeof what, "%s-guard-before", name);
            snprintf(got, sizeof got, "0x%02x", b->base[i]);
            report(t, g_rank, what, (long)i - GUARD, got, "0xa5");
            return;
        }
    }
    for (size_t i = 0; i < GUARD; i++) {
        unsigned char c = b->base[GUARD + bytes + i];
        if (c != SENT_BYTE) {
            char what[64], got[16];
            snprintf(what, sizeof what, "%s-guard-after", name);
            snprintf(got, sizeof got, "0x%02x", c);
            report(t, g_rank, what, (long)i, got, "0xa5 (byte offset past end)");
            return;
        }
    }
}

/* Region must still hold sentinel bytes (an ignored buffer). */
static void check_untouched(const tcase_t *t, gbuf_t *b, size_t bytes, const char *name)
{
    g_checks++;
    const unsigned char *p = gbuf_ptr(b);
    static unsigned char sent[4096];
    if (!sent[0])
        memset(sent, SENT_BYTE, sizeof sent);
    size_t off = 0;
    while (off < bytes) {          /* fast path: memcmp against sentinel bytes */
        size_t n = bytes - off < sizeof sent ? bytes - off : sizeof sent;
        if (memcmp(p + off, sent, n) != 0)
            break;
        off += n;
    }
    for (size_t i = off; i < bytes; i++) {
        if (p[i] != SENT_BYTE) {
            char got[16];
            snprintf(got, sizeof got, "0x%02x", p[i]);
            report(t, g_rank, name, (long)(i / esize(t->dt)), got, "0xa5 (byte untouched)");
            return;
        }
    }
}

/* got[0..cnt) against exp[0..cnt): a memcmp, then (on a difference) the
 * first element outside the tolerance. */
static void compare(const tcase_t *t, const void *got, const void *exp, size_t cnt, int tol,
                    const char *what)
{
    size_t es = esize(t->dt);
    g_checks++;
    if (memcmp(got, exp, cnt * es) == 0)
        return;
    const unsigned char *g = got, *e = exp;
    for (size_t i = 0; i < cnt; i++) {
        if (!elem_equal(t->dt, g + i * es, e + i * es, tol)) {
            char gs[64], xs[64];
            fmt_elem(t->dt, g + i * es, gs, sizeof gs);
            fmt_elem(t->dt, e + i * es, xs, sizeof xs);
            report(t, g_rank, what, (long)i, gs, xs);
            return;
        }
    }
}

/* cnt elements at got must be generator gen's input from index k0 on. */
static void check_input(const tcase_t *t, const void *got, int kind, int gen, uint64_t tid,
                        size_t k0, size_t cnt, const char *what)
{
    void *e = scratch_need(&g_exp, cnt * esize(t->dt));
    gen_fill(t->dt, kind, gen, tid, k0, cnt, e);
    compare(t, got, e, cnt, 0, what);
}

/* cnt elements at got must be the reduction over all gens at k0.. */
static void check_reduced(const tcase_t *t, const void *got, const int *gens, int n, uint64_t tid,
                          size_t k0, size_t cnt, const char *what)
{
    void *e = scratch_need(&g_exp, cnt * esize(t->dt));
    ref_reduce_vec(t->dt, t->op, gens, n, tid, k0, cnt, e);
    compare(t, got, e, cnt, (t->op == PLX_AVG && is_float(t->dt)) ? 1 : 0, what);
}

/* Input generated into p (cnt elements) and a pristine copy kept. */
static void make_input(const tcase_t *t, int kind, int gen, uint64_t tid, size_t cnt, void *p)
{
    gen_fill(t->dt, kind, gen, tid, 0, cnt, p);
    void *pr = scratch_need(&g_pristine, cnt * esize(t->dt));
    memcpy(pr, p, cnt * esize(t->dt));
}

static void check_pristine(const tcase_t *t, const void *p, size_t cnt, const char *what)
{
    compare(t, p, g_pristine.p, cnt, 0, what);
}

static int check_status(const tcase_t *t, plx_status_t st)
{
    g_checks++;
    if (st == PLX_SUCCESS)
        return 1;
    char gs[96];
    snprintf(gs, sizeof gs, "%d(%s)", (int)st, plx_strerror(st));
    report(t, g_rank, "status", -1, gs, "0(success)");
    if (++g_status_fails > 20)
        die("too many failed calls; giving up (the job is probably out of step)");
    return 0;
}

/* ---- blocking or nonblocking calls ---------------------------------------
 * With --nb every collective goes through its i-form, and the request is
 * completed by one of four paths taken in rotation (plx_wait, a plx_test
 * polling loop, plx_waitall and plx_waitany over arrays with NULL entries
 * around the request), so that each path sees every collective, datatype
 * and size.  The contracts checked on the way: a refused i-call sets *req
 * to NULL; a completed request is set to NULL; plx_test reports done == 0
 * only with PLX_SUCCESS; waitall reports the status of its NULL entries as
 * PLX_SUCCESS; waitany names the right index, then -1 once all are NULL. */
#define REQ_MARK ((plx_request_t)(uintptr_t)0x5eed)   /* "never written" marker */
static int g_nb;                      /* --nb */
static unsigned g_nb_turn;            /* completion path rotation */
static long g_nb_paths[4];            /* completions per path (printed) */
static const tcase_t *g_cur;          /* case being run, for failure lines */

static void nb_fail(const char *what, const char *got, const char *exp)
{
    static const tcase_t none = {C_COMM, PLX_INT32, -1, 0, -1, 0};
    report(g_cur ? g_cur : &none, g_rank, what, -1, got, exp);
}

/* Complete *req by the next path in rotation; returns the operation's status. */
static plx_status_t nb_complete(plx_request_t *req)
{
    plx_status_t st = PLX_SUCCESS;
    /* the phase shifts every 4 calls, so that the sweep's loops of 2 and 4
     * (in place or not, roots) do not always meet the same path, while each
     * path still gets every fourth call */
    const unsigned path = (g_nb_turn + g_nb_turn / 4) % 4;
    g_nb_turn++;
    g_nb_paths[path]++;
    switch (path) {
    case 0:
        st = plx_wait(req);
        break;
    case 1: {
        int done = 0;
        /* bounded: plx_test ends a request older than PLX_TIMEOUT itself,
         * and plexusrun --timeout bounds the whole job */
        while (!done) {
            st = plx_test(req, &done);
            if (!done && (st != PLX_SUCCESS || *req == NULL)) {
                g_checks++;
                nb_fail("test-not-done-but-status-or-null-request", plx_strerror(st),
                        "PLX_SUCCESS and a live request");
                return st != PLX_SUCCESS ? st : PLX_ERR_INTERNAL;
            }
        }
        break;
    }
    case 2: {
        plx_request_t arr[3] = {NULL, *req, NULL};
        plx_status_t sts[3] = {PLX_ERR_INTERNAL, PLX_ERR_INTERNAL, PLX_ERR_INTERNAL};
        plx_status_t first = plx_waitall(3, arr, sts);
        st = sts[1];
        g_checks++;
        if (arr[0] || arr[1] || arr[2] || sts[0] != PLX_SUCCESS || sts[2] != PLX_SUCCESS || first != st)
            nb_fail("waitall-contract", "non-NULL entry, NULL entry status not success, or wrong return",
                    "all entries NULL, statuses[NULL entries] = success, return = first error");
        *req = arr[1];
        break;
    }
    default: {
        plx_request_t arr[3] = {NULL, NULL, *req};
        int idx = -7;
        st = plx_waitany(3, arr, &idx);
        g_checks++;
        if (idx != 2 || arr[2] != NULL) {
            char gs[64];
            snprintf(gs, sizeof gs, "index %d, entry %s", idx, arr[2] ? "non-NULL" : "NULL");
            nb_fail("waitany-index", gs, "index 2, entry NULL");
        }
        idx = -7;
        plx_status_t st2 = plx_waitany(3, arr, &idx);
        g_checks++;
        if (st2 != PLX_SUCCESS || idx != -1)
            nb_fail("waitany-all-null", plx_strerror(st2), "PLX_SUCCESS and index -1");
        *req = arr[2];
        break;
    }
    }
    g_checks++;
    if (*req != NULL)
        nb_fail("request-not-null-after-completion", "non-NULL", "NULL");
    return st;
}

/* After an i-call: refused -> *req NULL; started -> complete it. */
static plx_status_t nb_finish(plx_status_t st, plx_request_t *req)
{
    if (st != PLX_SUCCESS) {
        g_checks++;
        if (*req != NULL)
            nb_fail("refused-i-call-left-request-set", "*req not NULL", "*req NULL");
        return st;
    }
    g_checks++;
    if (*req == REQ_MARK) {
        nb_fail("started-i-call-left-request-unset", "*req untouched", "a request");
        return PLX_ERR_INTERNAL;
    }
    return nb_complete(req);
}

#define NB_OR_BLOCKING(icall, bcall)                      \
    do {                                                  \
        if (!g_nb) return bcall;                          \
        plx_request_t req = REQ_MARK;                     \
        return nb_finish(icall, &req);                    \
    } while (0)

static plx_status_t x_barrier(plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_ibarrier(comm, &req), plx_barrier(comm));
}
static plx_status_t x_bcast(void *buf, size_t c, plx_dtype_t dt, int root, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_ibcast(buf, c, dt, root, comm, &req), plx_bcast(buf, c, dt, root, comm));
}
static plx_status_t x_reduce(const void *s, void *r, size_t c, plx_dtype_t dt, plx_op_t op, int root,
                             plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_ireduce(s, r, c, dt, op, root, comm, &req), plx_reduce(s, r, c, dt, op, root, comm));
}
static plx_status_t x_allreduce(const void *s, void *r, size_t c, plx_dtype_t dt, plx_op_t op, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_iallreduce(s, r, c, dt, op, comm, &req), plx_allreduce(s, r, c, dt, op, comm));
}
static plx_status_t x_allgather(const void *s, void *r, size_t c, plx_dtype_t dt, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_iallgather(s, r, c, dt, comm, &req), plx_allgather(s, r, c, dt, comm));
}
static plx_status_t x_reduce_scatter(const void *s, void *r, size_t c, plx_dtype_t dt, plx_op_t op,
                                     plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_ireduce_scatter(s, r, c, dt, op, comm, &req), plx_reduce_scatter(s, r, c, dt, op, comm));
}
static plx_status_t x_alltoall(const void *s, void *r, size_t c, plx_dtype_t dt, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_ialltoall(s, r, c, dt, comm, &req), plx_alltoall(s, r, c, dt, comm));
}
static plx_status_t x_gather(const void *s, void *r, size_t c, plx_dtype_t dt, int root, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_igather(s, r, c, dt, root, comm, &req), plx_gather(s, r, c, dt, root, comm));
}
static plx_status_t x_scatter(const void *s, void *r, size_t c, plx_dtype_t dt, int root, plx_comm_t comm)
{
    NB_OR_BLOCKING(plx_iscatter(s, r, c, dt, root, comm, &req), plx_scatter(s, r, c, dt, root, comm));
}

/* ---- one collective test on one communicator ----------------------------
 * gens[r] is the generator id of comm rank r (its world rank). */
static gbuf_t g_sb, g_rb;

static void run_case_body(plx_comm_t comm, const int *gens, const tcase_t *t);

static void run_case(plx_comm_t comm, const int *gens, const tcase_t *t)
{
    g_cur = t;
    run_case_body(comm, gens, t);
    g_cur = NULL;
}

static void run_case_body(plx_comm_t comm, const int *gens, const tcase_t *t)
{
    int me, n;
    if (plx_comm_rank(comm, &me) != PLX_SUCCESS || plx_comm_size(comm, &n) != PLX_SUCCESS)
        die("plx_comm_rank/size failed");
    /* products of more than 6 inputs in {-2..2} leave int8 / the exact range */
    if (t->op == PLX_PROD && n > 6)
        return;
    const uint64_t tid = ++g_tid;
    const plx_dtype_t dt = t->dt;
    const size_t es = esize(dt), c = t->count, nc = (size_t)n * c;
    const int kind = t->op >= 0 ? op_kind(t->op) : K_COPY;
    const int root = t->root, isroot = (me == root), ip = t->inplace;
    const int mygen = gens[me];
    gbuf_t *sb = &g_sb, *rb = &g_rb;
    size_t sbytes = 0, rbytes = 0;     /* regions whose guards are checked */
    plx_status_t st = PLX_SUCCESS;

    switch (t->coll) {
    case C_BCAST:
        rbytes = c * es;
        gbuf_need(rb, rbytes);
        gbuf_sentinel(rb, rbytes);
        if (isroot)
            make_input(t, kind, mygen, tid, c, gbuf_ptr(rb));
        st = x_bcast(gbuf_ptr(rb), c, dt, root, comm);
        if (!check_status(t, st)) return;
        if (isroot)
            check_pristine(t, gbuf_ptr(rb), c, "root-buf-changed");
        else
            check_input(t, gbuf_ptr(rb), kind, gens[root], tid, 0, c, "result");
        check_guards(t, rb, rbytes, "buf");
        return;

    case C_REDUCE:
    case C_ALLREDUCE: {
        int all = t->coll == C_ALLREDUCE;
        int use_ip = ip && (all || isroot);
        sbytes = c * es;
        rbytes = c * es;
        gbuf_need(sb, sbytes);
        gbuf_need(rb, rbytes);
        gbuf_sentinel(sb, sbytes);
        gbuf_sentinel(rb, rbytes);
        make_input(t, kind, mygen, tid, c, use_ip ? gbuf_ptr(rb) : gbuf_ptr(sb));
        const void *s = use_ip ? PLX_IN_PLACE : (const void *)gbuf_ptr(sb);
        if (all)
            st = x_allreduce(s, gbuf_ptr(rb), c, dt, (plx_op_t)t->op, comm);
        else
            st = x_reduce(s, gbuf_ptr(rb), c, dt, (plx_op_t)t->op, root, comm);
        if (!check_status(t, st)) return;
        if (!use_ip) {
            check_pristine(t, gbuf_ptr(sb), c, "sendbuf-changed");
            check_guards(t, sb, sbytes, "sendbuf");
        }
        if (all || isroot)
            check_reduced(t, gbuf_ptr(rb), gens, n, tid, 0, c, "result");
        else
            check_untouched(t, rb, rbytes, "ignored-recvbuf-written");
        check_guards(t, rb, rbytes, "recvbuf");
        return;
    }

    case C_ALLGATHER:
    case C_GATHER: {
        int all = t->coll == C_ALLGATHER;
        int use_ip = ip && (all || isroot);
        sbytes = c * es;
        rbytes = nc * es;
        gbuf_need(sb, sbytes);
        gbuf_need(rb, rbytes);
        gbuf_sentinel(sb, sbytes);
        gbuf_sentinel(rb, rbytes);
        make_input(t, kind, mygen, tid, c, use_ip ? gbuf_ptr(rb) + (size_t)me * c * es : gbuf_ptr(sb));
        const void *s = use_ip ? PLX_IN_PLACE : (const void *)gbuf_ptr(sb);
        if (all)
            st = x_allgather(s, gbuf_ptr(rb), c, dt, comm);
        else
            st = x_gather(s, gbuf_ptr(rb), c, dt, root, comm);
        if (!check_status(t, st)) return;
        if (!use_ip) {
            check_pristine(t, gbuf_ptr(sb), c, "sendbuf-changed");
            check_guards(t, sb, sbytes, "sendbuf");
        }
        if (all || isroot) {
            for (int j = 0; j < n; j++) {
                char what[48];
                snprintf(what, sizeof what, "result-block%d", j);
                check_input(t, gbuf_ptr(rb) + (size_t)j * c * es, kind, gens[j], tid, 0, c, what);
            }
        } else {
            check_untouched(t, rb, rbytes, "ignored-recvbuf-written");
        }
        check_guards(t, rb, rbytes, "recvbuf");
        return;
    }

    case C_REDUCE_SCATTER: {
        sbytes = nc * es;
        rbytes = (ip ? nc : c) * es;
        gbuf_need(sb, sbytes);
        gbuf_need(rb, rbytes);
        gbuf_sentinel(sb, sbytes);
        gbuf_sentinel(rb, rbytes);
        make_input(t, kind, mygen, tid, nc, ip ? gbuf_ptr(rb) : gbuf_ptr(sb));
        const void *s = ip ? PLX_IN_PLACE : (const void *)gbuf_ptr(sb);
        st = x_reduce_scatter(s, gbuf_ptr(rb), c, dt, (plx_op_t)t->op, comm);
        if (!check_status(t, st)) return;
        if (!ip) {
            check_pristine(t, gbuf_ptr(sb), nc, "sendbuf-changed");
            check_guards(t, sb, sbytes, "sendbuf");
        }
        check_reduced(t, gbuf_ptr(rb), gens, n, tid, (size_t)me * c, c, "result");
        check_guards(t, rb, rbytes, "recvbuf");
        return;
    }

    case C_ALLTOALL: {
        sbytes = nc * es;
        rbytes = nc * es;
        gbuf_need(sb, sbytes);
        gbuf_need(rb, rbytes);
        gbuf_sentinel(sb, sbytes);
        gbuf_sentinel(rb, rbytes);
        make_input(t, kind, mygen, tid, nc, ip ? gbuf_ptr(rb) : gbuf_ptr(sb));
        const void *s = ip ? PLX_IN_PLACE : (const void *)gbuf_ptr(sb);
        st = x_alltoall(s, gbuf_ptr(rb), c, dt, comm);
        if (!check_status(t, st)) return;
        if (!ip) {
            check_pristine(t, gbuf_ptr(sb), nc, "sendbuf-changed");
            check_guards(t, sb, sbytes, "sendbuf");
        }
        for (int i = 0; i < n; i++) {
            char what[48];
            snprintf(what, sizeof what, "result-block%d", i);
            check_input(t, gbuf_ptr(rb) + (size_t)i * c * es, kind, gens[i], tid, (size_t)me * c, c, what);
        }
        check_guards(t, rb, rbytes, "recvbuf");
        return;
    }

    case C_SCATTER: {
        int use_ip = ip && isroot;
        sbytes = nc * es;
        rbytes = c * es;
        gbuf_need(sb, sbytes);
        gbuf_need(rb, rbytes);
        gbuf_sentinel(sb, sbytes);
        gbuf_sentinel(rb, rbytes);
        if (isroot)
            make_input(t, kind, mygen, tid, nc, gbuf_ptr(sb));
        void *r = use_ip ? PLX_IN_PLACE : (void *)gbuf_ptr(rb);
        st = x_scatter(gbuf_ptr(sb), r, c, dt, root, comm);
        if (!check_status(t, st)) return;
        if (isroot)
            check_pristine(t, gbuf_ptr(sb), nc, "sendbuf-changed");
        else
            check_untouched(t, sb, sbytes, "ignored-sendbuf-written");
        check_guards(t, sb, sbytes, "sendbuf");
        if (use_ip)
            check_untouched(t, rb, rbytes, "unused-recvbuf-written");
        else
            check_input(t, gbuf_ptr(rb), kind, gens[root], tid, (size_t)me * c, c, "result");
        check_guards(t, rb, rbytes, "recvbuf");
        return;
    }
    default:
        die("bad collective %d", t->coll);
    }
}

/* Barrier: no rank may leave before the last one entered.  Rank (iter % n)
 * arrives 20 ms late each time. */
static void run_barrier(plx_comm_t comm, int iters)
{
    int me, n;
    plx_comm_rank(comm, &me);
    plx_comm_size(comm, &n);
    tcase_t t = {C_BARRIER, PLX_FLOAT64, -1, 0, -1, 0};
    g_cur = &t;
    double *stamps = malloc(2 * (size_t)n * sizeof(double));
    if (!stamps) die("out of memory");
    for (int it = 0; it < iters; it++) {
        if (me == it % n)
            usleep(20000);
        double mine[2];
        mine[0] = now_real();
        plx_status_t st = x_barrier(comm);
        mine[1] = now_real();
        if (!check_status(&t, st)) continue;
        st = x_allgather(mine, stamps, 2, PLX_FLOAT64, comm);
        if (!check_status(&t, st)) continue;
        double last_in = stamps[0], first_out = stamps[1];
        int who_in = 0, who_out = 0;
        for (int r = 0; r < n; r++) {
            if (stamps[2 * r] > last_in) { last_in = stamps[2 * r]; who_in = r; }
            if (stamps[2 * r + 1] < first_out) { first_out = stamps[2 * r + 1]; who_out = r; }
        }
        g_checks++;
        if (first_out < last_in && me == 0) {
            char gs[96], xs[96];
            snprintf(gs, sizeof gs, "rank %d left at %.6f", who_out, first_out);
            snprintf(xs, sizeof xs, ">= entry of rank %d at %.6f", who_in, last_in);
            report(&t, me, "barrier-left-early", it, gs, xs);
        }
    }
    free(stamps);
    g_cur = NULL;
}

/* ---- the sweep ---------------------------------------------------------- */
static int op_valid(plx_dtype_t dt, int op)
{
    if (op >= PLX_BAND)
        return !is_float(dt);
    return 1;
}

static int is_reduction(int coll)
{
    return coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_REDUCE_SCATTER;
}
static int is_rooted(int coll)
{
    return coll == C_BCAST || coll == C_REDUCE || coll == C_GATHER || coll == C_SCATTER;
}
static int has_inplace(int coll)
{
    return coll != C_BCAST && coll != C_BARRIER;
}

static void sweep_coll(plx_comm_t comm, const int *gens, int coll, const size_t *counts, int ncounts,
                       int all_ops, int big_limit)
{
    int n;
    plx_comm_size(comm, &n);
    int roots[2] = {0, n - 1}, nroots = is_rooted(coll) ? (n > 1 ? 2 : 1) : 1;
    for (int ci = 0; ci < ncounts; ci++) {
        size_t count = counts[ci];
        int big = big_limit && count >= (1u << 20);
        for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
            plx_dtype_t dt = (plx_dtype_t)d;
            if (big && !g_big_dt_on[d])
                continue;
            for (int op = is_reduction(coll) ? 0 : -1; op < (is_reduction(coll) ? PLX_OP_COUNT : 0); op++) {
                if (op >= 0) {
                    if (!op_valid(dt, op))
                        continue;
                    if ((big || !all_ops) && op != PLX_SUM && op != PLX_MAX && op != PLX_AVG)
                        continue;
                }
                for (int ri = 0; ri < nroots; ri++) {
                    for (int ip = 0; ip <= has_inplace(coll); ip++) {
                        tcase_t t = {coll, dt, op, count, is_rooted(coll) ? roots[ri] : -1, ip};
                        run_case(comm, gens, &t);
                    }
                }
            }
        }
    }
}

/* ---- communicator pass -------------------------------------------------- */
static void comm_fail(const char *what, const char *got, const char *exp)
{
    tcase_t t = {C_COMM, PLX_INT32, -1, 0, -1, 0};
    report(&t, g_rank, what, -1, got, exp);
}

static void expect_st(plx_status_t st, plx_status_t want, const char *what)
{
    g_checks++;
    if (st != want) {
        char gs[96], xs[96];
        snprintf(gs, sizeof gs, "%d(%s)", (int)st, plx_strerror(st));
        snprintf(xs, sizeof xs, "%d(%s)", (int)want, plx_strerror(want));
        comm_fail(what, gs, xs);
    }
}

static void expect_int(long got, long want, const char *what)
{
    g_checks++;
    if (got != want) {
        char gs[32], xs[32];
        snprintf(gs, sizeof gs, "%ld", got);
        snprintf(xs, sizeof xs, "%ld", want);
        comm_fail(what, gs, xs);
    }
}

/* Collectives checked on a sub-communicator (small counts). */
static void sub_sweep(plx_comm_t comm, const int *gens)
{
    static const size_t counts[] = {0, 1, 7, 1000};
    int nc = 4;
    int n;
    plx_comm_size(comm, &n);
    for (int ci = 0; ci < nc; ci++) {
        for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
            plx_dtype_t dt = (plx_dtype_t)d;
            static const int ops[3] = {PLX_SUM, PLX_MAX, PLX_AVG};
            for (int oi = 0; oi < 3; oi++)
                for (int ip = 0; ip < 2; ip++) {
                    tcase_t t = {C_ALLREDUCE, dt, ops[oi], counts[ci], -1, ip};
                    run_case(comm, gens, &t);
                }
            for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
                tcase_t t = {C_BCAST, dt, -1, counts[ci], root, 0};
                run_case(comm, gens, &t);
            }
            for (int ip = 0; ip < 2; ip++) {
                tcase_t t = {C_ALLGATHER, dt, -1, counts[ci], -1, ip};
                run_case(comm, gens, &t);
                tcase_t u = {C_ALLTOALL, dt, -1, counts[ci], -1, ip};
                run_case(comm, gens, &u);
            }
        }
    }
}

/* Split world by parity; key_sign = +1 (key = rank) or -1 (reversed). */
static void split_pass(plx_comm_t world, int key_sign)
{
    int color = g_rank % 2;
    plx_comm_t sub = NULL;
    char name[32];
    snprintf(name, sizeof name, "parity%s", key_sign > 0 ? "" : "-reversed");
    g_comm_name = "world";
    expect_st(plx_comm_split(world, color, key_sign * g_rank, &sub), PLX_SUCCESS, "comm_split-parity");
    g_checks++;
    if (!sub) {
        comm_fail("comm_split-parity-null", "NULL", "a communicator");
        return;
    }
    /* members: world ranks with the same parity, ordered by key */
    int members[64], nm = 0;
    for (int r = color; r < g_size && nm < 64; r += 2)
        members[nm++] = r;
    if (key_sign < 0)
        for (int i = 0; i < nm / 2; i++) {
            int x = members[i]; members[i] = members[nm - 1 - i]; members[nm - 1 - i] = x;
        }
    int want_rank = -1;
    for (int i = 0; i < nm; i++)
        if (members[i] == g_rank) want_rank = i;
    int sr = -1, ss = -1;
    expect_st(plx_comm_rank(sub, &sr), PLX_SUCCESS, "comm_rank-sub");
    expect_st(plx_comm_size(sub, &ss), PLX_SUCCESS, "comm_size-sub");
    expect_int(sr, want_rank, "sub-rank");
    expect_int(ss, nm, "sub-size");
    if (sr == want_rank && ss == nm) {
        g_comm_name = name;
        sub_sweep(sub, members);
        run_barrier(sub, 2);
        g_comm_name = "world";
    }
    plx_comm_t stale = sub;
    expect_st(plx_comm_free(&sub), PLX_SUCCESS, "comm_free-sub");
    g_checks++;
    if (sub != NULL)
        comm_fail("comm_free-did-not-null-handle", "non-NULL", "NULL");
    int r = -7;
    expect_st(plx_comm_rank(stale, &r), PLX_ERR_INVALID_ARG, "comm_rank-on-freed-comm");
    expect_int(r, -1, "comm_rank-on-freed-comm-did-not-set-rank--1");
    int x = 1, y = -7;
    expect_st(x_allreduce(&x, &y, 1, PLX_INT32, PLX_SUM, stale), PLX_ERR_INVALID_ARG,
              "allreduce-on-freed-comm");
    expect_int(y, -7, "allreduce-on-freed-comm-wrote-recvbuf");
    expect_st(x_bcast(&x, 1, PLX_INT32, 0, stale), PLX_ERR_INVALID_ARG, "bcast-on-freed-comm");
    expect_st(x_barrier(stale), PLX_ERR_INVALID_ARG, "barrier-on-freed-comm");
}

/* Ranks that ran different numbers of cases (sub-communicators of other
 * sizes) agree on the next test id again. */
static void sync_tid(plx_comm_t world)
{
    uint64_t mx = g_tid, got = 0;
    expect_st(x_allreduce(&mx, &got, 1, PLX_UINT64, PLX_MAX, world), PLX_SUCCESS, "allreduce-tid-sync");
    g_tid = got;
}

static void comm_pass(plx_comm_t world)
{
    int *wgens = malloc((size_t)g_size * sizeof(int));
    if (!wgens) die("out of memory");
    for (int r = 0; r < g_size; r++) wgens[r] = r;

    split_pass(world, +1);
    sync_tid(world);
    split_pass(world, -1);
    sync_tid(world);

    /* PLX_UNDEFINED: rank 0 stays out; the rest form one comm ranked by world rank. */
    {
        plx_comm_t sub = (plx_comm_t)(uintptr_t)0x1;   /* must be overwritten with NULL at rank 0 */
        int color = g_rank == 0 ? PLX_UNDEFINED : 3;
        expect_st(plx_comm_split(world, color, 0, &sub), PLX_SUCCESS, "comm_split-undefined");
        if (g_rank == 0) {
            g_checks++;
            if (sub != NULL) comm_fail("comm_split-undefined-not-null", "non-NULL", "NULL");
        } else if (sub == NULL || sub == (plx_comm_t)(uintptr_t)0x1) {
            g_checks++;
            comm_fail("comm_split-undefined-member-null", "NULL/unset", "a communicator");
        } else {
            int sr = -1, ss = -1;
            plx_comm_rank(sub, &sr);
            plx_comm_size(sub, &ss);
            expect_int(sr, g_rank - 1, "sub-rank-undefined-split");
            expect_int(ss, g_size - 1, "sub-size-undefined-split");
            if (sr == g_rank - 1 && ss == g_size - 1) {
                g_comm_name = "all-but-0";
                for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
                    tcase_t t = {C_ALLREDUCE, (plx_dtype_t)d, PLX_SUM, 1000, -1, 0};
                    run_case(sub, wgens + 1, &t);
                }
                g_comm_name = "world";
            }
            expect_st(plx_comm_free(&sub), PLX_SUCCESS, "comm_free-undefined-split");
        }
    }
    sync_tid(world);

    /* dup: same ranks; interleave with world collectives */
    {
        plx_comm_t dup = NULL;
        expect_st(plx_comm_dup(world, &dup), PLX_SUCCESS, "comm_dup");
        g_checks++;
        if (!dup) {
            comm_fail("comm_dup-null", "NULL", "a communicator");
        } else {
            int sr = -1, ss = -1;
            plx_comm_rank(dup, &sr);
            plx_comm_size(dup, &ss);
            expect_int(sr, g_rank, "dup-rank");
            expect_int(ss, g_size, "dup-size");
            for (int d = 0; d < PLX_DTYPE_COUNT; d++) {
                tcase_t t = {C_ALLREDUCE, (plx_dtype_t)d, PLX_SUM, 1000, -1, d & 1};
                g_comm_name = "dup";
                run_case(dup, wgens, &t);
                g_comm_name = "world";
                run_case(world, wgens, &t);
                tcase_t u = {C_ALLGATHER, (plx_dtype_t)d, -1, 7, -1, 0};
                g_comm_name = "dup";
                run_case(dup, wgens, &u);
                tcase_t v = {C_BCAST, (plx_dtype_t)d, -1, 1000, g_size - 1, 0};
                run_case(dup, wgens, &v);
                tcase_t w = {C_ALLTOALL, (plx_dtype_t)d, -1, 7, -1, 0};
                run_case(dup, wgens, &w);
                g_comm_name = "world";
            }
            /* a dup of the dup, freed in the reverse order */
            plx_comm_t dup2 = NULL;
            expect_st(plx_comm_dup(dup, &dup2), PLX_SUCCESS, "comm_dup-of-dup");
            if (dup2) {
                tcase_t t = {C_ALLREDUCE, PLX_INT64, PLX_SUM, 7, -1, 0};
                g_comm_name = "dup2";
                run_case(dup2, wgens, &t);
                g_comm_name = "world";
            }
            plx_comm_t stale = dup;
            expect_st(plx_comm_free(&dup), PLX_SUCCESS, "comm_free-dup");
            int r = -7;
            expect_st(plx_comm_rank(stale, &r), PLX_ERR_INVALID_ARG, "comm_rank-on-freed-dup");
            expect_st(plx_comm_free(&stale), PLX_ERR_INVALID_ARG, "comm_free-twice");
            if (dup2) {
                tcase_t t = {C_ALLREDUCE, PLX_FLOAT32, PLX_MAX, 1000, -1, 1};
                g_comm_name = "dup2-after-parent-freed";
                run_case(dup2, wgens, &t);
                g_comm_name = "world";
                expect_st(plx_comm_free(&dup2), PLX_SUCCESS, "comm_free-dup2");
            }
        }
    }
    /* churn: many short-lived dups (ids must not collide or run out) */
    for (int i = 0; i < 100; i++) {
        plx_comm_t d = NULL;
        plx_status_t st = plx_comm_dup(world, &d);
        g_checks++;
        if (st != PLX_SUCCESS || !d) {
            char gs[96];
            snprintf(gs, sizeof gs, "%d(%s) at iteration %d", (int)st, plx_strerror(st), i);
            comm_fail("comm_dup-churn", gs, "0(success)");
            break;
        }
        tcase_t t = {C_ALLREDUCE, PLX_INT32, i % 2 ? PLX_MAX : PLX_SUM, 7, -1, 0};
        g_comm_name = "dup-churn";
        run_case(d, wgens, &t);
        g_comm_name = "world";
        expect_st(plx_comm_free(&d), PLX_SUCCESS, "comm_free-churn");
    }
    /* every rank alone (colour = rank): size-1 communicators */
    {
        plx_comm_t alone = NULL;
        expect_st(plx_comm_split(world, g_rank, 0, &alone), PLX_SUCCESS, "comm_split-alone");
        if (alone) {
            int sr = -1, ss = -1;
            plx_comm_rank(alone, &sr);
            plx_comm_size(alone, &ss);
            expect_int(sr, 0, "alone-rank");
            expect_int(ss, 1, "alone-size");
            g_comm_name = "alone";
            tcase_t t = {C_ALLREDUCE, PLX_FLOAT64, PLX_AVG, 1000, -1, 1};
            run_case(alone, wgens + g_rank, &t);
            tcase_t u = {C_ALLTOALL, PLX_INT8, -1, 7, -1, 0};
            run_case(alone, wgens + g_rank, &u);
            g_comm_name = "world";
            expect_st(plx_comm_free(&alone), PLX_SUCCESS, "comm_free-alone");
        }
    }
    /* nested: the parity comm split again into its lower and upper half */
    {
        plx_comm_t par = NULL, half = NULL;
        expect_st(plx_comm_split(world, g_rank % 2, g_rank, &par), PLX_SUCCESS, "comm_split-nested-1");
        if (par) {
            int pr = -1, ps = -1;
            plx_comm_rank(par, &pr);
            plx_comm_size(par, &ps);
            int upper = pr >= ps / 2;
            expect_st(plx_comm_split(par, upper, pr, &half), PLX_SUCCESS, "comm_split-nested-2");
            if (half) {
                int members[64], nm = 0;
                for (int i = 0; i < ps && nm < 64; i++)
                    if ((i >= ps / 2) == upper) members[nm++] = g_rank % 2 + 2 * i;
                int hr = -1, hs = -1;
                plx_comm_rank(half, &hr);
                plx_comm_size(half, &hs);
                expect_int(hs, nm, "nested-size");
                expect_int(hr, pr - (upper ? ps / 2 : 0), "nested-rank");
                if (hs == nm && hr == pr - (upper ? ps / 2 : 0)) {
                    g_comm_name = "nested";
                    tcase_t t = {C_ALLGATHER, PLX_UINT32, -1, 1000, -1, 0};
                    run_case(half, members, &t);
                    tcase_t u = {C_ALLREDUCE, PLX_INT64, PLX_SUM, 1000, -1, 0};
                    run_case(half, members, &u);
                    g_comm_name = "world";
                }
                expect_st(plx_comm_free(&half), PLX_SUCCESS, "comm_free-nested-2");
            }
            expect_st(plx_comm_free(&par), PLX_SUCCESS, "comm_free-nested-1");
        }
    }
    sync_tid(world);
    /* world still fine */
    {
        tcase_t t = {C_ALLREDUCE, PLX_INT32, PLX_SUM, 1000, -1, 0};
        run_case(world, wgens, &t);
    }
    free(wgens);
}

/* ---- main --------------------------------------------------------------- */
static void usage(void)
{
    fprintf(stderr, "usage: coll_check [--quick] [--nb] [--coll NAME[,NAME..]] [--seed N] "
                    "[--big-dtypes NAME[,NAME..]] [--counts N[,N..]] [--tag X]\n");
    exit(2);
}

static int parse_list(const char *arg, const char *const *names, int nnames, int *on,
                      const char *(*namefn)(int))
{
    char *dup = strdup(arg), *save = NULL;
    if (!dup) return -1;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < nnames; i++) {
            const char *nm = names ? names[i] : namefn(i);
            if (strcmp(tok, nm) == 0) { on[i] = 1; found = 1; }
        }
        if (!found) {
            fprintf(stderr, "coll_check: unknown name '%s'\n", tok);
            free(dup);
            return -1;
        }
    }
    free(dup);
    return 0;
}

static const char *dtname_i(int i) { return plx_dtype_name((plx_dtype_t)i); }

int main(int argc, char **argv)
{
    const char *coll_arg = NULL, *big_arg = NULL, *counts_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) g_quick = 1;
        else if (!strcmp(argv[i], "--nb")) g_nb = 1;
        else if (!strcmp(argv[i], "--coll") && i + 1 < argc) coll_arg = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--big-dtypes") && i + 1 < argc) big_arg = argv[++i];
        else if (!strcmp(argv[i], "--counts") && i + 1 < argc) counts_arg = argv[++i];
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc) i++;
        else usage();
    }
    if (coll_arg) {
        if (parse_list(coll_arg, coll_names, C_NCOLL + 1, g_coll_on, NULL) != 0) usage();
    } else {
        for (int i = 0; i <= C_NCOLL; i++) g_coll_on[i] = 1;
    }
    if (big_arg) {
        if (parse_list(big_arg, NULL, PLX_DTYPE_COUNT, g_big_dt_on, dtname_i) != 0) usage();
    } else {
        for (int i = 0; i < PLX_DTYPE_COUNT; i++) g_big_dt_on[i] = 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    plx_context_t ctx = NULL;
    plx_comm_t world = NULL;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "coll_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    if (plx_comm_world(ctx, &world) != PLX_SUCCESS || plx_comm_rank(world, &g_rank) != PLX_SUCCESS ||
        plx_comm_size(world, &g_size) != PLX_SUCCESS)
        die("cannot query the world communicator");

    if (g_size > 21)
        die("supports at most 21 ranks (sums of the small inputs must stay exact in int8/float16)");
    int *gens = malloc((size_t)g_size * sizeof(int));
    if (!gens) die("out of memory");
    for (int r = 0; r < g_size; r++) gens[r] = r;

    size_t counts_full[32] = {0, 1, 7, 1000, 1u << 20};
    int ncounts = g_quick ? 4 : 5;
    if (counts_arg) {
        char *dup = strdup(counts_arg), *save = NULL;
        if (!dup) die("out of memory");
        ncounts = 0;
        for (char *tok = strtok_r(dup, ",", &save); tok && ncounts < 32; tok = strtok_r(NULL, ",", &save))
            counts_full[ncounts++] = strtoull(tok, NULL, 0);
        free(dup);
    }
    double t_all = now_mono();

    for (int coll = 0; coll < C_NCOLL; coll++) {
        if (!g_coll_on[coll]) continue;
        double t0 = now_mono();
        long f0 = g_fails, c0 = g_checks;
        g_comm_name = "world";
        if (coll == C_BARRIER)
            run_barrier(world, 2 * g_size + 1);
        else
            sweep_coll(world, gens, coll, counts_full, ncounts, 1, 1);
        if (g_rank == 0)
            printf("coll_check: %-14s %6.2f s  %6ld checks  %ld failures (rank 0)\n", coll_names[coll],
                   now_mono() - t0, g_checks - c0, g_fails - f0);
    }
    if (g_coll_on[C_COMM]) {
        double t0 = now_mono();
        long f0 = g_fails, c0 = g_checks;
        comm_pass(world);
        if (g_rank == 0)
            printf("coll_check: %-14s %6.2f s  %6ld checks  %ld failures (rank 0)\n", "comm",
                   now_mono() - t0, g_checks - c0, g_fails - f0);
    }

    st = plx_finalize(&ctx);
    g_checks++;
    if (st != PLX_SUCCESS || ctx != NULL) {
        tcase_t t = {C_COMM, PLX_INT32, -1, 0, -1, 0};
        char gs[96];
        snprintf(gs, sizeof gs, "%d(%s)%s", (int)st, plx_strerror(st), ctx ? " ctx not NULL" : "");
        report(&t, g_rank, "finalize", -1, gs, "0(success), ctx NULL");
    }
    free(gens);
    free(g_sb.base);
    free(g_rb.base);
    free(g_exp.p);
    free(g_pristine.p);
    free(g_acc.p);
    if (g_rank == 0) {
        printf("coll_check: total %.2f s%s\n", now_mono() - t_all, g_nb ? " (nonblocking)" : "");
        if (g_nb)
            printf("coll_check: completions by wait %ld, test loop %ld, waitall %ld, waitany %ld (rank 0)\n",
                   g_nb_paths[0], g_nb_paths[1], g_nb_paths[2], g_nb_paths[3]);
    }
    printf("coll_check: rank %d size %d%s: %ld checks, %ld failures\n", g_rank, g_size, g_nb ? " nb" : "",
           g_checks, g_fails);
    return g_fails ? 1 : 0;
}
