/*
 * tests/mr/vcoll_check.c — multi-rank correctness test of the calls of
 * issue 14: the v-collectives (allgatherv, alltoallv, gatherv, scatterv,
 * reduce_scatterv), the prefix reductions (scan, exscan) and user-defined
 * ops (plx_op_create), launched by plexusrun (`plexusrun -n N vcoll_check`).
 *
 * What it checks, and why:
 *  - every new call x every datatype x several random count sets (shared
 *    by all ranks through the seed; about a quarter of the blocks empty,
 *    one set with every block empty, one large set past the selector's
 *    size thresholds) x random displacements (blocks in a shuffled order
 *    with gaps) x in place where the API defines it x roots {0, size-1};
 *    the reductions with every valid built-in op plus two user ops: a
 *    commutative one (an addition written by the user, every datatype) and
 *    a non-commutative one (a 2x2 matrix product, entries mod 2^8 or 2^16
 *    packed into each 4- or 8-byte element), whose result differs when
 *    any two ranks' contributions are combined out of order.
 *  - each test runs as a blocking call, an i-form + plx_wait, or a graph
 *    node (rotating by test number, so every call is covered every way);
 *    the count and displacement arrays are overwritten right after an
 *    i-call or graph add returns (the API says they are read during the
 *    call only).
 *  - results checked element by element against a serial reference every
 *    rank computes itself (copy collectives: hashed bytes, so a misplaced
 *    block shows; reductions: small integers, exact in every type; AVG on
 *    float types within a relative 1e-2 for the half types, 1e-6 others);
 *    gaps between receive blocks, buffers the API ignores, the send buffer
 *    and guard bytes around every buffer must come back untouched.
 *  - bad arguments (PLX_ERR_INVALID_ARG, nothing written): NULL count
 *    arrays, a negative int converted to size_t as count or displacement,
 *    overlapping receive blocks, sendcount != recvcounts[rank], NULL
 *    buffers, PLX_IN_PLACE where not allowed, bad root, unknown or freed
 *    ops, NULL req, plx_op_create / plx_op_free misuse.
 *
 * Output: a line per failure, then `vcoll_check: rank R size S: N checks,
 * M failures`; exit 1 on any failure.
 * Options: --quick (fewer count sets, no large one), --coll NAME[,NAME]
 * (allgatherv alltoallv gatherv scatterv reduce_scatterv scan exscan
 * userop_reduce badargs vmismatch; all but vmismatch by default: it needs
 * the node-local algorithms forced), --seed N, --tag X (ignored).
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

#include "plexus.h"

#define GUARD 64
#define SENT 0xA5
#define MAX_PRINTED 100

enum { C_ALLGATHERV, C_ALLTOALLV, C_GATHERV, C_SCATTERV, C_REDUCE_SCATTERV, C_SCAN, C_EXSCAN,
       C_USEROP_REDUCE, C_BADARGS, C_VMISMATCH, C_N };
static const char *coll_names[C_N] = { "allgatherv", "alltoallv", "gatherv", "scatterv",
                                       "reduce_scatterv", "scan", "exscan", "userop_reduce",
                                       "badargs", "vmismatch" };

static int g_rank, g_size, g_quick;
static uint64_t g_seed = 4242, g_tid;
static long g_checks, g_fails, g_printed;
static int g_on[C_N];
static plx_comm_t g_world;
static plx_context_t g_ctx;
static plx_op_t g_usum, g_umat;      /* the user ops */
static const char *g_mode = "-";     /* how the current test's call was made */

/* ---- small helpers ----------------------------------------------------- */
static void fail(const char *fmt, ...)
{
    g_fails++;
    if (g_printed++ >= MAX_PRINTED) return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL rank=%d tid=%" PRIu64 " mode=%s ", g_rank, g_tid, g_mode);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
}

static void check(int ok, const char *fmt, ...)
{
    g_checks++;
    if (ok) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fail("%s", buf);
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix(mix(mix(mix(g_seed ^ a) ^ b) ^ c) ^ d);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "vcoll_check: out of memory\n");
        exit(1);
    }
    return p;
}

/* A buffer of n bytes with GUARD sentinel bytes on each side; the body is
 * filled with the sentinel too. */
typedef struct gbuf { unsigned char *base; size_t n; } gbuf_t;
static void *gb_new(gbuf_t *g, size_t n)
{
    g->n = n;
    g->base = xmalloc(n + 2 * GUARD);
    memset(g->base, SENT, n + 2 * GUARD);
    return g->base + GUARD;
}
static int gb_guards_ok(const gbuf_t *g)
{
    for (size_t i = 0; i < GUARD; i++)
        if (g->base[i] != SENT || g->base[GUARD + g->n + i] != SENT) return 0;
    return 1;
}
static void gb_free(gbuf_t *g) { free(g->base); }

/* ---- datatypes: small integers in and out ------------------------------ */
static size_t esz(plx_dtype_t dt) { return plx_dtype_size(dt); }
static int is_unsigned(plx_dtype_t dt)
{
    return dt == PLX_UINT8 || dt == PLX_UINT32 || dt == PLX_UINT64;
}
static int is_float(plx_dtype_t dt)
{
    return dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64;
}

static float half_to_f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 0x3ff, bits;
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    if (e == 31) bits = sign | 0x7f800000u | (m << 13);
    else bits = sign | ((e - 15 + 127) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
/* exact for integers |x| < 2048 */
static uint16_t int_to_half(int64_t x)
{
    uint16_t sign = x < 0 ? 0x8000 : 0;
    uint64_t a = (uint64_t)(x < 0 ? -x : x);
    if (!a) return sign;
    int e = 63 - __builtin_clzll(a);
    uint16_t m = (uint16_t)((a << (10 - e)) & 0x3ff);
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | m);
}
static float bf_to_f(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static uint16_t f_to_bf_exact(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)(bits >> 16);
}

static void put_int(plx_dtype_t dt, void *buf, size_t i, int64_t v)
{
    switch (dt) {
    case PLX_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case PLX_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case PLX_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case PLX_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case PLX_INT64: ((int64_t *)buf)[i] = v; break;
    case PLX_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case PLX_FLOAT16: ((uint16_t *)buf)[i] = int_to_half(v); break;
    case PLX_BFLOAT16: ((uint16_t *)buf)[i] = f_to_bf_exact((float)v); break;
    case PLX_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case PLX_FLOAT64: ((double *)buf)[i] = (double)v; break;
    default: break;
    }
}

static double get_num(plx_dtype_t dt, const void *buf, size_t i)
{
    switch (dt) {
    case PLX_INT8: return ((const int8_t *)buf)[i];
    case PLX_UINT8: return ((const uint8_t *)buf)[i];
    case PLX_INT32: return ((const int32_t *)buf)[i];
    case PLX_UINT32: return ((const uint32_t *)buf)[i];
    case PLX_INT64: return (double)((const int64_t *)buf)[i];
    case PLX_UINT64: return (double)((const uint64_t *)buf)[i];
    case PLX_FLOAT16: return half_to_f(((const uint16_t *)buf)[i]);
    case PLX_BFLOAT16: return bf_to_f(((const uint16_t *)buf)[i]);
    case PLX_FLOAT32: return ((const float *)buf)[i];
    case PLX_FLOAT64: return ((const double *)buf)[i];
    default: return 0;
    }
}

