/*
 * tests/mr/stress_check.c — stress test of the nonblocking engine: many
 * random collectives in flight at once, completed in random orders, every
 * result checked against a serial reference.
 *
 *   plexusrun -n 4 stress_check [--ops N] [--window W] [--max-bytes B]
 *                               [--seed S] [--label TEXT] [--tag X]
 *
 * What it does, and why:
 *  - N (default 10000) collectives, each drawn from the shared seed and its
 *    index alone: which of the 9 collectives, which communicator (world, a
 *    dup of world, world split into even/odd ranks with reversed key order),
 *    datatype, op (every op valid for the type), root, in place or not, and
 *    a size of 0 .. B bytes (default 256 KiB) drawn mostly small (~45% up to
 *    256 B, ~30% up to 4 KiB, ~18% up to 32 KiB, the rest up to B, a few
 *    empty).  So every rank derives the same sequence without talking, and
 *    posts the collectives of each communicator in the same order, as
 *    plexus.h requires.
 *  - Each rank keeps up to W (default 32) requests in flight: it posts until
 *    its window (a size drawn anew each round, 1..W, from a PER-RANK random
 *    stream) is full, then completes some of them by a per-rank random
 *    choice of plx_wait on a random request, plx_waitany over the window
 *    (with holes), plx_waitall over the window, a plx_test loop on random
 *    requests, or one plx_test sweep.  Ranks therefore complete the same
 *    collectives in different orders and with different numbers in flight,
 *    which is legal and must not matter.  (No deadlock is possible: the
 *    oldest collective not yet complete everywhere has been posted by every
 *    rank, and every wait drives every request of the context.)
 *  - Inputs are a deterministic function of (seed, collective index, world
 *    rank, element), so each rank computes the expected result of every
 *    collective serially: small integers for SUM/MIN/MAX/AVG (exact in every
 *    type and any summation order), {-2,-1,1,2} for PROD (skipped above 6
 *    ranks), raw bits for the bitwise ops, hashed bit patterns for copies.
 *    Also checked: status PLX_SUCCESS, send buffers unchanged, buffers the
 *    API ignores (recvbuf of reduce/gather at non-roots, sendbuf of scatter
 *    at non-roots) untouched, 64 guard bytes around every buffer intact, the
 *    request NULL after completion.
 *  - Run it with PLX_PROGRESS=thread too (tests/mr/run_stress.sh does both):
 *    a background progress thread must give the same results.
 *
 * Output: failure lines `FAIL stress rank R op I coll=.. comm=.. dtype=..
 * op=.. count=.. root=.. inplace=..: what`; rank 0 prints counts per
 * collective and per completion path; every rank ends with
 * `stress_check: rank R[ LABEL]: N ops, C checks, F failures, T s`.
 * Exit 1 on any failure.
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
#define MAX_WINDOW 256
#define MAX_PRINTED 100

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL,
       C_GATHER, C_SCATTER, C_NCOLL };
static const char *const coll_names[C_NCOLL] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "reduce_scatter", "alltoall", "gather", "scatter"
};
enum { K_COPY, K_SMALL, K_PROD, K_BITS };
enum { P_WAIT, P_WAITANY, P_WAITALL, P_TESTLOOP, P_TESTSWEEP, P_N };
static const char *const path_names[P_N] = { "wait", "waitany", "waitall", "test-loop", "test-sweep" };

/* ---- communicators ------------------------------------------------------- */
#define NCOMM 3
static const char *const comm_names[NCOMM] = { "world", "dup", "split-parity-reversed" };
typedef struct commx {
    plx_comm_t comm;
    int rank, size;
    int *members;             /* world rank of each comm rank: the input generator ids */
} commx_t;
static commx_t g_comms[NCOMM];

/* ---- globals ---------------------------------------------------------- */
static int g_rank, g_size;
static uint64_t g_seed = 20240601;
static long g_checks, g_fails, g_printed;
static long g_per_coll[C_NCOLL], g_per_path[P_N];

/* ---- hashing and float16/bfloat16 ------------------------------------- */
static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Per-rank stream for scheduling decisions (xorshift64*). */
static uint64_t g_local_state;
static uint64_t local_rand(void)
{
    uint64_t x = g_local_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g_local_state = x;
    return x * 0x2545f4914f6cdd1dull;
}
static unsigned local_below(unsigned n) { return (unsigned)(local_rand() % n); }

#include "half_ref.h"    /* f2h, f2bf: the reference conversions */

static int is_float(plx_dtype_t dt)
{
    return dt == PLX_FLOAT16 || dt == PLX_BFLOAT16 || dt == PLX_FLOAT32 || dt == PLX_FLOAT64;
}
static int is_unsigned(plx_dtype_t dt)
{
    return dt == PLX_UINT8 || dt == PLX_UINT32 || dt == PLX_UINT64;
}

