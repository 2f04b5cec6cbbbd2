/*
 * tests/gpu/fake/fakenccl.c — a stand-in NCCL (libnccl.so.2) on the
 * stand-in CUDA runtime, for tests/gpu/fake_check.sh.
 *
 * Communicators of any size between processes of one machine, through a
 * shared file /dev/shm/fakenccl-<id> (the unique id names it): every
 * collective, and every group of sends and receives, is one stream step
 * that publishes this rank's input in its slot and, once every rank
 * published the same sequence number, computes this rank's output — so
 * operations match by enqueue order, as in NCCL, and a wrong order shows.
 * Nonblocking like a config.blocking = 0 communicator: init completes when
 * every rank joined; every other operation answers ncclInProgress and is
 * enqueued only after two ncclCommGetAsyncError polls.
 * FAKE_NCCL_FAIL=N: the N-th operation reports ncclRemoteError;
 * FAKE_NCCL_HANG=N: from the N-th on, streams stop (a stuck kernel).
 */
#define _GNU_SOURCE
#include <nccl.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/half.h"   /* lib/core/half.h: float16/bfloat16 conversions */
void fake_enqueue_fn(cudaStream_t st, void (*fn)(void *), void *arg);
void fake_enqueue_poll(cudaStream_t st, int (*fn)(void *), void *arg);
void *fake_translate(const void *p);
void fake_set_hang(int h);

#define MAXR 16
#define SLOT (1L << 30)
#define HDR 4096
typedef struct hdr { int joined[MAXR]; long pub[MAXR]; long done[MAXR]; } hdr_t;
typedef struct pend { struct grp *g; int kind; const void *s; void *r; size_t n; ncclDataType_t t; ncclRedOp_t op; int root; cudaStream_t st; } pend_t;
struct ncclComm { char path[200]; int aborted, nranks, rank, polls_left; ncclResult_t async; char *base; hdr_t *h; long seq; int init_done; pend_t *pend; };
enum { K_AR, K_RED, K_BC, K_AG, K_RS, K_A2A, K_GA, K_SC, K_P2P };
/* a group of sends and receives: one step; each rank's slot holds
 * [count][(dest, bytes)...][data...] */
typedef struct p2p { int send, peer; const void *s; void *r; size_t bytes; } p2p_t;
typedef struct grp { int n; p2p_t e[64]; } grp_t;
typedef struct step { struct ncclComm *c; pend_t p; long seq; int phase; } step_t;
static long ncoll;
static int in_group;

static size_t tsize(ncclDataType_t t) { switch (t) { case ncclInt8: case ncclUint8: return 1; case ncclFloat16: case ncclBfloat16: return 2; case ncclInt32: case ncclUint32: case ncclFloat32: return 4; default: return 8; } }
static double ld(const void *b, size_t i, ncclDataType_t t) {
    switch (t) { case ncclInt8: return ((const int8_t *)b)[i]; case ncclUint8: return ((const uint8_t *)b)[i];
    case ncclInt32: return ((const int32_t *)b)[i]; case ncclUint32: return ((const uint32_t *)b)[i];
    case ncclInt64: return (double)((const int64_t *)b)[i]; case ncclUint64: return (double)((const uint64_t *)b)[i];
    case ncclFloat16: return plx_f16_to_f32(((const uint16_t *)b)[i]); case ncclBfloat16: return plx_bf16_to_f32(((const uint16_t *)b)[i]);
    case ncclFloat32: return ((const float *)b)[i]; default: return ((const double *)b)[i]; } }