/* ---- the user ops -------------------------------------------------------- */
/* Commutative: an addition written by the user, for every datatype. */
static void usum_fn(const void *in, void *inout, size_t n, plx_dtype_t dt, void *user)
{
    (void)user;
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case PLX_INT8: ((int8_t *)inout)[i] = (int8_t)(((const int8_t *)in)[i] + ((int8_t *)inout)[i]); break;
        case PLX_UINT8: ((uint8_t *)inout)[i] = (uint8_t)(((const uint8_t *)in)[i] + ((uint8_t *)inout)[i]); break;
        case PLX_INT32: ((uint32_t *)inout)[i] += ((const uint32_t *)in)[i]; break;
        case PLX_UINT32: ((uint32_t *)inout)[i] += ((const uint32_t *)in)[i]; break;
        case PLX_INT64: ((uint64_t *)inout)[i] += ((const uint64_t *)in)[i]; break;
        case PLX_UINT64: ((uint64_t *)inout)[i] += ((const uint64_t *)in)[i]; break;
        case PLX_FLOAT16:
            ((uint16_t *)inout)[i] = int_to_half((int64_t)(half_to_f(((const uint16_t *)in)[i]) +
                                                          half_to_f(((uint16_t *)inout)[i])));
            break;
        case PLX_BFLOAT16:
            ((uint16_t *)inout)[i] = f_to_bf_exact(bf_to_f(((const uint16_t *)in)[i]) +
                                                   bf_to_f(((uint16_t *)inout)[i]));
            break;
        case PLX_FLOAT32: ((float *)inout)[i] += ((const float *)in)[i]; break;
        case PLX_FLOAT64: ((double *)inout)[i] += ((const double *)in)[i]; break;
        default: break;
        }
    }
}

/* Non-commutative: each element packs a 2x2 matrix [a b; c d] (entries of
 * 8 bits in a 4-byte element, 16 bits in an 8-byte one); inout = in x inout. */
static uint64_t mat_mul(uint64_t x, uint64_t y, int bits)
{
    uint64_t mask = (1ull << bits) - 1;
    uint64_t a = x & mask, b = (x >> bits) & mask, c = (x >> 2 * bits) & mask, d = (x >> 3 * bits) & mask;
    uint64_t e = y & mask, f = (y >> bits) & mask, g = (y >> 2 * bits) & mask, h = (y >> 3 * bits) & mask;
    uint64_t r0 = (a * e + b * g) & mask, r1 = (a * f + b * h) & mask;
    uint64_t r2 = (c * e + d * g) & mask, r3 = (c * f + d * h) & mask;
    return r0 | r1 << bits | r2 << 2 * bits | r3 << 3 * bits;
}

static void umat_fn(const void *in, void *inout, size_t n, plx_dtype_t dt, void *user)
{
    int *calls = user;
    __atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
    size_t es = plx_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        if (es == 4) {
            uint32_t x, y;
            memcpy(&x, (const char *)in + 4 * i, 4);
            memcpy(&y, (char *)inout + 4 * i, 4);
            y = (uint32_t)mat_mul(x, y, 8);
            memcpy((char *)inout + 4 * i, &y, 4);
        } else {
            uint64_t x, y;
            memcpy(&x, (const char *)in + 8 * i, 8);
            memcpy(&y, (char *)inout + 8 * i, 8);
            y = mat_mul(x, y, 16);
            memcpy((char *)inout + 8 * i, &y, 8);
        }
    }
}
static int g_umat_calls;

/* ---- reduction inputs and reference ------------------------------------- */
#define OP_UMAT  (-2)          /* pseudo op ids for the table of ops tested */
#define OP_USUM  (-3)

static plx_op_t real_op(int op)
{
    return op == OP_UMAT ? g_umat : op == OP_USUM ? g_usum : (plx_op_t)op;
}
static const char *op_label(int op)
{
    return op == OP_UMAT ? "user_matmul" : op == OP_USUM ? "user_sum" : plx_op_name((plx_op_t)op);
}

static int op_ok(plx_dtype_t dt, int op)
{
    if (op == OP_USUM) return 1;
    if (op == OP_UMAT) return dt == PLX_INT32 || dt == PLX_UINT32 || dt == PLX_INT64 || dt == PLX_UINT64;
    if (op >= PLX_BAND && op <= PLX_BXOR) return !is_float(dt);
    if (op == PLX_PROD) return g_size <= 5;    /* products of {1,2} / {-2..2} stay in int8 */
    return 1;
}

/* Rank i's input element k of test tid: small integers, or a packed matrix. */
static int64_t red_in(plx_dtype_t dt, int op, int i, size_t k)
{
    uint64_t h = h4(g_tid, (uint64_t)i, k, 77);
    if (op == OP_UMAT) {
        if (esz(dt) == 4) return (int64_t)(uint32_t)h;
        return (int64_t)h;
    }
    if (op == PLX_PROD) {
        if (is_unsigned(dt)) return 1 + (int64_t)(h % 2);
        static const int64_t v[4] = { -2, -1, 1, 2 };
        return v[h % 4];
    }
    if (is_unsigned(dt)) return (int64_t)(h % 7);
    return (int64_t)(h % 7) - 3;
}

static void fill_red(plx_dtype_t dt, int op, int i, void *buf, size_t k0, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int64_t v = red_in(dt, op, i, k0 + k);
        if (op == OP_UMAT) {
            if (esz(dt) == 4) {
                uint32_t x = (uint32_t)v;
                memcpy((char *)buf + 4 * k, &x, 4);
            } else {
                memcpy((char *)buf + 8 * k, &v, 8);
            }
        } else {
            put_int(dt, buf, k, v);
        }
    }
}

/* Combine ranks lo..hi (inclusive, in order) of element k, then compare with
 * got[idx]. */