/* ---- the drawn collective -------------------------------------------- */
typedef struct spec {
    long id;
    int coll, ci, op, root, ip;    /* op -1: not a reduction; root -1: not rooted */
    plx_dtype_t dt;
    size_t count;                  /* elements per rank (per block for block collectives) */
} spec_t;

static size_t g_max_bytes = 256 * 1024;

/* Everything about collective `id` from (seed, id) alone: identical on all
 * ranks; the root is taken modulo the communicator's size. */
static void draw_spec(long id, spec_t *s)
{
    uint64_t h1 = mix64(g_seed ^ mix64((uint64_t)id * 2 + 1));
    uint64_t h2 = mix64(h1 + 0x1234567ull);
    memset(s, 0, sizeof *s);
    s->id = id;
    s->coll = (int)(h1 % C_NCOLL);
    h1 /= C_NCOLL;
    unsigned cr = (unsigned)(h1 % 8);          /* world 4/8, dup 2/8, split 2/8 */
    h1 /= 8;
    s->ci = cr < 4 ? 0 : cr < 6 ? 1 : 2;
    s->dt = (plx_dtype_t)(h1 % PLX_DTYPE_COUNT);
    h1 /= PLX_DTYPE_COUNT;
    int nops = is_float(s->dt) ? PLX_AVG + 1 : PLX_OP_COUNT;
    int op = (int)(h1 % (uint64_t)nops);
    h1 /= (uint64_t)nops;
    s->ip = (int)(h1 % 2);
    h1 /= 2;
    const int n = g_comms[s->ci].size;
    s->root = (int)(h1 % 1024) % n;
    /* size: mostly small, log-uniform inside each band */
    unsigned band = (unsigned)(h2 % 100);
    h2 /= 100;
    size_t lo, hi;
    if (band < 3) lo = hi = 0;
    else if (band < 48) { lo = 1; hi = 256; }
    else if (band < 78) { lo = 256; hi = 4096; }
    else if (band < 96) { lo = 4096; hi = 32768; }
    else { lo = 32768; hi = g_max_bytes; }
    if (hi > g_max_bytes) hi = g_max_bytes;
    if (lo > hi) lo = hi;
    size_t bytes = 0;
    if (hi > 0) {
        double u = (double)(h2 % 1000003) / 1000003.0;
        bytes = (size_t)((double)lo * pow((double)hi / (double)lo, u));
    }
    size_t cnt = bytes / plx_dtype_size(s->dt);
    switch (s->coll) {
    case C_ALLGATHER: case C_REDUCE_SCATTER: case C_ALLTOALL: case C_GATHER: case C_SCATTER:
        cnt /= (size_t)n;             /* the whole buffer stays within max-bytes */
        break;
    default:
        break;
    }
    s->count = s->coll == C_BARRIER ? 0 : cnt;
    int red = s->coll == C_REDUCE || s->coll == C_ALLREDUCE || s->coll == C_REDUCE_SCATTER;
    /* products of more than 6 inputs in {-2..2} leave the int8 range */
    if (red && op == PLX_PROD && n > 6) op = PLX_SUM;
    s->op = red ? op : -1;
    int rooted = s->coll == C_BCAST || s->coll == C_REDUCE || s->coll == C_GATHER || s->coll == C_SCATTER;
    if (!rooted) s->root = -1;
    if (s->coll == C_BARRIER || s->coll == C_BCAST) s->ip = 0;
}

/* ---- inputs and references ------------------------------------------- */
static int op_kind(int op)
{
    if (op == PLX_PROD) return K_PROD;
    if (op == PLX_BAND || op == PLX_BOR || op == PLX_BXOR) return K_BITS;
    if (op < 0) return K_COPY;
    return K_SMALL;
}

static uint64_t base_of(int gen, long id)
{
    return mix64(mix64(g_seed) ^ mix64((uint64_t)id * 0x10001ull + 7) ^ ((uint64_t)gen << 40));
}

static inline uint64_t hk(uint64_t base, size_t k)
{
    uint64_t h = (base + (uint64_t)k) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ull;
}

static const int8_t tab_small_s[8] = {-3, -2, -1, 0, 1, 2, 3, -1};
static const int8_t tab_small_u[8] = {0, 1, 2, 3, 4, 5, 6, 2};
static const int8_t tab_prod_s[8] = {-2, -1, 1, 2, 2, 1, -1, -2};
static const int8_t tab_prod_u[8] = {1, 2, 1, 2, 2, 1, 2, 1};

