/*
 * tests/mr/reorder_check.c — nonblocking collectives on several
 * communicators, posted in a different order on every rank and completed
 * in yet another order.
 *
 *   plexusrun -n 4 reorder_check [--rounds N] [--seed S] [--tag X]
 *
 * plexus.h matches the collectives of one communicator by the order each
 * rank starts them, and nothing else: across communicators every rank may
 * start them in its own order, and any request may be waited for first.
 * This program checks exactly that freedom:
 *  - five communicators: world, a dup of world, world split into even/odd
 *    ranks (key = rank), the same split with reversed key order
 *    (key = -rank), and one communicator of all ranks in reversed order
 *    (split with one colour, key = -rank);
 *  - each round draws (from the shared seed, so identically on every rank)
 *    a list of collectives for each communicator: every one of the nine
 *    collectives, mixed sizes from 0 to 1 MiB, varying roots, some in place;
 *    plus a ring isend/irecv pair on world;
 *  - each rank posts them in ITS OWN order: even rounds go communicator by
 *    communicator in a rank-dependent permutation, odd rounds interleave the
 *    communicators at random (a per-rank stream), always keeping the order
 *    within a communicator;
 *  - each rank then completes them in another per-rank random order, by
 *    plx_wait, plx_test loops, plx_waitany and a final plx_waitall;
 *  - the case: 64 iallreduce of mixed sizes (1 .. 65539 int32) on
 *    one communicator, waited in reverse order -- on world, and on the
 *    reversed communicator while 64 more run on the dup.
 * Every result is compared with a serial reference computed from
 * deterministic per-rank inputs; send buffers must be unchanged and buffers
 * the API ignores untouched.  Final line `reorder_check: rank R: N checks,
 * M failures`; exit 1 on any failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plexus.h"

#define NCOMM 5
#define PER_COMM 4          /* collectives per communicator and round */
#define MAXOPS (NCOMM * PER_COMM + 2)
#define SENT_I32 ((int32_t)0x5a5a5a5a)

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL,
       C_GATHER, C_SCATTER, C_NCOLL, C_SEND = C_NCOLL, C_RECV };
static const char *const kind_names[C_RECV + 1] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "reduce_scatter", "alltoall", "gather",
    "scatter", "isend", "irecv"
};
static const char *const comm_names[NCOMM] = {
    "world", "dup", "parity", "parity-reversed", "world-reversed"
};

typedef struct commx {
    plx_comm_t comm;
    int rank, size;
    int members[64];          /* world rank of each comm rank */
} commx_t;

static commx_t g_c[NCOMM];
static int g_rank, g_size;
static uint64_t g_seed = 4242;
static long g_checks, g_fails;

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t g_local;       /* per-rank stream: posting and completion orders */
static unsigned local_below(unsigned n)
{
    g_local = mix64(g_local);
    return (unsigned)(g_local % n);
}

/* Input element k of world rank gen in operation id: -500..499, so sums of
 * up to thousands of ranks stay exact in int32. */