static void check_red(plx_dtype_t dt, int op, int lo, int hi, size_t k, const void *got, size_t idx,
                      const char *what)
{
    g_checks++;
    size_t es = esz(dt);
    if (op == OP_UMAT) {
        int bits = es == 4 ? 8 : 16;
        uint64_t acc = (uint64_t)red_in(dt, op, lo, k);
        if (es == 4) acc &= 0xffffffffu;
        for (int i = lo + 1; i <= hi; i++) {
            uint64_t x = (uint64_t)red_in(dt, op, i, k);
            if (es == 4) x &= 0xffffffffu;
            acc = mat_mul(acc, x, bits);
        }
        uint64_t g = 0;
        memcpy(&g, (const char *)got + idx * es, es);
        if (g != acc) fail("%s op=%s dtype=%s ranks=%d..%d index=%zu got=%#" PRIx64 " expected=%#" PRIx64,
                           what, op_label(op), plx_dtype_name(dt), lo, hi, k, g, acc);
        return;
    }
    int64_t acc = red_in(dt, op, lo, k);
    for (int i = lo + 1; i <= hi; i++) {
        int64_t x = red_in(dt, op, i, k);
        switch (op) {
        case PLX_SUM: case PLX_AVG: case OP_USUM: acc += x; break;
        case PLX_PROD: acc *= x; break;
        case PLX_MIN: acc = x < acc ? x : acc; break;
        case PLX_MAX: acc = x > acc ? x : acc; break;
        case PLX_BAND: acc &= x; break;
        case PLX_BOR: acc |= x; break;
        case PLX_BXOR: acc ^= x; break;
        default: break;
        }
    }
    int n = hi - lo + 1;
    double g = get_num(dt, got, idx), want;
    int ok;
    if (op == PLX_AVG && is_float(dt)) {
        want = (double)acc / n;
        double tol = (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) ? 1e-2 : 1e-6;
        ok = fabs(g - want) <= tol * fabs(want) + 1e-12;
    } else {
        if (op == PLX_AVG) acc /= n;             /* C division truncates toward zero */
        unsigned char tmp[8];
        put_int(dt, tmp, 0, acc);                /* wrap / convert like the library */
        want = get_num(dt, tmp, 0);
        ok = memcmp(tmp, (const char *)got + idx * es, es) == 0;
    }
    if (!ok) fail("%s op=%s dtype=%s ranks=%d..%d index=%zu got=%g expected=%g", what, op_label(op),
                  plx_dtype_name(dt), lo, hi, k, g, want);
}

/* ---- copy inputs ------------------------------------------------------------ */
static unsigned char cbyte(uint64_t block, size_t k, size_t b)
{
    return (unsigned char)h4(g_tid, block, k, b + 1000);
}
static void fill_copy(void *buf, uint64_t block, size_t n, size_t es)
{
    for (size_t k = 0; k < n; k++)
        for (size_t b = 0; b < es; b++) ((unsigned char *)buf)[k * es + b] = cbyte(block, k, b);
}
/* Elements [0, n) of buf must be block's; returns 1 if so. */
static void check_copy(const void *buf, uint64_t block, size_t n, size_t es, const char *what, int from)
{
    g_checks++;
    for (size_t k = 0; k < n; k++)
        for (size_t b = 0; b < es; b++)
            if (((const unsigned char *)buf)[k * es + b] != cbyte(block, k, b)) {
                fail("%s block from rank %d: element %zu byte %zu wrong", what, from, k, b);
                return;
            }
}

/* ---- counts and displacements -------------------------------------------- */
/* set: 0 random small, 1 all empty, 2 random with one heavy rank, 3 large */
static void make_counts(size_t *c, int p, int set, uint64_t salt)
{
    for (int i = 0; i < p; i++) {
        uint64_t h = h4(g_tid, salt, (uint64_t)i, 5);
        switch (set) {
        case 1: c[i] = 0; break;
        case 2: c[i] = (i == (int)(h4(g_tid, salt, 9, 9) % (uint64_t)p)) ? 300 + h % 200 : h % 4; break;
        case 3: c[i] = (h % 4 == 0) ? 0 : 20000 + h % 30000; break;
        default: c[i] = (h % 4 == 0) ? 0 : 1 + h % 40; break;
        }
    }
}

/* Blocks in a shuffled order with gaps of 0..2 elements; returns the extent. */
static size_t make_displs(const size_t *c, size_t *d, int p, uint64_t salt)
{
    int *ord = xmalloc((size_t)p * sizeof *ord);
    for (int i = 0; i < p; i++) ord[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = (int)(h4(g_tid, salt, (uint64_t)i, 6) % (uint64_t)(i + 1));
        int t = ord[i];
        ord[i] = ord[j];
        ord[j] = t;
    }
    size_t at = 0;
    for (int k = 0; k < p; k++) {
        at += h4(g_tid, salt, (uint64_t)k, 7) % 3;
        d[ord[k]] = at;
        at += c[ord[k]];
    }
    free(ord);
    return at + 1;
}

/* ---- running one call in one of three ways ----------------------------------- */
enum { M_BLOCKING, M_NB, M_GRAPH };
static const char *mode_names[] = { "blocking", "nonblocking", "graph" };

typedef struct call {
    int coll, mode;
    const void *sbuf;
    void *rbuf;
    size_t scount, rcount;
    size_t *scounts, *sdispls, *rcounts, *rdispls;
    plx_dtype_t dt;
    plx_op_t op;
    int root;
} call_t;

static plx_status_t issue(const call_t *c, plx_request_t *req, plx_graph_t g, plx_graph_node_t *nd)
{
    plx_comm_t w = g_world;
    switch (c->coll) {
    case C_ALLGATHERV:
        if (g) return plx_graph_add_allgatherv(g, c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, w, nd);
        if (req) return plx_iallgatherv(c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, w, req);
        return plx_allgatherv(c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, w);
    case C_ALLTOALLV:
        if (g) return plx_graph_add_alltoallv(g, c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcounts, c->rdispls, c->dt, w, nd);
        if (req) return plx_ialltoallv(c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcounts, c->rdispls, c->dt, w, req);
        return plx_alltoallv(c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcounts, c->rdispls, c->dt, w);
    case C_GATHERV:
        if (g) return plx_graph_add_gatherv(g, c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, c->root, w, nd);
        if (req) return plx_igatherv(c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, c->root, w, req);
        return plx_gatherv(c->sbuf, c->scount, c->rbuf, c->rcounts, c->rdispls, c->dt, c->root, w);
    case C_SCATTERV:
        if (g) return plx_graph_add_scatterv(g, c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcount, c->dt, c->root, w, nd);
        if (req) return plx_iscatterv(c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcount, c->dt, c->root, w, req);
        return plx_scatterv(c->sbuf, c->scounts, c->sdispls, c->rbuf, c->rcount, c->dt, c->root, w);
    case C_REDUCE_SCATTERV:
        if (g) return plx_graph_add_reduce_scatterv(g, c->sbuf, c->rbuf, c->rcounts, c->dt, c->op, w, nd);
        if (req) return plx_ireduce_scatterv(c->sbuf, c->rbuf, c->rcounts, c->dt, c->op, w, req);
        return plx_reduce_scatterv(c->sbuf, c->rbuf, c->rcounts, c->dt, c->op, w);
    case C_SCAN:
        if (g) return plx_graph_add_scan(g, c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, nd);
        if (req) return plx_iscan(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, req);
        return plx_scan(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w);
    case C_EXSCAN:
        if (g) return plx_graph_add_exscan(g, c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, nd);
        if (req) return plx_iexscan(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, req);
        return plx_exscan(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w);
    case C_USEROP_REDUCE:       /* the existing reductions with a user op: rcount selects which */
        switch (c->rcount) {
        case 0:
            if (g) return plx_graph_add_allreduce(g, c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, nd);
            if (req) return plx_iallreduce(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, req);
            return plx_allreduce(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w);
        case 1:
            if (g) return plx_graph_add_reduce(g, c->sbuf, c->rbuf, c->scount, c->dt, c->op, c->root, w, nd);
            if (req) return plx_ireduce(c->sbuf, c->rbuf, c->scount, c->dt, c->op, c->root, w, req);
            return plx_reduce(c->sbuf, c->rbuf, c->scount, c->dt, c->op, c->root, w);
        default:
            if (g) return plx_graph_add_reduce_scatter(g, c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, nd);
            if (req) return plx_ireduce_scatter(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w, req);
            return plx_reduce_scatter(c->sbuf, c->rbuf, c->scount, c->dt, c->op, w);
        }
    default:
        return PLX_ERR_INTERNAL;
    }
}