static const int8_t *small_tab(int kind, plx_dtype_t dt)
{
    if (kind == K_PROD) return is_unsigned(dt) ? tab_prod_u : tab_prod_s;
    return is_unsigned(dt) ? tab_small_u : tab_small_s;
}

/* Store the int64 values v[0..n) as dt (all in range by construction). */
static void store_ints(plx_dtype_t dt, const int64_t *v, size_t n, void *out)
{
    switch (dt) {
#define ST(T) for (size_t i = 0; i < n; i++) ((T *)out)[i] = (T)v[i]; break
    case PLX_INT8: ST(int8_t);
    case PLX_UINT8: ST(uint8_t);
    case PLX_INT32: ST(int32_t);
    case PLX_UINT32: ST(uint32_t);
    case PLX_INT64: ST(int64_t);
    case PLX_UINT64: ST(uint64_t);
    case PLX_FLOAT32: ST(float);
    case PLX_FLOAT64: ST(double);
#undef ST
    case PLX_FLOAT16: for (size_t i = 0; i < n; i++) ((uint16_t *)out)[i] = f2h((float)v[i]); break;
    case PLX_BFLOAT16: for (size_t i = 0; i < n; i++) ((uint16_t *)out)[i] = f2bf((float)v[i]); break;
    default: break;
    }
}

static int64_t *g_acc;
static size_t g_acc_cap;
static int64_t *acc_need(size_t n)
{
    if (n > g_acc_cap || !g_acc) {
        free(g_acc);
        g_acc_cap = n > 1024 ? n : 1024;
        g_acc = malloc(g_acc_cap * sizeof(int64_t));
        if (!g_acc) { fprintf(stderr, "stress_check: out of memory\n"); exit(1); }
    }
    return g_acc;
}

/* Input of generator gen for collective id, elements k0 .. k0+n-1. */
static void gen_fill(plx_dtype_t dt, int kind, int gen, long id, size_t k0, size_t n, void *buf)
{
    const uint64_t base = base_of(gen, id) + k0;
    const size_t es = plx_dtype_size(dt);
    if (kind == K_COPY || kind == K_BITS) {
        /* hashed bits; float types keep the top exponent bit clear (no NaN/Inf) */
        uint64_t mask = ~0ull;
        if (dt == PLX_FLOAT16 || dt == PLX_BFLOAT16) mask = ~(1ull << 14);
        else if (dt == PLX_FLOAT32) mask = ~(1ull << 30);
        else if (dt == PLX_FLOAT64) mask = ~(1ull << 62);
        switch (es) {
        case 1: for (size_t i = 0; i < n; i++) ((uint8_t *)buf)[i] = (uint8_t)(hk(base, i) >> 56); break;
        case 2: for (size_t i = 0; i < n; i++) ((uint16_t *)buf)[i] = (uint16_t)((hk(base, i) >> 48) & mask); break;
        case 4: for (size_t i = 0; i < n; i++) ((uint32_t *)buf)[i] = (uint32_t)((hk(base, i) >> 32) & mask); break;
        default: for (size_t i = 0; i < n; i++) ((uint64_t *)buf)[i] = hk(base, i) & mask; break;
        }
        return;
    }
    const int8_t *tab = small_tab(kind, dt);
    int64_t *v = acc_need(n);
    for (size_t i = 0; i < n; i++) v[i] = tab[hk(base, i) >> 61];
    store_ints(dt, v, n, buf);
}

