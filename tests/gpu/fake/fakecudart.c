/*
 * tests/gpu/fake/fakecudart.c — a stand-in CUDA runtime (libcudart.so.N)
 * for testing Plexus' device paths on a machine without a GPU; built and
 * put first on LD_LIBRARY_PATH by tests/gpu/fake_check.sh only.  It proves
 * the plumbing (routing, setup, ordering, staging, event polling, errors),
 * never CUDA itself.
 *
 *  - device memory: address ranges reserved PROT_NONE (so a host
 *    dereference of a device pointer crashes, as it would on a GPU),
 *    backed by separate host memory that the copy functions translate to;
 *    cudaPointerGetAttributes tells device, pinned host and unknown apart;
 *  - streams: queues run lazily, one step per cudaEventQuery (copies are
 *    really asynchronous); streams made with default flags wait for the
 *    legacy stream; cudaLaunchHostFunc runs on a thread of its own;
 *  - FAKE_CUDA_NODEV=1: no device (error 35, as without a driver);
 *    FAKE_CUDA_NDEV=N: N devices, one uuid each; FAKE_CUDA_GPU_PER_RANK=1:
 *    every process has a GPU of its own (uuid from PLX_RANK);
 *  - fake_enqueue_fn/fake_enqueue_poll/fake_translate/fake_set_hang serve
 *    the stand-in NCCL (fakenccl.c).
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

int fake_hang;
static pthread_mutex_t mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
typedef struct alloc { char *base; size_t size; char *back; int type; int dev; struct alloc *next; } alloc_t;
static alloc_t *allocs;
static __thread cudaError_t last_err;
static __thread int cur_dev;

static alloc_t *find(const void *p) {
    for (alloc_t *a = allocs; a; a = a->next)
        if ((const char *)p >= a->base && (const char *)p < a->base + (a->size ? a->size : 1)) return a;
    return NULL;
}
void *fake_translate(const void *p) {
    alloc_t *a = find(p);
    if (a && a->type == cudaMemoryTypeDevice) return a->back + ((const char *)p - a->base);
    return (void *)p;
}
static cudaError_t ret(cudaError_t e) { if (e) last_err = e; return e; }

/* ---- streams ---- */
typedef struct op { int (*pollfn)(void *); int kind; void *dst; const void *src; size_t n; int val; void (*fn)(void *); void *arg; long dep; int started; volatile int fin; pthread_t th; } op_t;
typedef struct fstream { op_t *ops; long nops, cap, done; int hang; int blocking; struct fstream *next_s; } fstream_t;
static struct fstream *all_streams;
static fstream_t legacy;
static fstream_t *S(cudaStream_t s) { return s ? (fstream_t *)s : &legacy; }
static void *host_thread(void *a) { op_t *o = a; o->fn(o->arg); o->fin = 1; return NULL; }
static int exec_one(fstream_t *s);
static void drain(fstream_t *s, long upto);
static void drain_try(fstream_t *s, long upto);
static int exec_one(fstream_t *s) {
    op_t *o = &s->ops[s->done];
    if (s != &legacy && s->blocking && o->dep > legacy.done) { drain_try(&legacy, o->dep); if (legacy.done < o->dep) return 0; }
    if (o->kind == 4) {   /* a step that may have to wait for other processes */
        if (!o->pollfn(o->arg)) return 0;
        s->done++;
        return 1;
    }
    if (o->kind == 3) {   /* a host function: runs on its own thread, completes when it returns */
        if (!o->started) { o->started = 1; pthread_create(&o->th, NULL, host_thread, o); }
        if (!o->fin) return 0;
        pthread_join(o->th, NULL);
        s->done++;
        return 1;
    }
    if (o->kind == 0) memmove(fake_translate(o->dst), fake_translate(o->src), o->n);
    else if (o->kind == 1) memset(fake_translate(o->dst), o->val, o->n);
    else if (o->kind == 2) { o->fn(o->arg); }
    s->done++;
    return 1;
}
static void drain(fstream_t *s, long upto) { while (s->done < upto && s->done < s->nops) if (!exec_one(s)) { if (s == &legacy || 1) { pthread_mutex_unlock(&mu); struct timespec t = {0, 1000000}; nanosleep(&t, NULL); pthread_mutex_lock(&mu); } } }
static void drain_try(fstream_t *s, long upto) { while (s->done < upto && s->done < s->nops) if (!exec_one(s)) return; }
static void push(fstream_t *s, op_t o) {
    o.dep = legacy.nops;
    if (s->nops == s->cap) { s->cap = s->cap ? 2 * s->cap : 64; s->ops = realloc(s->ops, s->cap * sizeof(op_t)); }
    s->ops[s->nops++] = o;
}
/* for the fake NCCL: run fn(arg) in stream order */
void fake_enqueue_fn(cudaStream_t st, void (*fn)(void *), void *arg) {
    pthread_mutex_lock(&mu);
    push(S(st), (op_t){ .kind = 2, .fn = fn, .arg = arg });
    pthread_mutex_unlock(&mu);
}