/* Scribble over the count arrays: the library must not read them after the
 * call returned (the i-forms) or after the node was added (graphs). */
static void scribble(call_t *c, size_t **saved, int p)
{
    size_t *arr[4] = { c->scounts, c->sdispls, c->rcounts, c->rdispls };
    for (int k = 0; k < 4; k++) {
        saved[k] = NULL;
        if (!arr[k]) continue;
        saved[k] = xmalloc((size_t)p * sizeof(size_t));
        memcpy(saved[k], arr[k], (size_t)p * sizeof(size_t));
        for (int i = 0; i < p; i++) arr[k][i] = (size_t)0x5151515151515151ull;
    }
}
static void unscribble(call_t *c, size_t **saved, int p)
{
    size_t *arr[4] = { c->scounts, c->sdispls, c->rcounts, c->rdispls };
    for (int k = 0; k < 4; k++)
        if (saved[k]) {
            memcpy(arr[k], saved[k], (size_t)p * sizeof(size_t));
            free(saved[k]);
        }
}

static void run_call(call_t *c, const char *what)
{
    plx_status_t st;
    size_t *saved[4];
    int p = g_size;
    g_mode = mode_names[c->mode];
    if (c->mode == M_BLOCKING) {
        st = issue(c, NULL, NULL, NULL);
    } else if (c->mode == M_NB) {
        plx_request_t req = NULL;
        st = issue(c, &req, NULL, NULL);
        scribble(c, saved, p);
        if (st == PLX_SUCCESS) st = plx_wait(&req);
        unscribble(c, saved, p);
    } else {
        plx_graph_t g;
        plx_graph_node_t nd;
        st = plx_graph_create(g_ctx, &g);
        if (st == PLX_SUCCESS) {
            st = issue(c, NULL, g, &nd);
            scribble(c, saved, p);
            if (st == PLX_SUCCESS) st = plx_graph_compile(g);
            if (st == PLX_SUCCESS) st = plx_graph_run(g);
            unscribble(c, saved, p);
            plx_graph_free(&g);
        }
    }
    check(st == PLX_SUCCESS, "%s %s: status %s", what, mode_names[c->mode], plx_strerror(st));
}

/* ---- the tests ------------------------------------------------------------- */
static const plx_dtype_t all_dt[] = { PLX_INT8, PLX_UINT8, PLX_INT32, PLX_UINT32, PLX_INT64,
                                      PLX_UINT64, PLX_FLOAT16, PLX_BFLOAT16, PLX_FLOAT32,
                                      PLX_FLOAT64 };
#define NDT ((int)(sizeof all_dt / sizeof all_dt[0]))

static int n_sets(void) { return g_quick ? 3 : 4; }
static int g_mode_rot;
static int next_mode(void) { return g_mode_rot++ % 3; }

static void test_allgatherv(plx_dtype_t dt, int set, int in_place)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    size_t *rc = xmalloc((size_t)p * sizeof *rc), *dp = xmalloc((size_t)p * sizeof *dp);
    make_counts(rc, p, set, 1);
    size_t ext = make_displs(rc, dp, p, 2);
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, rc[r] * es), *rb = gb_new(&rg, ext * es);
    fill_copy(sb, (uint64_t)r, rc[r], es);
    if (in_place) fill_copy((char *)rb + dp[r] * es, (uint64_t)r, rc[r], es);
    call_t c = { .coll = C_ALLGATHERV, .mode = next_mode(), .sbuf = in_place ? PLX_IN_PLACE : sb,
                 .rbuf = rb, .scount = rc[r], .rcounts = rc, .rdispls = dp, .dt = dt };
    char what[128];
    snprintf(what, sizeof what, "allgatherv dtype=%s set=%d inplace=%d", plx_dtype_name(dt), set, in_place);
    run_call(&c, what);
    for (int i = 0; i < p; i++) check_copy((char *)rb + dp[i] * es, (uint64_t)i, rc[i], es, what, i);
    /* gaps untouched: mark the blocks, then every other byte must be SENT */
    unsigned char *mark = calloc(ext * es, 1);
    for (int i = 0; i < p; i++) memset(mark + dp[i] * es, 1, rc[i] * es);
    for (size_t b = 0; b < ext * es; b++)
        if (!mark[b] && ((unsigned char *)rb)[b] != SENT) {
            fail("%s: gap byte %zu written", what, b);
            break;
        }
    free(mark);
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    for (size_t k = 0; k < rc[r] * es && !in_place; k++)
        if (((unsigned char *)sb)[k] != cbyte((uint64_t)r, k / es, k % es)) {
            fail("%s: sendbuf written", what);
            break;
        }
    gb_free(&sg);
    gb_free(&rg);
    free(rc);
    free(dp);
}