/* Expected reduction over gens[0..n) at elements k0.. into exp (dt). */
static void ref_reduce(plx_dtype_t dt, int op, const int *gens, int n, long id, size_t k0, size_t cnt,
                       void *exp)
{
    const int kind = op_kind(op);
    const size_t es = plx_dtype_size(dt);
    int64_t *acc = acc_need(cnt);
    if (kind == K_BITS) {
        const int shift = 64 - 8 * (int)es;     /* gen_fill keeps the top bits */
        uint64_t *u = (uint64_t *)acc;
        for (int r = 0; r < n; r++) {
            const uint64_t base = base_of(gens[r], id) + k0;
            for (size_t i = 0; i < cnt; i++) {
                uint64_t v = hk(base, i) >> shift;
                if (r == 0) u[i] = v;
                else if (op == PLX_BAND) u[i] &= v;
                else if (op == PLX_BOR) u[i] |= v;
                else u[i] ^= v;
            }
        }
        for (size_t i = 0; i < cnt; i++)
            memcpy((char *)exp + i * es, &u[i], es);     /* little endian: the low bytes */
        return;
    }
    const int8_t *tab = small_tab(kind, dt);
    for (int r = 0; r < n; r++) {
        const uint64_t base = base_of(gens[r], id) + k0;
        for (size_t i = 0; i < cnt; i++) {
            int64_t v = tab[hk(base, i) >> 61];
            if (r == 0) { acc[i] = v; continue; }
            switch (op) {
            case PLX_SUM: case PLX_AVG: acc[i] += v; break;
            case PLX_PROD: acc[i] *= v; break;
            case PLX_MIN: if (v < acc[i]) acc[i] = v; break;
            case PLX_MAX: if (v > acc[i]) acc[i] = v; break;
            default: break;
            }
        }
    }
    if (op == PLX_AVG) {
        switch (dt) {
        case PLX_FLOAT16: for (size_t i = 0; i < cnt; i++) ((uint16_t *)exp)[i] = f2h((float)acc[i] / (float)n); return;
        case PLX_BFLOAT16: for (size_t i = 0; i < cnt; i++) ((uint16_t *)exp)[i] = f2bf((float)acc[i] / (float)n); return;
        case PLX_FLOAT32: for (size_t i = 0; i < cnt; i++) ((float *)exp)[i] = (float)acc[i] / (float)n; return;
        case PLX_FLOAT64: for (size_t i = 0; i < cnt; i++) ((double *)exp)[i] = (double)acc[i] / (double)n; return;
        default: for (size_t i = 0; i < cnt; i++) acc[i] /= n; break;   /* C division, as documented */
        }
    }
    store_ints(dt, acc, cnt, exp);
}

/* ---- buffers ------------------------------------------------------------ */
typedef struct gbuf {
    unsigned char *base;       /* GUARD | bytes | GUARD */
    size_t bytes;
} gbuf_t;

static unsigned char *gb_alloc(gbuf_t *b, size_t bytes, int fill_all)
{
    if (posix_memalign((void **)&b->base, 64, bytes + 2 * GUARD) != 0) {
        fprintf(stderr, "stress_check: rank %d: out of memory\n", g_rank);
        exit(1);
    }
    b->bytes = bytes;
    if (fill_all) {
        memset(b->base, SENT, bytes + 2 * GUARD);
    } else {
        memset(b->base, SENT, GUARD);
        memset(b->base + GUARD + bytes, SENT, GUARD);
    }
    return b->base + GUARD;
}
static unsigned char *gb_ptr(const gbuf_t *b) { return b->base + GUARD; }
static void gb_free(gbuf_t *b) { free(b->base); b->base = NULL; }

/* ---- one collective in flight ---------------------------------------- */
typedef struct slot {
    int used;
    spec_t s;
    gbuf_t sb, rb;
    size_t sbytes, rbytes;
    int s_role, r_role;        /* what the buffer must hold afterwards, see R_* */
} slot_t;
enum { R_NONE, R_INPUT, R_RESULT, R_UNTOUCHED };

static void fail(const spec_t *s, const char *fmt, ...)
{
    g_fails++;
    if (g_printed++ >= MAX_PRINTED) {
        if (g_printed == MAX_PRINTED + 1) printf("stress_check: rank %d: more failures, not printed\n", g_rank);
        return;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->id < 0) {          /* not about one collective */
        printf("FAIL stress rank %d: %s\n", g_rank, msg);
        fflush(stdout);
        return;
    }
    char root[16];
    snprintf(root, sizeof root, "%d", s->root);
    printf("FAIL stress rank %d op %ld coll=%s comm=%s dtype=%s op=%s count=%zu root=%s inplace=%d: %s\n",
           g_rank, s->id, coll_names[s->coll], comm_names[s->ci], plx_dtype_name(s->dt),
           s->op >= 0 ? plx_op_name((plx_op_t)s->op) : "-", s->count, s->root >= 0 ? root : "-", s->ip, msg);
    fflush(stdout);
}

static unsigned char *g_exp;
static size_t g_exp_cap;
static unsigned char *exp_need(size_t bytes)
{
    if (bytes > g_exp_cap || !g_exp) {
        free(g_exp);
        g_exp_cap = bytes > 4096 ? bytes : 4096;
        if (posix_memalign((void **)&g_exp, 64, g_exp_cap) != 0) {
            fprintf(stderr, "stress_check: out of memory\n");
            exit(1);
        }
    }
    return g_exp;
}

/* got vs exp over cnt elements; AVG on floats: 1 ulp (the library may
 * divide in another precision). */