static void st_(void *b, size_t i, ncclDataType_t t, double v) {
    switch (t) { case ncclInt8: ((int8_t *)b)[i] = (int8_t)v; break; case ncclUint8: ((uint8_t *)b)[i] = (uint8_t)v; break;
    case ncclInt32: ((int32_t *)b)[i] = (int32_t)v; break; case ncclUint32: ((uint32_t *)b)[i] = (uint32_t)v; break;
    case ncclInt64: ((int64_t *)b)[i] = (int64_t)v; break; case ncclUint64: ((uint64_t *)b)[i] = (uint64_t)v; break;
    case ncclFloat16: ((uint16_t *)b)[i] = plx_f32_to_f16((float)v); break; case ncclBfloat16: ((uint16_t *)b)[i] = plx_f32_to_bf16((float)v); break;
    case ncclFloat32: ((float *)b)[i] = (float)v; break; default: ((double *)b)[i] = v; } }
static int isint(ncclDataType_t t) { return t <= ncclUint64; }

static char *slot(struct ncclComm *c, int r) { return c->base + HDR + (long)r * SLOT; }
static size_t in_len(const pend_t *p, int rank, int P) {   /* elements this rank contributes */
    switch (p->kind) { case K_BC: return rank == p->root ? p->n : 0; case K_SC: return rank == p->root ? P * p->n : 0;
    case K_RS: case K_A2A: return P * p->n; default: return p->n; } }
static int step(void *arg) {
    step_t *x = arg; struct ncclComm *c = x->c; pend_t *p = &x->p; int P = c->nranks, me = c->rank;
    size_t es = tsize(p->t);
    if (c->aborted) { free(x); return 1; }   /* kernels of an aborted communicator exit */
    if (p->kind == K_P2P) {
        grp_t *g = p->g;
        if (x->phase == 0) {
            for (int r = 0; r < P; r++) if (__atomic_load_n(&c->h->done[r], __ATOMIC_ACQUIRE) < x->seq - 1) return 0;
            long *tab = (long *)slot(c, me); char *data = slot(c, me) + 8 * 130; long k = 0; size_t off = 0;
            for (int i = 0; i < g->n; i++) if (g->e[i].send) {
                tab[1 + 2 * k] = g->e[i].peer; tab[2 + 2 * k] = (long)g->e[i].bytes; k++;
                memcpy(data + off, fake_translate(g->e[i].s), g->e[i].bytes); off += g->e[i].bytes; }
            tab[0] = k;
            __atomic_store_n(&c->h->pub[me], x->seq, __ATOMIC_RELEASE);
            x->phase = 1;
        }
        for (int r = 0; r < P; r++) if (__atomic_load_n(&c->h->pub[r], __ATOMIC_ACQUIRE) < x->seq) return 0;
        int used[MAXR][64]; memset(used, 0, sizeof used);
        for (int i = 0; i < g->n; i++) if (!g->e[i].send) {
            int q = g->e[i].peer; long *tab = (long *)slot(c, q); char *data = slot(c, q) + 8 * 130; size_t off = 0; int found = 0;
            for (long k = 0; k < tab[0]; k++) {
                if (tab[1 + 2 * k] == me && !used[q][k]) {
                    if ((size_t)tab[2 + 2 * k] != g->e[i].bytes) { fprintf(stderr, "fake nccl: send/recv size mismatch\n"); abort(); }
                    memcpy(fake_translate(g->e[i].r), data + off, g->e[i].bytes); used[q][k] = 1; found = 1; break; }
                off += (size_t)tab[2 + 2 * k];
            }
            if (!found) { fprintf(stderr, "fake nccl: recv from %d without a send\n", q); abort(); }
        }
        __atomic_store_n(&c->h->done[me], x->seq, __ATOMIC_RELEASE);
        free(g); free(x);
        return 1;
    }
    if (x->phase == 0) {
        for (int r = 0; r < P; r++) if (__atomic_load_n(&c->h->done[r], __ATOMIC_ACQUIRE) < x->seq - 1) return 0;
        size_t len = in_len(p, me, P) * es;
        if (len > (size_t)SLOT) { fprintf(stderr, "fake nccl: %zu bytes too large\n", len); abort(); }
        if (len) memcpy(slot(c, me), fake_translate(p->s), len);
        __atomic_store_n(&c->h->pub[me], x->seq, __ATOMIC_RELEASE);
        x->phase = 1;
    }
    for (int r = 0; r < P; r++) if (__atomic_load_n(&c->h->pub[r], __ATOMIC_ACQUIRE) < x->seq) return 0;
    char *out = p->r ? fake_translate(p->r) : NULL; size_t n = p->n;
    switch (p->kind) {
    case K_AR: case K_RED: case K_RS: {
        if (p->kind == K_RED && me != p->root) break;
        size_t off = p->kind == K_RS ? (size_t)me * n : 0;
        for (size_t i = 0; i < n; i++) {
            double a = ld(slot(c, 0), off + i, p->t);
            for (int r = 1; r < P; r++) { double v = ld(slot(c, r), off + i, p->t);
                switch (p->op) { case ncclSum: case ncclAvg: a += v; break; case ncclProd: a *= v; break;
                case ncclMin: a = v < a ? v : a; break; case ncclMax: a = v > a ? v : a; break; default: break; } }
            if (p->op == ncclAvg) a = isint(p->t) ? (double)((long long)a / P) : a / P;
            st_(out, i, p->t, a);
        }
        break; }
    case K_BC: memcpy(out, slot(c, p->root), n * es); break;
    case K_AG: for (int r = 0; r < P; r++) memcpy(out + (size_t)r * n * es, slot(c, r), n * es); break;
    case K_A2A: for (int r = 0; r < P; r++) memcpy(out + (size_t)r * n * es, slot(c, r) + (size_t)me * n * es, n * es); break;
    case K_GA: if (me == p->root) for (int r = 0; r < P; r++) memcpy(out + (size_t)r * n * es, slot(c, r), n * es); break;
    case K_SC: memcpy(out, slot(c, p->root) + (size_t)me * n * es, n * es); break;
    }
    __atomic_store_n(&c->h->done[me], x->seq, __ATOMIC_RELEASE);
    free(x);
    return 1;
}
static void enqueue(struct ncclComm *c, pend_t *p) {
    step_t *x = calloc(1, sizeof *x); x->c = c; x->p = *p; x->seq = ++c->seq;
    fake_enqueue_poll(p->st, step, x);
}