static inline int32_t val(int gen, long id, size_t k)
{
    return (int32_t)(mix64(g_seed ^ ((uint64_t)id << 24) ^ ((uint64_t)gen << 56) ^ (uint64_t)k) % 1000) - 500;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    g_fails++;
    if (g_fails > 50) return;
    printf("FAIL reorder rank %d: ", g_rank);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

typedef struct xop {
    long id;
    int kind, ci, root, ip;
    plx_op_t op;               /* SUM, MIN or MAX */
    size_t count;              /* elements (per block for block collectives) */
    int32_t *sb, *rb;
    size_t sn, rn;             /* elements in sb, rb */
    plx_request_t req;
    int posted, done;
} xop_t;

static int32_t *alloc_i32(size_t n)
{
    int32_t *p = malloc((n ? n : 1) * sizeof(int32_t));
    if (!p) {
        fprintf(stderr, "reorder_check: out of memory\n");
        exit(1);
    }
    return p;
}

/* The collective j of communicator ci in round `round`: the same on every
 * rank (the root is reduced modulo the communicator's size). */
static void draw(int round, int ci, int j, xop_t *o)
{
    static const size_t sizes[8] = {0, 1, 5, 64, 1000, 4099, 32771, 262147};
    uint64_t h = mix64(g_seed * 31 + (uint64_t)(round * 1000 + ci * 10 + j));
    memset(o, 0, sizeof *o);
    o->id = (long)round * 1000 + ci * 10 + j;
    o->ci = ci;
    /* the round's collectives cycle through all nine kinds */
    o->kind = (int)((h % 3 + (uint64_t)(round * NCOMM * PER_COMM + ci * PER_COMM + j)) % C_NCOLL);
    h /= 3;
    const int n = g_c[ci].size;
    o->root = (int)(h % 64) % n;
    h /= 64;
    /* sizes: large ones rarely */
    unsigned si = (unsigned)(h % 16);
    h /= 16;
    o->count = sizes[si < 8 ? si % 5 : si < 14 ? 3 + si % 3 : 6 + si % 2];
    o->ip = (int)(h % 3 == 0);
    h /= 3;
    static const plx_op_t ops[3] = {PLX_SUM, PLX_MIN, PLX_MAX};
    o->op = ops[h % 3];
    switch (o->kind) {
    case C_ALLGATHER: case C_REDUCE_SCATTER: case C_ALLTOALL: case C_GATHER: case C_SCATTER:
        o->count /= (size_t)n;
        break;
    case C_BARRIER:
        o->count = 0;
        break;
    default:
        break;
    }
}

static plx_status_t post(xop_t *o)
{
    const commx_t *cx = &g_c[o->ci];
    const int me = cx->rank, n = cx->size, isroot = me == o->root;
    const size_t c = o->count, nc = c * (size_t)n;
    plx_comm_t comm = cx->comm;
    o->sn = o->rn = 0;
    switch (o->kind) {
    case C_BARRIER: o->sn = o->rn = 0; break;
    case C_BCAST: o->rn = c; break;
    case C_REDUCE: case C_ALLREDUCE: o->sn = c; o->rn = c; break;
    case C_ALLGATHER: case C_GATHER: o->sn = c; o->rn = nc; break;
    case C_REDUCE_SCATTER: o->sn = nc; o->rn = o->ip ? nc : c; break;
    case C_ALLTOALL: o->sn = nc; o->rn = nc; break;
    case C_SCATTER: o->sn = nc; o->rn = c; break;
    case C_SEND: o->sn = c; break;
    case C_RECV: o->rn = c; break;
    default: break;
    }
    o->sb = alloc_i32(o->sn);
    o->rb = alloc_i32(o->rn);
    for (size_t k = 0; k < o->rn; k++) o->rb[k] = SENT_I32;
    const int gen = cx->members[me];
    /* the send buffer holds this rank's input; scatter's only at the root */
    for (size_t k = 0; k < o->sn; k++)
        o->sb[k] = (o->kind == C_SCATTER && !isroot) ? SENT_I32 : val(gen, o->id, k);
    o->posted = 1;
    plx_request_t *rq = &o->req;
    switch (o->kind) {
    case C_BARRIER: return plx_ibarrier(comm, rq);
    case C_BCAST:
        if (isroot) for (size_t k = 0; k < c; k++) o->rb[k] = val(gen, o->id, k);
        return plx_ibcast(o->rb, c, PLX_INT32, o->root, comm, rq);
    case C_REDUCE:
        return plx_ireduce(o->sb, o->rb, c, PLX_INT32, o->op, o->root, comm, rq);
    case C_ALLREDUCE:
        if (o->ip) {
            memcpy(o->rb, o->sb, c * sizeof(int32_t));
            return plx_iallreduce(PLX_IN_PLACE, o->rb, c, PLX_INT32, o->op, comm, rq);
        }
        return plx_iallreduce(o->sb, o->rb, c, PLX_INT32, o->op, comm, rq);
    case C_ALLGATHER:
        if (o->ip) {
            memcpy(o->rb + (size_t)me * c, o->sb, c * sizeof(int32_t));
            return plx_iallgather(PLX_IN_PLACE, o->rb, c, PLX_INT32, comm, rq);
        }
        return plx_iallgather(o->sb, o->rb, c, PLX_INT32, comm, rq);
    case C_REDUCE_SCATTER:
        if (o->ip) {
            memcpy(o->rb, o->sb, nc * sizeof(int32_t));
            return plx_ireduce_scatter(PLX_IN_PLACE, o->rb, c, PLX_INT32, o->op, comm, rq);
        }
        return plx_ireduce_scatter(o->sb, o->rb, c, PLX_INT32, o->op, comm, rq);
    case C_ALLTOALL: return plx_ialltoall(o->sb, o->rb, c, PLX_INT32, comm, rq);
    case C_GATHER: return plx_igather(o->sb, o->rb, c, PLX_INT32, o->root, comm, rq);
    case C_SCATTER: return plx_iscatter(o->sb, o->rb, c, PLX_INT32, o->root, comm, rq);
    case C_SEND: return plx_isend(o->sb, c, PLX_INT32, o->root, (int)(o->id % 100000), comm, rq);
    case C_RECV: return plx_irecv(o->rb, c, PLX_INT32, o->root, (int)(o->id % 100000), comm, NULL, rq);
    default: return PLX_ERR_INTERNAL;
    }
}

static int32_t red(plx_op_t op, const int *gens, int n, long id, size_t k)
{
    int32_t a = val(gens[0], id, k);
    for (int r = 1; r < n; r++) {
        int32_t v = val(gens[r], id, k);
        if (op == PLX_SUM) a += v;
        else if (op == PLX_MIN) a = v < a ? v : a;
        else a = v > a ? v : a;
    }
    return a;
}

/* First wrong element of got[0..n) against expected(k), reported once. */
#define EXPECT_EACH(o, got, n, expr, what)                                                       \
    do {                                                                                          \
        g_checks++;                                                                               \
        for (size_t k_ = 0; k_ < (n); k_++) {                                                     \
            const size_t k = k_;                                                                  \
            int32_t e_ = (expr);                                                                  \
            if ((got)[k] != e_) {                                                                 \
                fail("%s op %ld on %s (count %zu root %d ip %d): %s: element %zu is %d, expected %d", \
                     kind_names[(o)->kind], (o)->id, comm_names[(o)->ci], (o)->count, (o)->root,   \
                     (o)->ip, what, k, (int)(got)[k], (int)e_);                                   \
                break;                                                                            \
            }                                                                                     \
        }                                                                                         \
    } while (0)

static void verify(xop_t *o, plx_status_t st)
{
    const commx_t *cx = &g_c[o->ci];
    const int me = cx->rank, n = cx->size, isroot = me == o->root, gen = cx->members[me];
    const size_t c = o->count;
    const long id = o->id;
    o->done = 1;
    g_checks++;
    if (st != PLX_SUCCESS) {
        fail("%s op %ld on %s: status %s", kind_names[o->kind], id, comm_names[o->ci], plx_strerror(st));
    } else if (o->req != NULL) {
        fail("%s op %ld on %s: request not NULL after completion", kind_names[o->kind], id, comm_names[o->ci]);
    } else {
        /* unchanged send buffers (scatter's at a non-root: untouched) */
        if (o->kind == C_SCATTER && !isroot)
            EXPECT_EACH(o, o->sb, o->sn, SENT_I32, "ignored sendbuf written");
        else
            EXPECT_EACH(o, o->sb, o->sn, val(gen, id, k), "sendbuf changed");
        switch (o->kind) {
        case C_BCAST:
            EXPECT_EACH(o, o->rb, c, val(cx->members[o->root], id, k), "result");
            break;
        case C_REDUCE:
            if (isroot) EXPECT_EACH(o, o->rb, c, red(o->op, cx->members, n, id, k), "result");
            else EXPECT_EACH(o, o->rb, c, SENT_I32, "ignored recvbuf written");
            break;
        case C_ALLREDUCE:
            EXPECT_EACH(o, o->rb, c, red(o->op, cx->members, n, id, k), "result");
            break;
        case C_ALLGATHER:
            EXPECT_EACH(o, o->rb, o->rn, val(cx->members[k / c], id, k % c), "result");
            break;
        case C_GATHER:
            if (isroot) EXPECT_EACH(o, o->rb, o->rn, val(cx->members[k / c], id, k % c), "result");
            else EXPECT_EACH(o, o->rb, o->rn, SENT_I32, "ignored recvbuf written");
            break;
        case C_REDUCE_SCATTER:
            EXPECT_EACH(o, o->rb, c, red(o->op, cx->members, n, id, (size_t)me * c + k), "result");
            break;
        case C_ALLTOALL:
            EXPECT_EACH(o, o->rb, o->rn, val(cx->members[k / c], id, (size_t)me * c + k % c), "result");
            break;
        case C_SCATTER:
            EXPECT_EACH(o, o->rb, c, val(cx->members[o->root], id, (size_t)me * c + k), "result");
            break;
        case C_RECV:
            EXPECT_EACH(o, o->rb, c, val(cx->members[o->root], id, k), "received");
            break;
        default:
            break;
        }
    }
    free(o->sb);
    free(o->rb);
    o->sb = o->rb = NULL;
}

static void post_or_die(xop_t *o)
{
    plx_status_t st = post(o);
    g_checks++;
    if (st != PLX_SUCCESS) {
        fail("posting %s op %ld on %s: %s", kind_names[o->kind], o->id, comm_names[o->ci], plx_strerror(st));
        printf("reorder_check: rank %d: giving up (the ranks would be out of step)\n", g_rank);
        exit(1);
    }
}

/* One round: draw, post in a per-rank order, complete in another. */
static void round_run(int round)
{
    xop_t ops[MAXOPS];
    int nops = 0;
    int first[NCOMM];
    for (int ci = 0; ci < NCOMM; ci++) {
        first[ci] = nops;
        for (int j = 0; j < PER_COMM; j++) draw(round, ci, j, &ops[nops++]);
    }
    /* a ring message on world; its position in the posting order is per rank */
    int np2p = 0;
    if (g_size > 1) {
        xop_t *s = &ops[nops++], *r = &ops[nops++];
        memset(s, 0, sizeof *s);
        memset(r, 0, sizeof *r);
        s->kind = C_SEND;
        r->kind = C_RECV;
        s->id = r->id = (long)round * 1000 + 999;
        s->count = r->count = (size_t)(round % 3 == 0 ? 70000 : 17);
        s->root = (g_rank + 1) % g_size;      /* peer */
        r->root = (g_rank + g_size - 1) % g_size;
        np2p = 2;
    }
    (void)np2p;
    /* posting order */
    int order[MAXOPS], no = 0;
    int next[NCOMM];
    for (int ci = 0; ci < NCOMM; ci++) next[ci] = first[ci];
    if (round % 2 == 0) {
        /* communicator blocks in a rank-dependent permutation */
        int perm[NCOMM];
        for (int i = 0; i < NCOMM; i++) perm[i] = i;
        for (int i = NCOMM - 1; i > 0; i--) {
            int j = (int)local_below((unsigned)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        /* make sure ranks 0 and 1 differ at least by a rotation */
        for (int i = 0; i < NCOMM; i++) {
            int ci = perm[(i + g_rank) % NCOMM];
            for (int j = 0; j < PER_COMM; j++) order[no++] = next[ci]++;
        }
    } else {
        /* random interleaving, order within each communicator kept */
        int left = NCOMM * PER_COMM;
        while (left > 0) {
            int ci = (int)local_below(NCOMM);
            if (next[ci] == first[ci] + PER_COMM) continue;
            order[no++] = next[ci]++;
            left--;
        }
    }
    /* the p2p pair goes in at random places */
    for (int p = NCOMM * PER_COMM; p < nops; p++) {
        int at = (int)local_below((unsigned)no + 1);
        memmove(&order[at + 1], &order[at], (size_t)(no - at) * sizeof(int));
        order[at] = p;
        no++;
    }
    for (int i = 0; i < no; i++) {
        xop_t *o = &ops[order[i]];
        if (o->kind == C_SEND || o->kind == C_RECV) o->ci = 0;
        post_or_die(o);
    }
    /* completion: a random permutation, each by wait / test loop / waitany,
     * the last third by one waitall */
    int corder[MAXOPS];
    for (int i = 0; i < nops; i++) corder[i] = i;
    for (int i = nops - 1; i > 0; i--) {
        int j = (int)local_below((unsigned)i + 1), t = corder[i];
        corder[i] = corder[j];
        corder[j] = t;
    }
    int until = nops - nops / 3;
    for (int i = 0; i < until; i++) {
        xop_t *o = &ops[corder[i]];
        if (o->done) continue;          /* completed by an earlier waitany */
        unsigned how = local_below(3);
        if (how == 0) {
            verify(o, plx_wait(&o->req));
        } else if (how == 1) {
            int done = 0;
            plx_status_t st;
            do st = plx_test(&o->req, &done); while (!done && st == PLX_SUCCESS);
            verify(o, st);
        } else {
            plx_request_t arr[MAXOPS];
            for (int k = 0; k < nops; k++) arr[k] = ops[k].done ? NULL : ops[k].req;
            int idx = -1;
            plx_status_t st = plx_waitany(nops, arr, &idx);
            g_checks++;
            if (idx < 0 || idx >= nops || ops[idx].done) {
                fail("waitany gave index %d", idx);
                exit(1);
            }
            ops[idx].req = arr[idx];
            verify(&ops[idx], st);
        }
    }
    plx_request_t arr[MAXOPS];
    plx_status_t sts[MAXOPS];
    for (int k = 0; k < nops; k++) arr[k] = ops[k].done ? NULL : ops[k].req;
    plx_waitall(nops, arr, sts);
    for (int k = 0; k < nops; k++)
        if (!ops[k].done) {
            ops[k].req = arr[k];
            verify(&ops[k], sts[k]);
        }
}

/* The case: k iallreduce of mixed sizes on comm (and optionally k
 * more on other at the same time), waited in reverse order. */
static void many_allreduce_reverse(int ci, int other, long id0)
{
    enum { K = 64 };
    xop_t ops[2 * K];
    int nops = 0;
    for (int pass = 0; pass < (other >= 0 ? 2 : 1); pass++)
        for (int k = 0; k < K; k++) {
            xop_t *o = &ops[nops++];
            memset(o, 0, sizeof *o);
            o->kind = C_ALLREDUCE;
            o->ci = pass ? other : ci;
            o->id = id0 + pass * K + k;
            o->count = ((size_t)1 << (k % 17)) + (k % 5 == 0 ? 3 : 0);   /* 1 .. 65539 */
            o->op = k % 3 == 0 ? PLX_MAX : PLX_SUM;
            o->ip = k % 4 == 1;
        }
    /* interleave the two communicators' posts differently on each rank */
    int a = 0, b = K;
    while (a < K || (other >= 0 && b < 2 * K)) {
        int take_b = other >= 0 && b < 2 * K && (a == K || local_below(2));
        post_or_die(&ops[take_b ? b++ : a++]);
    }
    for (int k = nops - 1; k >= 0; k--) {
        /* reverse order: the last posted first */
        verify(&ops[k], plx_wait(&ops[k].req));
    }
}

int main(int argc, char **argv)
{
    int rounds = 40;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc) i++;
        else {
            fprintf(stderr, "usage: reorder_check [--rounds N] [--seed S] [--tag X]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    plx_context_t ctx;
    plx_status_t st = plx_init(&ctx);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "reorder_check: plx_init: %s\n", plx_strerror(st));
        return 1;
    }
    plx_comm_t world;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &g_rank);
    plx_comm_size(world, &g_size);
    if (g_size > 64) {
        fprintf(stderr, "reorder_check: at most 64 ranks\n");
        return 2;
    }
    g_local = mix64(g_seed + 0x51ed27ull * (uint64_t)(g_rank + 1));

    g_c[0].comm = world;
    if (plx_comm_dup(world, &g_c[1].comm) != PLX_SUCCESS ||
        plx_comm_split(world, g_rank % 2, g_rank, &g_c[2].comm) != PLX_SUCCESS ||
        plx_comm_split(world, g_rank % 2, -g_rank, &g_c[3].comm) != PLX_SUCCESS ||
        plx_comm_split(world, 0, -g_rank, &g_c[4].comm) != PLX_SUCCESS) {
        fprintf(stderr, "reorder_check: rank %d: dup/split failed\n", g_rank);
        return 1;
    }
    for (int ci = 0; ci < NCOMM; ci++) {
        commx_t *cx = &g_c[ci];
        plx_comm_rank(cx->comm, &cx->rank);
        plx_comm_size(cx->comm, &cx->size);
        int k = 0;
        switch (ci) {
        case 0: case 1: for (int r = 0; r < g_size; r++) cx->members[k++] = r; break;
        case 2: for (int r = g_rank % 2; r < g_size; r += 2) cx->members[k++] = r; break;
        case 3: for (int r = g_size - 1; r >= 0; r--) if (r % 2 == g_rank % 2) cx->members[k++] = r; break;
        default: for (int r = g_size - 1; r >= 0; r--) cx->members[k++] = r; break;
        }
        g_checks++;
        if (k != cx->size || cx->members[cx->rank] != g_rank) {
            fail("communicator %s: size %d rank %d, expected size %d with world rank %d at its rank",
                 comm_names[ci], cx->size, cx->rank, k, g_rank);
            return 1;
        }
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    many_allreduce_reverse(0, -1, 9000000);
    for (int r = 0; r < rounds; r++) round_run(r);
    many_allreduce_reverse(4, 1, 9100000);

    st = plx_barrier(world);
    g_checks++;
    if (st != PLX_SUCCESS) fail("final barrier: %s", plx_strerror(st));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int ci = 1; ci < NCOMM; ci++) plx_comm_free(&g_c[ci].comm);
    if (g_rank == 0)
        printf("reorder_check: %d rounds on %d communicators, %d ranks, %.2f s\n", rounds, NCOMM, g_size,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    st = plx_finalize(&ctx);
    g_checks++;
    if (st != PLX_SUCCESS) fail("plx_finalize: %s", plx_strerror(st));
    printf("reorder_check: rank %d: %ld checks, %ld failures\n", g_rank, g_checks, g_fails);
    return g_fails ? 1 : 0;
}