static void test_alltoallv(plx_dtype_t dt, int set, int in_place)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    /* cnt[i][j]: elements from rank i to rank j, known to every rank */
    size_t *cnt = xmalloc((size_t)p * p * sizeof *cnt);
    for (int i = 0; i < p; i++) make_counts(cnt + (size_t)i * p, p, set, 100 + (uint64_t)i);
    if (in_place)   /* in place the layout is symmetric: what i sends j equals what j sends i */
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++) cnt[(size_t)i * p + j] = cnt[(size_t)j * p + i];
    size_t *sc = xmalloc((size_t)p * sizeof *sc), *sd = xmalloc((size_t)p * sizeof *sd);
    size_t *rc = xmalloc((size_t)p * sizeof *rc), *rd = xmalloc((size_t)p * sizeof *rd);
    for (int j = 0; j < p; j++) {
        sc[j] = cnt[(size_t)r * p + j];
        rc[j] = cnt[(size_t)j * p + r];
    }
    size_t sext = make_displs(sc, sd, p, 200 + (uint64_t)r), rext = make_displs(rc, rd, p, 300 + (uint64_t)r);
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, sext * es), *rb = gb_new(&rg, rext * es);
    for (int j = 0; j < p; j++) {
        fill_copy((char *)sb + sd[j] * es, (uint64_t)(r * p + j), sc[j], es);
        if (in_place) fill_copy((char *)rb + rd[j] * es, (uint64_t)(r * p + j), rc[j], es);
    }
    call_t c = { .coll = C_ALLTOALLV, .mode = next_mode(), .sbuf = in_place ? PLX_IN_PLACE : sb,
                 .rbuf = rb, .scounts = in_place ? NULL : sc, .sdispls = in_place ? NULL : sd,
                 .rcounts = rc, .rdispls = rd, .dt = dt };
    char what[128];
    snprintf(what, sizeof what, "alltoallv dtype=%s set=%d inplace=%d", plx_dtype_name(dt), set, in_place);
    run_call(&c, what);
    for (int i = 0; i < p; i++) check_copy((char *)rb + rd[i] * es, (uint64_t)(i * p + r), rc[i], es, what, i);
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    for (int j = 0; j < p && !in_place; j++) check_copy((char *)sb + sd[j] * es, (uint64_t)(r * p + j), sc[j], es, "alltoallv sendbuf kept", r);
    gb_free(&sg);
    gb_free(&rg);
    free(cnt);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static void test_gatherv(plx_dtype_t dt, int set, int in_place, int root)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    size_t *rc = xmalloc((size_t)p * sizeof *rc), *dp = xmalloc((size_t)p * sizeof *dp);
    make_counts(rc, p, set, 11);
    size_t ext = make_displs(rc, dp, p, 12);
    int ip = in_place && r == root;
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, rc[r] * es), *rb = gb_new(&rg, ext * es);
    fill_copy(sb, (uint64_t)r, rc[r], es);
    if (ip) fill_copy((char *)rb + dp[r] * es, (uint64_t)r, rc[r], es);
    call_t c = { .coll = C_GATHERV, .mode = next_mode(), .sbuf = ip ? PLX_IN_PLACE : sb, .rbuf = rb,
                 .scount = rc[r], .rcounts = rc, .rdispls = dp, .dt = dt, .root = root };
    char what[128];
    snprintf(what, sizeof what, "gatherv dtype=%s set=%d inplace=%d root=%d", plx_dtype_name(dt), set, in_place, root);
    run_call(&c, what);
    if (r == root) {
        for (int i = 0; i < p; i++) check_copy((char *)rb + dp[i] * es, (uint64_t)i, rc[i], es, what, i);
    } else {
        int untouched = 1;
        for (size_t b = 0; b < ext * es; b++) untouched &= ((unsigned char *)rb)[b] == SENT;
        check(untouched, "%s: recvbuf written at a non-root", what);
    }
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    gb_free(&sg);
    gb_free(&rg);
    free(rc);
    free(dp);
}

static void test_scatterv(plx_dtype_t dt, int set, int in_place, int root)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    size_t *sc = xmalloc((size_t)p * sizeof *sc), *dp = xmalloc((size_t)p * sizeof *dp);
    make_counts(sc, p, set, 21);
    size_t ext = make_displs(sc, dp, p, 22);
    int ip = in_place && r == root;
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, ext * es), *rb = gb_new(&rg, sc[r] * es);
    if (r == root)
        for (int i = 0; i < p; i++) fill_copy((char *)sb + dp[i] * es, (uint64_t)i, sc[i], es);
    call_t c = { .coll = C_SCATTERV, .mode = next_mode(), .sbuf = sb, .rbuf = ip ? PLX_IN_PLACE : rb,
                 .rcount = sc[r], .scounts = sc, .sdispls = dp, .dt = dt, .root = root };
    char what[128];
    snprintf(what, sizeof what, "scatterv dtype=%s set=%d inplace=%d root=%d", plx_dtype_name(dt), set, in_place, root);
    run_call(&c, what);
    if (ip) {
        int untouched = 1;
        for (size_t b = 0; b < sc[r] * es; b++) untouched &= ((unsigned char *)rb)[b] == SENT;
        check(untouched, "%s: recvbuf written in place", what);
    } else {
        check_copy(rb, (uint64_t)r, sc[r], es, what, root);
    }
    if (r == root)
        for (int i = 0; i < p; i++) check_copy((char *)sb + dp[i] * es, (uint64_t)i, sc[i], es, "scatterv sendbuf kept", r);
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    gb_free(&sg);
    gb_free(&rg);
    free(sc);
    free(dp);
}

static void test_reduce_scatterv(plx_dtype_t dt, int op, int set, int in_place)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    size_t *rc = xmalloc((size_t)p * sizeof *rc);
    make_counts(rc, p, set, 31);
    size_t total = 0, off = 0;
    for (int i = 0; i < p; i++) {
        if (i < r) off += rc[i];
        total += rc[i];
    }
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, total * es), *rb = gb_new(&rg, (in_place ? total : rc[r]) * es);
    fill_red(dt, op, r, in_place ? rb : sb, 0, total);
    call_t c = { .coll = C_REDUCE_SCATTERV, .mode = next_mode(), .sbuf = in_place ? PLX_IN_PLACE : sb,
                 .rbuf = rb, .rcounts = rc, .dt = dt, .op = real_op(op) };
    char what[160];
    snprintf(what, sizeof what, "reduce_scatterv dtype=%s op=%s set=%d inplace=%d", plx_dtype_name(dt),
             op_label(op), set, in_place);
    run_call(&c, what);
    for (size_t k = 0; k < rc[r]; k++) check_red(dt, op, 0, p - 1, off + k, rb, k, what);
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    gb_free(&sg);
    gb_free(&rg);
    free(rc);
}

static void test_scan(int coll, plx_dtype_t dt, int op, size_t n, int in_place)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, n * es), *rb = gb_new(&rg, n * es);
    fill_red(dt, op, r, in_place ? rb : sb, 0, n);
    call_t c = { .coll = coll, .mode = next_mode(), .sbuf = in_place ? PLX_IN_PLACE : sb, .rbuf = rb,
                 .scount = n, .dt = dt, .op = real_op(op) };
    char what[160];
    snprintf(what, sizeof what, "%s dtype=%s op=%s count=%zu inplace=%d", coll_names[coll],
             plx_dtype_name(dt), op_label(op), n, in_place);
    run_call(&c, what);
    int hi = coll == C_SCAN ? r : r - 1;
    if (hi >= 0) {
        for (size_t k = 0; k < n; k++) check_red(dt, op, 0, hi, k, rb, k, what);
    } else if (!in_place) {
        int untouched = 1;
        for (size_t b = 0; b < n * es; b++) untouched &= ((unsigned char *)rb)[b] == SENT;
        check(untouched, "%s: rank 0's recvbuf written", what);
    }
    (void)p;
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    gb_free(&sg);
    gb_free(&rg);
}