void fake_set_hang(int h) { fake_hang = h; }
void fake_enqueue_poll(cudaStream_t st, int (*fn)(void *), void *arg) {
    pthread_mutex_lock(&mu);
    push(S(st), (op_t){ .kind = 4, .pollfn = fn, .arg = arg });
    pthread_mutex_unlock(&mu);
}

typedef struct fevent { fstream_t *s; long pos; } fevent_t;

cudaError_t cudaGetDeviceCount(int *n) {
    const char *e = getenv("FAKE_CUDA_NODEV");
    if (e && *e == '1') { *n = 0; return ret(cudaErrorInsufficientDriver); }
    const char *nd = getenv("FAKE_CUDA_NDEV");
    *n = nd ? atoi(nd) : 1; return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) { *d = cur_dev; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { int n; cudaGetDeviceCount(&n); if (d < 0 || d >= n) return ret(cudaErrorInvalidDevice); cur_dev = d; return cudaSuccess; }
cudaError_t cudaGetLastError(void) { cudaError_t e = last_err; last_err = cudaSuccess; return e; }
const char *cudaGetErrorString(cudaError_t e) { static char b[64]; snprintf(b, sizeof b, "fake cuda error %d", (int)e); return e == 35 ? "CUDA driver version is insufficient for CUDA runtime version" : b; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) {
    (void)d; memset(p, 0, sizeof *p); strcpy(p->name, "Fake GPU"); p->major = 9; p->minor = 0;
    p->totalGlobalMem = 1ull << 34; memset(&p->uuid, 0x42, sizeof p->uuid);
    /* FAKE_CUDA_GPU_PER_RANK=1: every process has a GPU of its own */
    const char *g = getenv("FAKE_CUDA_GPU_PER_RANK"), *r = getenv("PLX_RANK");
    if (g && *g == '1') { int pid = r ? atoi(r) : (int)getpid(); memcpy(&p->uuid, &pid, sizeof pid); }
    else p->uuid.bytes[0] = (char)d;   /* FAKE_CUDA_NDEV: one uuid per device index */
    return cudaSuccess;
}
static cudaError_t do_alloc(void **p, size_t n, int type) {
    alloc_t *a = calloc(1, sizeof *a);
    a->size = n; a->type = type; a->dev = cur_dev;
    size_t len = n ? n : 1;
    if (type == cudaMemoryTypeDevice) {
        a->base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        a->back = malloc(len); memset(a->back, 0x5A, len);
    } else {
        a->base = malloc(len);
    }
    pthread_mutex_lock(&mu); a->next = allocs; allocs = a; pthread_mutex_unlock(&mu);
    *p = a->base; return cudaSuccess;
}
static void sync_all(void);
static cudaError_t do_free2(void *p, int sync);
static cudaError_t do_free(void *p) { return do_free2(p, 1); }
static cudaError_t do_free2(void *p, int sync) {
    if (!p) return cudaSuccess;
    pthread_mutex_lock(&mu);
    if (sync && !fake_hang) sync_all();   /* like cudaFree: waits for the device */
    for (alloc_t **pp = &allocs; *pp; pp = &(*pp)->next)
        if ((*pp)->base == p) {
            alloc_t *a = *pp; *pp = a->next; pthread_mutex_unlock(&mu);
            if (a->type == cudaMemoryTypeDevice) { munmap(a->base, a->size ? a->size : 1); free(a->back); }
            else free(a->base);
            free(a); return cudaSuccess;
        }
    pthread_mutex_unlock(&mu);
    return ret(cudaErrorInvalidValue);
}
cudaError_t cudaMalloc(void **p, size_t n) { return do_alloc(p, n, cudaMemoryTypeDevice); }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { (void)s; return do_alloc(p, n, cudaMemoryTypeDevice); }
cudaError_t cudaFree(void *p) { return do_free(p); }
static void free_fn(void *p) { do_free2(p, 0); }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { fake_enqueue_fn(s, free_fn, p); return cudaSuccess; }
cudaError_t cudaMallocHost(void **p, size_t n) { return do_alloc(p, n, cudaMemoryTypeHost); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned f) { (void)f; return do_alloc(p, n, cudaMemoryTypeHost); }
cudaError_t cudaFreeHost(void *p) { return do_free(p); }
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *at, const void *p) {
    memset(at, 0, sizeof *at);
    pthread_mutex_lock(&mu); alloc_t *a = find(p); pthread_mutex_unlock(&mu);
    at->type = a ? a->type : cudaMemoryTypeUnregistered; at->device = a && a->type == cudaMemoryTypeDevice ? a->dev : -2;
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) {
    (void)k; pthread_mutex_lock(&mu); drain(&legacy, legacy.nops);
    memmove(fake_translate(d), fake_translate(s), n); pthread_mutex_unlock(&mu); return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) {
    (void)k; pthread_mutex_lock(&mu); push(S(st), (op_t){ .kind = 0, .dst = d, .src = s, .n = n }); pthread_mutex_unlock(&mu); return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st) {
    pthread_mutex_lock(&mu); push(S(st), (op_t){ .kind = 1, .dst = d, .val = v, .n = n }); pthread_mutex_unlock(&mu); return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) { fstream_t *x = calloc(1, sizeof(fstream_t)); x->blocking = !(f & cudaStreamNonBlocking); pthread_mutex_lock(&mu); x->next_s = all_streams; all_streams = x; pthread_mutex_unlock(&mu); *s = (cudaStream_t)x; return cudaSuccess; }