static void compare(const spec_t *s, const void *got, const void *exp, size_t cnt, const char *what)
{
    const size_t es = plx_dtype_size(s->dt);
    g_checks++;
    if (memcmp(got, exp, cnt * es) == 0) return;
    for (size_t i = 0; i < cnt; i++) {
        const unsigned char *g = (const unsigned char *)got + i * es, *e = (const unsigned char *)exp + i * es;
        if (memcmp(g, e, es) == 0) continue;
        if (s->op == PLX_AVG && is_float(s->dt)) {
            uint64_t a = 0, b = 0;
            memcpy(&a, g, es);
            memcpy(&b, e, es);
            int64_t d = (int64_t)(a - b);
            if ((a >> (es * 8 - 1)) == (b >> (es * 8 - 1)) && d >= -1 && d <= 1) continue;
        }
        uint64_t a = 0, b = 0;
        memcpy(&a, g, es);
        memcpy(&b, e, es);
        fail(s, "%s: element %zu is 0x%" PRIx64 ", expected 0x%" PRIx64, what, i, a, b);
        return;
    }
}

static void check_sentinel(const spec_t *s, const unsigned char *p, size_t n, const char *what)
{
    g_checks++;
    for (size_t i = 0; i < n; i++)
        if (p[i] != SENT) {
            fail(s, "%s: byte %zu is 0x%02x, expected untouched 0x%02x", what, i, p[i], SENT);
            return;
        }
}

static void check_guards(const spec_t *s, const gbuf_t *b, const char *name)
{
    char what[64];
    snprintf(what, sizeof what, "guard before %s", name);
    check_sentinel(s, b->base, GUARD, what);
    snprintf(what, sizeof what, "guard after %s", name);
    check_sentinel(s, b->base + GUARD + b->bytes, GUARD, what);
}

/* Fill the buffers of collective s on communicator cx and start it. */
static plx_status_t post(slot_t *sl, const spec_t *s, plx_request_t *req)
{
    const commx_t *cx = &g_comms[s->ci];
    const int me = cx->rank, n = cx->size, gen = cx->members[me];
    const size_t es = plx_dtype_size(s->dt), c = s->count, nc = (size_t)n * c;
    const int kind = op_kind(s->op), isroot = me == s->root;
    plx_comm_t comm = cx->comm;
    memset(sl, 0, sizeof *sl);
    sl->used = 1;
    sl->s = *s;
    unsigned char *sp = NULL, *rp = NULL;
    switch (s->coll) {
    case C_BARRIER:
        return plx_ibarrier(comm, req);
    case C_BCAST:
        rp = gb_alloc(&sl->rb, c * es, 0);
        if (isroot) gen_fill(s->dt, kind, gen, s->id, 0, c, rp);
        sl->r_role = isroot ? R_INPUT : R_RESULT;
        return plx_ibcast(rp, c, s->dt, s->root, comm, req);
    case C_REDUCE:
    case C_ALLREDUCE: {
        const int all = s->coll == C_ALLREDUCE, useip = s->ip && (all || isroot);
        rp = gb_alloc(&sl->rb, c * es, !(all || isroot));
        sl->r_role = all || isroot ? R_RESULT : R_UNTOUCHED;
        if (useip) {
            gen_fill(s->dt, kind, gen, s->id, 0, c, rp);
        } else {
            sp = gb_alloc(&sl->sb, c * es, 0);
            gen_fill(s->dt, kind, gen, s->id, 0, c, sp);
            sl->s_role = R_INPUT;
        }
        const void *sarg = useip ? PLX_IN_PLACE : sp;
        if (all) return plx_iallreduce(sarg, rp, c, s->dt, (plx_op_t)s->op, comm, req);
        return plx_ireduce(sarg, rp, c, s->dt, (plx_op_t)s->op, s->root, comm, req);
    }
    case C_ALLGATHER:
    case C_GATHER: {
        const int all = s->coll == C_ALLGATHER, useip = s->ip && (all || isroot);
        rp = gb_alloc(&sl->rb, nc * es, !(all || isroot));
        sl->r_role = all || isroot ? R_RESULT : R_UNTOUCHED;
        if (useip) {
            gen_fill(s->dt, kind, gen, s->id, 0, c, rp + (size_t)me * c * es);
        } else {
            sp = gb_alloc(&sl->sb, c * es, 0);
            gen_fill(s->dt, kind, gen, s->id, 0, c, sp);
            sl->s_role = R_INPUT;
        }
        const void *sarg = useip ? PLX_IN_PLACE : sp;
        if (all) return plx_iallgather(sarg, rp, c, s->dt, comm, req);
        return plx_igather(sarg, rp, c, s->dt, s->root, comm, req);
    }
    case C_REDUCE_SCATTER:
        rp = gb_alloc(&sl->rb, (s->ip ? nc : c) * es, 0);
        sl->r_role = R_RESULT;
        if (s->ip) {
            gen_fill(s->dt, kind, gen, s->id, 0, nc, rp);
        } else {
            sp = gb_alloc(&sl->sb, nc * es, 0);
            gen_fill(s->dt, kind, gen, s->id, 0, nc, sp);
            sl->s_role = R_INPUT;
        }
        return plx_ireduce_scatter(s->ip ? PLX_IN_PLACE : sp, rp, c, s->dt, (plx_op_t)s->op, comm, req);
    case C_ALLTOALL:
        rp = gb_alloc(&sl->rb, nc * es, 0);
        sl->r_role = R_RESULT;
        if (s->ip) {
            gen_fill(s->dt, kind, gen, s->id, 0, nc, rp);
        } else {
            sp = gb_alloc(&sl->sb, nc * es, 0);
            gen_fill(s->dt, kind, gen, s->id, 0, nc, sp);
            sl->s_role = R_INPUT;
        }
        return plx_ialltoall(s->ip ? PLX_IN_PLACE : sp, rp, c, s->dt, comm, req);
    case C_SCATTER: {
        const int useip = s->ip && isroot;
        sp = gb_alloc(&sl->sb, nc * es, !isroot);
        if (isroot) gen_fill(s->dt, kind, gen, s->id, 0, nc, sp);
        sl->s_role = isroot ? R_INPUT : R_UNTOUCHED;
        if (!useip) {
            rp = gb_alloc(&sl->rb, c * es, 0);
            sl->r_role = R_RESULT;
        }
        return plx_iscatter(sp, useip ? PLX_IN_PLACE : rp, c, s->dt, s->root, comm, req);
    }
    default:
        return PLX_ERR_INTERNAL;
    }
}