/* allreduce / reduce / reduce_scatter with user ops (which = 0, 1, 2). */
static void test_userop_reduce(plx_dtype_t dt, int op, int which, size_t n, int in_place, int root)
{
    int p = g_size, r = g_rank;
    size_t es = esz(dt);
    size_t in_n = which == 2 ? n * (size_t)p : n;
    int ip = in_place && (which != 1 || r == root);
    gbuf_t sg, rg;
    void *sb = gb_new(&sg, in_n * es), *rb = gb_new(&rg, (ip ? in_n : n) * es);
    fill_red(dt, op, r, ip ? rb : sb, 0, in_n);
    call_t c = { .coll = C_USEROP_REDUCE, .mode = next_mode(), .sbuf = ip ? PLX_IN_PLACE : sb, .rbuf = rb,
                 .scount = n, .rcount = (size_t)which, .dt = dt, .op = real_op(op), .root = root };
    static const char *names[] = { "allreduce", "reduce", "reduce_scatter" };
    char what[160];
    snprintf(what, sizeof what, "%s(user op) dtype=%s op=%s count=%zu inplace=%d root=%d", names[which],
             plx_dtype_name(dt), op_label(op), n, in_place, root);
    run_call(&c, what);
    if (which != 1 || r == root)
        for (size_t k = 0; k < n; k++)
            check_red(dt, op, 0, p - 1, which == 2 ? (size_t)r * n + k : k, rb, k, what);
    check(gb_guards_ok(&rg) && gb_guards_ok(&sg), "%s: guard bytes written", what);
    gb_free(&sg);
    gb_free(&rg);
}

static const int builtin_ops[] = { PLX_SUM, PLX_PROD, PLX_MIN, PLX_MAX, PLX_AVG, PLX_BAND, PLX_BOR, PLX_BXOR,
                                   OP_USUM, OP_UMAT };
#define NOPS ((int)(sizeof builtin_ops / sizeof builtin_ops[0]))

/* ---- bad arguments (local: nothing may start) ------------------------------- */
static void expect_bad(plx_status_t st, const char *what)
{
    check(st == PLX_ERR_INVALID_ARG, "badargs %s: got %s, want invalid argument", what, plx_strerror(st));
}

static void test_badargs(void)
{
    int p = g_size, r = g_rank;
    size_t *c = xmalloc((size_t)p * sizeof *c), *d = xmalloc((size_t)p * sizeof *d);
    for (int i = 0; i < p; i++) {
        c[i] = 2;
        d[i] = 2 * (size_t)i;
    }
    int32_t sb[4] = { 1, 2, 3, 4 };
    int32_t *rb = xmalloc((size_t)(2 * p + 4) * sizeof *rb);
    memset(rb, SENT, (size_t)(2 * p + 4) * sizeof *rb);
    plx_comm_t w = g_world;
    plx_request_t req = NULL;
    size_t neg = (size_t)(long)-1;

    expect_bad(plx_allgatherv(sb, 2, rb, NULL, d, PLX_INT32, w), "allgatherv NULL recvcounts");
    expect_bad(plx_allgatherv(sb, 2, rb, c, NULL, PLX_INT32, w), "allgatherv NULL displs");
    expect_bad(plx_allgatherv(sb, 3, rb, c, d, PLX_INT32, w), "allgatherv sendcount != recvcounts[rank]");
    expect_bad(plx_allgatherv(NULL, 2, rb, c, d, PLX_INT32, w), "allgatherv NULL sendbuf");
    expect_bad(plx_allgatherv(sb, 2, NULL, c, d, PLX_INT32, w), "allgatherv NULL recvbuf");
    expect_bad(plx_allgatherv(sb, 2, PLX_IN_PLACE, c, d, PLX_INT32, w), "allgatherv recvbuf in place");
    expect_bad(plx_allgatherv(sb, 2, rb, c, d, PLX_DTYPE_COUNT, w), "allgatherv bad dtype");
    expect_bad(plx_iallgatherv(sb, 2, rb, c, d, PLX_INT32, w, NULL), "iallgatherv NULL req");
    if (p > 1) {
        size_t d2 = d[1];
        d[1] = 1;      /* overlaps rank 0's block [0, 2) */
        expect_bad(plx_allgatherv(sb, 2, rb, c, d, PLX_INT32, w), "allgatherv overlapping displs");
        expect_bad(plx_alltoallv(sb, c, d, rb, c, d, PLX_INT32, w), "alltoallv overlapping rdispls");
        d[1] = d2;
    }
    size_t c0 = c[0];
    c[0] = neg;
    expect_bad(plx_allgatherv(PLX_IN_PLACE, 0, rb, c, d, PLX_INT32, w), "allgatherv negative count");
    expect_bad(plx_reduce_scatterv(sb, rb, c, PLX_INT32, PLX_SUM, w), "reduce_scatterv negative count");
    c[0] = c0;
    size_t dlast = d[p - 1];
    d[p - 1] = neg;
    expect_bad(plx_allgatherv(PLX_IN_PLACE, 0, rb, c, d, PLX_INT32, w), "allgatherv negative displacement");
    expect_bad(plx_gatherv(sb, 2, rb, c, d, PLX_INT32, r, w), "gatherv negative displacement at root");
    d[p - 1] = dlast;
    expect_bad(plx_alltoallv(sb, NULL, d, rb, c, d, PLX_INT32, w), "alltoallv NULL sendcounts");
    expect_bad(plx_alltoallv(sb, c, d, rb, NULL, d, PLX_INT32, w), "alltoallv NULL recvcounts");
    size_t *c2 = xmalloc((size_t)p * sizeof *c2);
    memcpy(c2, c, (size_t)p * sizeof *c2);
    c2[r] = 1;
    expect_bad(plx_alltoallv(sb, c2, d, rb, c, d, PLX_INT32, w), "alltoallv sendcounts[rank] != recvcounts[rank]");
    free(c2);
    expect_bad(plx_gatherv(sb, 2, rb, c, d, PLX_INT32, p, w), "gatherv bad root");
    expect_bad(plx_gatherv(sb, 2, rb, c, d, PLX_INT32, -1, w), "gatherv negative root");
    expect_bad(plx_gatherv(sb, 2, rb, NULL, d, PLX_INT32, r, w), "gatherv NULL recvcounts at root");
    expect_bad(plx_gatherv(sb, 1, rb, c, d, PLX_INT32, r, w), "gatherv sendcount != recvcounts[root]");
    if (p > 1) expect_bad(plx_gatherv(PLX_IN_PLACE, 2, rb, c, d, PLX_INT32, (r + 1) % p, w), "gatherv in place at non-root");
    expect_bad(plx_scatterv(sb, NULL, d, rb, 2, PLX_INT32, r, w), "scatterv NULL sendcounts at root");
    expect_bad(plx_scatterv(sb, c, d, rb, 1, PLX_INT32, r, w), "scatterv recvcount != sendcounts[root]");
    expect_bad(plx_scatterv(sb, c, d, NULL, 2, PLX_INT32, r, w), "scatterv NULL recvbuf");
    if (p > 1) expect_bad(plx_scatterv(sb, c, d, PLX_IN_PLACE, 2, PLX_INT32, (r + 1) % p, w), "scatterv in place at non-root");
    expect_bad(plx_reduce_scatterv(sb, rb, NULL, PLX_INT32, PLX_SUM, w), "reduce_scatterv NULL recvcounts");
    expect_bad(plx_reduce_scatterv(sb, rb, c, PLX_FLOAT32, PLX_BAND, w), "reduce_scatterv band on float");
    expect_bad(plx_reduce_scatterv(sb, rb, c, PLX_INT32, (plx_op_t)99, w), "reduce_scatterv unknown op");
    expect_bad(plx_scan(sb, rb, 2, PLX_INT32, (plx_op_t)(PLX_OP_USER_BASE + 16000), w), "scan never-created user op");
    expect_bad(plx_scan(NULL, rb, 2, PLX_INT32, PLX_SUM, w), "scan NULL sendbuf");
    expect_bad(plx_scan(sb, PLX_IN_PLACE, 2, PLX_INT32, PLX_SUM, w), "scan recvbuf in place");
    expect_bad(plx_iscan(sb, rb, 2, PLX_INT32, PLX_SUM, w, NULL), "iscan NULL req");
    if (r != 0) expect_bad(plx_exscan(sb, NULL, 2, PLX_INT32, PLX_SUM, w), "exscan NULL recvbuf at rank > 0");
    expect_bad(plx_exscan(sb, rb, (size_t)-1 / 2, PLX_INT32, PLX_SUM, w), "exscan count overflow");
    /* user-op misuse */
    plx_op_t op;
    expect_bad(plx_op_create(NULL, 1, NULL, &op), "op_create NULL fn");
    expect_bad(plx_op_create(usum_fn, 1, NULL, NULL), "op_create NULL op");
    op = PLX_SUM;
    expect_bad(plx_op_free(&op), "op_free built-in op");
    expect_bad(plx_op_free(NULL), "op_free NULL");
    plx_op_t tmp;
    check(plx_op_create(usum_fn, 1, NULL, &tmp) == PLX_SUCCESS, "badargs op_create");
    plx_op_t stale = tmp;
    check(plx_op_free(&tmp) == PLX_SUCCESS && tmp == PLX_OP_NULL, "badargs op_free sets PLX_OP_NULL");
    expect_bad(plx_op_free(&stale), "op_free twice");
    expect_bad(plx_allreduce(sb, rb, 2, PLX_INT32, stale, w), "allreduce freed user op");
    expect_bad(plx_reduce_scatterv(sb, rb, c, PLX_INT32, stale, w), "reduce_scatterv freed user op");
    plx_graph_t g;
    plx_graph_node_t nd;
    if (plx_graph_create(g_ctx, &g) == PLX_SUCCESS) {
        expect_bad(plx_graph_add_allgatherv(g, sb, 3, rb, c, d, PLX_INT32, w, &nd), "graph allgatherv sendcount");
        expect_bad(plx_graph_add_alltoallv(g, sb, c, d, rb, NULL, d, PLX_INT32, w, &nd), "graph alltoallv NULL recvcounts");
        expect_bad(plx_graph_add_scan(g, sb, rb, 2, PLX_INT32, stale, w, &nd), "graph scan freed op");
        plx_graph_free(&g);
    }
    /* nothing was written by any rejected call */
    int untouched = 1;
    for (size_t b = 0; b < (size_t)(2 * p + 4) * sizeof *rb; b++) untouched &= ((unsigned char *)rb)[b] == SENT;
    check(untouched, "badargs: a rejected call wrote recvbuf");
    check(sb[0] == 1 && sb[3] == 4, "badargs: sendbuf written");
    (void)req;
    free(c);
    free(d);
    free(rb);
}