cudaError_t cudaStreamDestroy(cudaStream_t s) { pthread_mutex_lock(&mu); fstream_t *f = S(s); if (!fake_hang) drain(f, f->nops);
    for (fstream_t **pp = &all_streams; *pp; pp = &(*pp)->next_s) if (*pp == f) { *pp = f->next_s; break; }
    pthread_mutex_unlock(&mu); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { pthread_mutex_lock(&mu); fstream_t *f = S(s); drain(f, f->nops); pthread_mutex_unlock(&mu); return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { (void)f; *e = (cudaEvent_t)calloc(1, sizeof(fevent_t)); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    pthread_mutex_lock(&mu); fevent_t *v = (fevent_t *)e; v->s = S(s); v->pos = v->s->nops; pthread_mutex_unlock(&mu); return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
    pthread_mutex_lock(&mu);
    fevent_t *v = (fevent_t *)e;
    cudaError_t r = cudaSuccess;
    if (v->s && v->s->done < v->pos) {
        if (fake_hang) r = cudaErrorNotReady;
        else { drain_try(v->s, v->pos); r = v->s->done < v->pos ? cudaErrorNotReady : cudaSuccess; }
    }
    pthread_mutex_unlock(&mu);
    return r;   /* NotReady is not recorded as the last error */
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { pthread_mutex_lock(&mu); fevent_t *v = (fevent_t *)e; if (v->s) drain(v->s, v->pos); pthread_mutex_unlock(&mu); return cudaSuccess; }
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *arg) { pthread_mutex_lock(&mu); push(S(s), (op_t){ .kind = 3, .fn = fn, .arg = arg }); pthread_mutex_unlock(&mu); return cudaSuccess; }
static void sync_all(void) { drain(&legacy, legacy.nops); for (fstream_t *x = all_streams; x; x = x->next_s) drain(x, x->nops); }
cudaError_t cudaDeviceSynchronize(void) { pthread_mutex_lock(&mu); sync_all(); pthread_mutex_unlock(&mu); return cudaSuccess; }