/* The collective in sl completed with status st: check everything, free. */
static void verify(slot_t *sl, plx_status_t st)
{
    const spec_t *s = &sl->s;
    const commx_t *cx = &g_comms[s->ci];
    const int me = cx->rank, n = cx->size, gen = cx->members[me];
    const size_t es = plx_dtype_size(s->dt), c = s->count, nc = (size_t)n * c;
    const int kind = op_kind(s->op);
    g_per_coll[s->coll]++;
    g_checks++;
    if (st != PLX_SUCCESS) {
        fail(s, "completed with status %d (%s)", (int)st, plx_strerror(st));
    } else {
        /* the send buffer: unchanged input, or untouched when ignored */
        if (sl->sb.base) {
            const size_t nel = sl->sb.bytes / es;
            if (sl->s_role == R_INPUT) {
                unsigned char *e = exp_need(sl->sb.bytes);
                gen_fill(s->dt, kind, gen, s->id, 0, nel, e);
                compare(s, gb_ptr(&sl->sb), e, nel, "send buffer changed");
            } else if (sl->s_role == R_UNTOUCHED) {
                check_sentinel(s, gb_ptr(&sl->sb), sl->sb.bytes, "ignored send buffer written");
            }
            check_guards(s, &sl->sb, "send buffer");
        }
        if (sl->rb.base) {
            unsigned char *rp = gb_ptr(&sl->rb);
            if (sl->r_role == R_UNTOUCHED) {
                check_sentinel(s, rp, sl->rb.bytes, "ignored receive buffer written");
            } else if (sl->r_role == R_INPUT) {              /* bcast root */
                unsigned char *e = exp_need(c * es);
                gen_fill(s->dt, kind, gen, s->id, 0, c, e);
                compare(s, rp, e, c, "bcast root buffer changed");
            } else {
                unsigned char *e = exp_need((nc ? nc : 1) * es);
                switch (s->coll) {
                case C_BCAST:
                    gen_fill(s->dt, kind, cx->members[s->root], s->id, 0, c, e);
                    compare(s, rp, e, c, "result");
                    break;
                case C_REDUCE: case C_ALLREDUCE:
                    ref_reduce(s->dt, s->op, cx->members, n, s->id, 0, c, e);
                    compare(s, rp, e, c, "result");
                    break;
                case C_REDUCE_SCATTER:
                    ref_reduce(s->dt, s->op, cx->members, n, s->id, (size_t)me * c, c, e);
                    compare(s, rp, e, c, "result");
                    break;
                case C_ALLGATHER: case C_GATHER:
                    for (int j = 0; j < n; j++)
                        gen_fill(s->dt, kind, cx->members[j], s->id, 0, c, e + (size_t)j * c * es);
                    compare(s, rp, e, nc, "result");
                    break;
                case C_ALLTOALL:
                    for (int j = 0; j < n; j++)
                        gen_fill(s->dt, kind, cx->members[j], s->id, (size_t)me * c, c, e + (size_t)j * c * es);
                    compare(s, rp, e, nc, "result");
                    break;
                case C_SCATTER:
                    gen_fill(s->dt, kind, cx->members[s->root], s->id, (size_t)me * c, c, e);
                    compare(s, rp, e, c, "result");
                    break;
                default:
                    break;
                }
            }
            check_guards(s, &sl->rb, "receive buffer");
        }
        /* (scatter in place at the root has no receive buffer: its block
         * stays in the send buffer, checked above) */
    }
    gb_free(&sl->sb);
    gb_free(&sl->rb);
    sl->used = 0;
}