/* ---- ranks that disagree (--coll vmismatch) ----------------------------------------
 * Run by run_vcoll.sh with the v-forms forced onto the node-local
 * algorithms (shm_slots, direct), which compare signatures in their slots.
 * In each case the last rank calls something else than the others:
 * another root (gatherv, scatterv), one element more in its own block, so
 * another total (allgatherv), another collective (alltoallv against
 * gatherv).  Every rank must return PLX_SUCCESS or PLX_ERR_MISMATCH, some
 * rank PLX_ERR_MISMATCH, nobody may hang, and the communicator must stay
 * usable: the allgatherv right after each case gives every rank's block.
 * First a case where the ranks agree: a nonblocking allgatherv that rank 0
 * joins 1.5 s late while the others wait with their count arrays
 * scribbled over (allowed once the i-call returned): the waiting ranks'
 * slow checks must compare what each call published, not re-read the
 * caller's arrays (they once did, and found a mismatch that was not). */
static void late_agreeing(void)
{
    int p = g_size;
    size_t *c = xmalloc((size_t)p * sizeof *c), *d = xmalloc((size_t)p * sizeof *d), *saved[4];
    int32_t me = 2000 + g_rank, *all = xmalloc((size_t)p * sizeof *all);
    for (int i = 0; i < p; i++) {
        c[i] = 1;
        d[i] = (size_t)i;
        all[i] = -1;
    }
    if (g_rank == 0) {
        struct timespec ts = { 1, 500000000 };
        nanosleep(&ts, NULL);
    }
    plx_request_t req = NULL;
    g_mode = "nonblocking";
    plx_status_t st = plx_iallgatherv(&me, 1, all, c, d, PLX_INT32, g_world, &req);
    call_t cc = { .rcounts = c, .rdispls = d };
    scribble(&cc, saved, p);
    if (st == PLX_SUCCESS) st = plx_wait(&req);
    unscribble(&cc, saved, p);
    check(st == PLX_SUCCESS, "vmismatch late agreeing allgatherv: %s", plx_strerror(st));
    for (int i = 0; st == PLX_SUCCESS && i < p; i++)
        check(all[i] == 2000 + i, "vmismatch late agreeing allgatherv: block %d is %d", i, (int)all[i]);
    free(c);
    free(d);
    free(all);
}

static void after_mismatch(const char *what, plx_status_t st)
{
    int p = g_size;
    check(st == PLX_SUCCESS || st == PLX_ERR_MISMATCH, "vmismatch %s: returned %s", what, plx_strerror(st));
    int32_t mine = st == PLX_ERR_MISMATCH, any = 0;
    plx_status_t s2 = plx_allreduce(&mine, &any, 1, PLX_INT32, PLX_MAX, g_world);
    check(s2 == PLX_SUCCESS && any == 1, "vmismatch %s: no rank saw the mismatch (%s)", what, plx_strerror(s2));
    size_t *c = xmalloc((size_t)p * sizeof *c), *d = xmalloc((size_t)p * sizeof *d);
    int32_t *all = xmalloc((size_t)p * sizeof *all), me = 1000 + g_rank;
    for (int i = 0; i < p; i++) {
        c[i] = 1;
        d[i] = (size_t)(p - 1 - i);
        all[i] = -1;
    }
    s2 = plx_allgatherv(&me, 1, all, c, d, PLX_INT32, g_world);
    check(s2 == PLX_SUCCESS, "vmismatch %s: the allgatherv after it: %s", what, plx_strerror(s2));
    for (int i = 0; s2 == PLX_SUCCESS && i < p; i++)
        check(all[p - 1 - i] == 1000 + i, "vmismatch %s: after it, block %d is %d", what, i, (int)all[p - 1 - i]);
    free(c);
    free(d);
    free(all);
}