const char *ncclGetErrorString(ncclResult_t r) { static char b[48]; snprintf(b, sizeof b, "fake nccl result %d", (int)r); return b; }
const char *ncclGetLastError(ncclComm_t c) { (void)c; return "fake NCCL last error message"; }
ncclResult_t ncclGetVersion(int *v) { *v = 22809; return ncclSuccess; }
ncclResult_t ncclGetUniqueId(ncclUniqueId *u) {
    memset(u, 0, sizeof *u); snprintf(u->internal, sizeof u->internal, "fakenccl-%d-%ld", (int)getpid(), random()); return ncclSuccess; }
ncclResult_t ncclCommInitRankConfig(ncclComm_t *cp, int n, ncclUniqueId id, int rank, ncclConfig_t *cfg) {
    if (n > MAXR) return ncclInvalidArgument;
    struct ncclComm *c = calloc(1, sizeof *c); c->nranks = n; c->rank = rank; *cp = c;
    char *path = c->path; snprintf(path, sizeof c->path, "/dev/shm/%s", id.internal);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, HDR + (long)n * SLOT) != 0) { perror(path); if (fd >= 0) close(fd); return ncclSystemError; }
    c->base = mmap(NULL, HDR + (long)n * SLOT, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); close(fd);
    c->h = (hdr_t *)c->base;
    __atomic_store_n(&c->h->joined[rank], 1, __ATOMIC_RELEASE);
    if (cfg && cfg->blocking == 0) return ncclInProgress;
    return ncclSuccess;
}
static int all_joined(struct ncclComm *c) {
    for (int r = 0; r < c->nranks; r++) if (!__atomic_load_n(&c->h->joined[r], __ATOMIC_ACQUIRE)) return 0;
    if (!c->init_done && c->rank == 0) unlink(c->path);   /* everyone mapped it: the name can go */
    return 1;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *r) {
    if (c->async) { *r = c->async; return ncclSuccess; }
    if (!c->init_done) { if (!all_joined(c)) { *r = ncclInProgress; return ncclSuccess; } c->init_done = 1; }
    if (c->polls_left > 0) { c->polls_left--; *r = ncclInProgress; return ncclSuccess; }
    if (c->pend) { enqueue(c, c->pend); free(c->pend); c->pend = NULL; }
    *r = ncclSuccess; return ncclSuccess;
}
ncclResult_t ncclCommFinalize(ncclComm_t c) { c->polls_left = 2; return ncclInProgress; }
ncclResult_t ncclCommDestroy(ncclComm_t c) { munmap(c->base, HDR + (long)c->nranks * SLOT); free(c); return ncclSuccess; }
ncclResult_t ncclCommAbort(ncclComm_t c) { fprintf(stderr, "fake nccl: abort\n"); fake_set_hang(0); c->aborted = 1; return ncclSuccess; }
static ncclResult_t coll(ncclComm_t c, pend_t p) {
    ncoll++;
    const char *f = getenv("FAKE_NCCL_FAIL"), *h = getenv("FAKE_NCCL_HANG");
    if (f && ncoll == atol(f)) { c->async = ncclRemoteError; return ncclSuccess; }
    if (h && ncoll >= atol(h)) fake_set_hang(1);
    if (!in_group && (ncoll & 1)) { c->pend = malloc(sizeof p); *c->pend = p; c->polls_left = 2; return ncclInProgress; }
    enqueue(c, &p);
    return ncclSuccess;
}
#define PEND(k, s_, r_, n_, t_, o_, root_) ((pend_t){ NULL, k, s_, r_, n_, t_, o_, root_, st })
ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_AR, s, r, n, t, o, 0)); }
ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, int root, ncclComm_t c, cudaStream_t st) { if (c->rank == root && !r) return ncclInvalidArgument; return coll(c, PEND(K_RED, s, r, n, t, o, root)); }
ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_BC, s, r, n, t, ncclSum, root)); }
ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_AG, s, r, n, t, ncclSum, 0)); }
ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_RS, s, r, n, t, o, 0)); }
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) { if (s == r) return ncclInvalidUsage; return coll(c, PEND(K_A2A, s, r, n, t, ncclSum, 0)); }
ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_GA, s, r, n, t, ncclSum, root)); }
ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) { return coll(c, PEND(K_SC, s, r, n, t, ncclSum, root)); }
static grp_t *cur_g; static ncclComm_t cur_c; static cudaStream_t cur_st;
static ncclResult_t add(int send, const void *s, void *r, size_t n, ncclDataType_t t, int p, ncclComm_t c, cudaStream_t st) {
    if (!in_group) return ncclInvalidUsage;
    if (!cur_g) cur_g = calloc(1, sizeof *cur_g);
    cur_c = c; cur_st = st;
    cur_g->e[cur_g->n++] = (p2p_t){ send, p, s, r, n * tsize(t) };
    return ncclSuccess;
}
ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int p, ncclComm_t c, cudaStream_t st) { return add(1, s, NULL, n, t, p, c, st); }
ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int p, ncclComm_t c, cudaStream_t st) { return add(0, NULL, r, n, t, p, c, st); }
ncclResult_t ncclGroupStart(void) { in_group++; return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) {
    in_group--;
    if (in_group == 0 && cur_c) {
        if (!cur_g) cur_g = calloc(1, sizeof *cur_g);
        pend_t p = { 0 }; p.g = cur_g; p.kind = K_P2P; p.st = cur_st;
        ncoll++;
        ncclComm_t c = cur_c; cur_g = NULL; cur_c = NULL;
        if (ncoll & 1) { c->pend = malloc(sizeof p); *c->pend = p; c->polls_left = 2; return ncclInProgress; }
        enqueue(c, &p);
    }
    return ncclSuccess;
}