static const spec_t g_none = { .id = -1 };     /* for failures not about one collective */

/* ---- main loop ---------------------------------------------------------- */
static int g_window = 32;
static slot_t g_slots[MAX_WINDOW];
static plx_request_t g_reqs[MAX_WINDOW];
static int g_inflight;

static void complete_slot(int i, plx_status_t st)
{
    g_checks++;
    if (g_reqs[i] != NULL)
        fail(&g_slots[i].s, "request not NULL after completion");
    g_reqs[i] = NULL;
    verify(&g_slots[i], st);
    g_inflight--;
}

static int random_inflight(void)
{
    int k = (int)local_below((unsigned)g_inflight), i;
    for (i = 0; i < g_window; i++)
        if (g_reqs[i] && k-- == 0) return i;
    return -1;
}

/* Complete at least one request (when any is in flight) by a random path. */
static void complete_some(void)
{
    if (g_inflight == 0) return;
    int path = (int)local_below(P_N);
    g_per_path[path]++;
    switch (path) {
    case P_WAIT: {
        int i = random_inflight();
        plx_status_t st = plx_wait(&g_reqs[i]);
        complete_slot(i, st);
        break;
    }
    case P_WAITANY: {
        int k = 1 + (int)local_below((unsigned)g_inflight);
        while (k-- > 0 && g_inflight > 0) {
            int idx = -1;
            plx_status_t st = plx_waitany(g_window, g_reqs, &idx);
            g_checks++;
            if (idx < 0 || idx >= g_window || !g_slots[idx].used) {
                fail(&g_none, "plx_waitany returned index %d with %d in flight", idx, g_inflight);
                exit(1);
            }
            complete_slot(idx, st);
        }
        break;
    }
    case P_WAITALL: {
        plx_status_t sts[MAX_WINDOW];
        for (int i = 0; i < g_window; i++) sts[i] = PLX_ERR_INTERNAL;
        plx_status_t first = plx_waitall(g_window, g_reqs, sts), want = PLX_SUCCESS;
        for (int i = 0; i < g_window; i++) {
            if (g_slots[i].used) {
                if (want == PLX_SUCCESS) want = sts[i];
                complete_slot(i, sts[i]);
            } else if (sts[i] != PLX_SUCCESS) {
                g_checks++;
                fail(&g_none, "plx_waitall: status %d for a NULL entry", (int)sts[i]);
            }
        }
        g_checks++;
        if (first != want) {
            fail(&g_none, "plx_waitall returned %d, first error was %d", (int)first, (int)want);
        }
        break;
    }
    case P_TESTLOOP: {
        /* plx_test on random requests until one completes (each call drives
         * everything; a request past PLX_TIMEOUT completes with an error) */
        for (;;) {
            int i = random_inflight(), done = 0;
            plx_status_t st = plx_test(&g_reqs[i], &done);
            if (done) {
                complete_slot(i, st);
                break;
            }
            g_checks++;
            if (st != PLX_SUCCESS || g_reqs[i] == NULL) {
                fail(&g_slots[i].s, "plx_test: not done but status %d / request NULL", (int)st);
                exit(1);
            }
        }
        break;
    }
    default: {   /* one sweep of plx_test over the window, whatever completes */
        for (int i = 0; i < g_window; i++) {
            if (!g_reqs[i]) continue;
            int done = 0;
            plx_status_t st = plx_test(&g_reqs[i], &done);
            if (done) complete_slot(i, st);
        }
        break;
    }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr, "usage: stress_check [--ops N] [--window W (1..%d)] [--max-bytes B] [--seed S] "
                    "[--label TEXT] [--tag X]\n", MAX_WINDOW);
    exit(2);
}