static void test_vmismatch(void)
{
    int p = g_size, last = g_rank == p - 1;
    if (p < 2) return;
    late_agreeing();
    size_t *c = xmalloc((size_t)p * sizeof *c), *d = xmalloc((size_t)p * sizeof *d);
    int32_t *sb = xmalloc((size_t)(2 * p + 2) * sizeof *sb), *rb = xmalloc((size_t)(2 * p + 2) * sizeof *rb);
    for (int i = 0; i < 2 * p + 2; i++) sb[i] = i + 1;
    for (int i = 0; i < p; i++) {
        c[i] = 1;
        d[i] = (size_t)(2 * i);
    }
    g_mode = "blocking";
    /* gatherv / scatterv: the last rank names root 1, the others root 0 */
    plx_status_t st = plx_gatherv(sb, 1, rb, c, d, PLX_INT32, last ? 1 : 0, g_world);
    after_mismatch("gatherv root", st);
    st = plx_scatterv(sb, c, d, rb, 1, PLX_INT32, last ? 1 : 0, g_world);
    after_mismatch("scatterv root", st);
    /* allgatherv: the last rank's own block is 2 elements in its view */
    if (last) c[p - 1] = 2;
    st = plx_allgatherv(sb, c[g_rank], rb, c, d, PLX_INT32, g_world);
    c[p - 1] = 1;
    after_mismatch("allgatherv total", st);
    /* alltoallv on all but the last rank, which calls gatherv */
    if (last) st = plx_gatherv(sb, 1, rb, c, d, PLX_INT32, 0, g_world);
    else st = plx_alltoallv(sb, c, c, rb, c, d, PLX_INT32, g_world);
    after_mismatch("alltoallv against gatherv", st);
    free(sb);
    free(c);
    free(d);
    free(rb);
}

/* ---- main ------------------------------------------------------------------------ */
static void run_all(void)
{
    int p = g_size;
    for (int set = 0; set < n_sets(); set++) {
        for (int di = 0; di < NDT; di++) {
            plx_dtype_t dt = all_dt[di];
            /* the large set only for a few types: it is about algorithms, not types */
            if (set == 3 && !(dt == PLX_INT8 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64)) continue;
            for (int ip = 0; ip <= 1; ip++) {
                g_tid++;
                if (g_on[C_ALLGATHERV]) test_allgatherv(dt, set, ip);
                g_tid++;
                if (g_on[C_ALLTOALLV]) test_alltoallv(dt, set, ip);
                for (int root = 0; root < p; root += (p > 1 ? p - 1 : 1)) {
                    g_tid++;
                    if (g_on[C_GATHERV]) test_gatherv(dt, set, ip, root);
                    g_tid++;
                    if (g_on[C_SCATTERV]) test_scatterv(dt, set, ip, root);
                }
                for (int oi = 0; oi < NOPS; oi++) {
                    int op = builtin_ops[oi];
                    if (!op_ok(dt, op)) continue;
                    if (set == 3 && op != PLX_SUM && op != OP_UMAT && op != PLX_AVG) continue;
                    g_tid++;
                    if (g_on[C_REDUCE_SCATTERV]) test_reduce_scatterv(dt, op, set, ip);
                    /* scans: counts from the set's first entries */
                    size_t n = set == 1 ? 0 : set == 3 ? 40000 : 1 + h4(g_tid, 1, 2, 3) % 50;
                    g_tid++;
                    if (g_on[C_SCAN]) test_scan(C_SCAN, dt, op, n, ip);
                    g_tid++;
                    if (g_on[C_EXSCAN]) test_scan(C_EXSCAN, dt, op, n, ip);
                    if (op == OP_UMAT || op == OP_USUM) {
                        for (int which = 0; which < 3; which++) {
                            g_tid++;
                            if (g_on[C_USEROP_REDUCE]) test_userop_reduce(dt, op, which, n, ip, p - 1);
                        }
                    }
                }
            }
        }
    }
    if (g_on[C_BADARGS]) test_badargs();
    if (g_on[C_VMISMATCH]) test_vmismatch();
}

int main(int argc, char **argv)
{
    int any = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            g_quick = 1;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--tag") && i + 1 < argc) {
            i++;
        } else if (!strcmp(argv[i], "--coll") && i + 1 < argc) {
            char *list = strdup(argv[++i]), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int found = 0;
                for (int c = 0; c < C_N; c++)
                    if (!strcmp(t, coll_names[c])) g_on[c] = found = 1;
                /* the names of the existing reductions select the user-op pass */
                if (!strcmp(t, "allreduce") || !strcmp(t, "reduce") || !strcmp(t, "reduce_scatter"))
                    g_on[C_USEROP_REDUCE] = found = 1;
                if (!found) {
                    fprintf(stderr, "vcoll_check: unknown --coll '%s'\n", t);
                    return 2;
                }
                any = 1;
            }
            free(list);
        } else {
            fprintf(stderr, "usage: vcoll_check [--quick] [--coll NAME,...] [--seed N]\n");
            return 2;
        }
    }
    if (!any)   /* all but vmismatch, which needs the node-local algorithms forced */
        for (int c = 0; c < C_VMISMATCH; c++) g_on[c] = 1;

    plx_status_t st = plx_init(&g_ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "vcoll_check: plx_init: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_world(g_ctx, &g_world);
    plx_comm_rank(g_world, &g_rank);
    plx_comm_size(g_world, &g_size);
    if (plx_op_create(usum_fn, 1, NULL, &g_usum) != PLX_SUCCESS ||
        plx_op_create(umat_fn, 0, &g_umat_calls, &g_umat) != PLX_SUCCESS) {
        fprintf(stderr, "vcoll_check: plx_op_create failed\n");
        return 1;
    }
    run_all();
    /* the non-commutative op really ran through the user's function, on
     * some rank (a rank that only forwards never combines) */
    int64_t calls = __atomic_load_n(&g_umat_calls, __ATOMIC_RELAXED), all_calls = 0;
    st = plx_allreduce(&calls, &all_calls, 1, PLX_INT64, PLX_SUM, g_world);
    if (g_size > 1 && (g_on[C_SCAN] || g_on[C_EXSCAN] || g_on[C_USEROP_REDUCE] || g_on[C_REDUCE_SCATTERV]))
        check(st == PLX_SUCCESS && all_calls > 0, "the non-commutative user function was never called");
    plx_op_free(&g_usum);
    plx_op_free(&g_umat);
    st = plx_barrier(g_world);
    check(st == PLX_SUCCESS, "final barrier: %s", plx_strerror(st));
    printf("vcoll_check: rank %d size %d: %ld checks, %ld failures\n", g_rank, g_size, g_checks, g_fails);
    plx_finalize(&g_ctx);
    return g_fails ? 1 : 0;
}