int main(int argc, char **argv)
{
    long nops = 10000;
    const char *label = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ops") && i + 1 < argc) nops = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) g_window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) g_max_bytes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc) i++;
        else usage();
    }
    if (nops < 0 || g_window < 1 || g_window > MAX_WINDOW) usage();
    setvbuf(stdout, NULL, _IOLBF, 0);

    plx_context_t ctx = NULL;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "stress_check: plx_init failed: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_t world;
    if (plx_comm_world(ctx, &world) != PLX_SUCCESS || plx_comm_rank(world, &g_rank) != PLX_SUCCESS ||
        plx_comm_size(world, &g_size) != PLX_SUCCESS) {
        fprintf(stderr, "stress_check: cannot query the world communicator\n");
        return 1;
    }
    g_local_state = mix64(g_seed ^ (0xabcdefull + (uint64_t)g_rank * 0x1000193ull)) | 1;

    /* communicators: world, dup, parity split with reversed key order */
    g_comms[0].comm = world;
    if (plx_comm_dup(world, &g_comms[1].comm) != PLX_SUCCESS ||
        plx_comm_split(world, g_rank % 2, -g_rank, &g_comms[2].comm) != PLX_SUCCESS) {
        fprintf(stderr, "stress_check: rank %d: comm_dup/comm_split failed\n", g_rank);
        return 1;
    }
    for (int ci = 0; ci < NCOMM; ci++) {
        commx_t *cx = &g_comms[ci];
        plx_comm_rank(cx->comm, &cx->rank);
        plx_comm_size(cx->comm, &cx->size);
        cx->members = malloc((size_t)cx->size * sizeof(int));
        if (!cx->members) return 1;
        if (ci < 2) {
            for (int r = 0; r < cx->size; r++) cx->members[r] = r;
        } else {
            /* same parity, highest world rank first (key = -rank) */
            int k = 0;
            for (int r = g_size - 1; r >= 0; r--)
                if (r % 2 == g_rank % 2) cx->members[k++] = r;
            if (k != cx->size || cx->members[cx->rank] != g_rank) {
                printf("FAIL stress rank %d: split communicator has size %d rank %d, expected size %d\n",
                       g_rank, cx->size, cx->rank, k);
                return 1;
            }
        }
    }

    st = plx_barrier(world);
    double t0 = now_s();
    long posted = 0;
    int maxflight = 0;
    while (posted < nops || g_inflight > 0) {
        /* fill the window up to a fresh random size, then complete some */
        int target = 1 + (int)local_below((unsigned)g_window);
        while (posted < nops && g_inflight < target) {
            int i = 0;
            while (g_reqs[i] || g_slots[i].used) i++;
            spec_t s;
            draw_spec(posted, &s);
            plx_request_t rq = NULL;
            plx_status_t ps = post(&g_slots[i], &s, &rq);
            g_checks++;
            if (ps != PLX_SUCCESS || rq == NULL) {
                fail(&s, "posting returned %d (%s)%s", (int)ps, plx_strerror(ps), rq ? "" : ", no request");
                printf("stress_check: rank %d: giving up (the ranks are out of step)\n", g_rank);
                return 1;
            }
            g_reqs[i] = rq;
            g_inflight++;
            posted++;
            if (g_inflight > maxflight) maxflight = g_inflight;
        }
        complete_some();
    }
    double t = now_s() - t0;

    /* all ranks still agree after the storm */
    int64_t tot[2] = {posted, g_fails}, sum[2] = {0, 0};
    st = plx_allreduce(tot, sum, 2, PLX_INT64, PLX_SUM, world);
    g_checks++;
    if (st != PLX_SUCCESS || sum[0] != posted * g_size) {
        fail(&g_none, "final allreduce: status %d, ops %" PRId64 " (expected %ld)", (int)st, sum[0],
             posted * g_size);
    }
    if (g_rank == 0) {
        printf("stress_check: %ld collectives in %.2f s on %d ranks (window up to %d, sizes up to %zu B)%s%s\n",
               posted, t, g_size, g_window, g_max_bytes, label ? ", " : "", label ? label : "");
        printf("stress_check: per collective (rank 0):");
        for (int c = 0; c < C_NCOLL; c++) printf(" %s %ld", coll_names[c], g_per_coll[c]);
        printf("\nstress_check: completion rounds (rank 0):");
        for (int p = 0; p < P_N; p++) printf(" %s %ld", path_names[p], g_per_path[p]);
        printf("; at most %d in flight; %" PRId64 " failures over all ranks\n", maxflight, sum[1]);
    }
    plx_comm_free(&g_comms[1].comm);
    plx_comm_free(&g_comms[2].comm);
    for (int ci = 0; ci < NCOMM; ci++) free(g_comms[ci].members);
    free(g_acc);
    free(g_exp);
    st = plx_finalize(&ctx);
    g_checks++;
    if (st != PLX_SUCCESS) {
        fail(&g_none, "plx_finalize: %s", plx_strerror(st));
    }
    printf("stress_check: rank %d%s%s: %ld ops, %ld checks, %ld failures, %.2f s\n", g_rank, label ? " " : "",
           label ? label : "", posted, g_checks, g_fails, t);
    return g_fails ? 1 : 0;
}
