/*
 * lib/coll/direct_probe.h — per-phase times of the direct collectives, a
 * debug build only (-DPLX_DIRECT_PROBE; compiled out otherwise).  Each
 * call's times go to a ring; at exit every rank writes one line per call
 * to $PLX_DIRECT_PROBE_OUT.<pid> (coll, bytes, ranks, me, then us since
 * the start of the call: meet, each segment's end, work end, drain end;
 * the CPU at the start / meet / work end / end; the thread's on-CPU and
 * runqueue-wait us over the call from /proc/thread-self/schedstat; in
 * reductions the us in reads, arithmetic and writes).
 */
#ifndef PLX_DIRECT_PROBE_H
#define PLX_DIRECT_PROBE_H
#ifdef PLX_DIRECT_PROBE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
extern int sched_getcpu(void);   /* (a GNU extension; the includes above may come without it) */
#define PROBE_SEGS 8
#define PROBE_RING (1 << 15)
typedef struct {
    int coll, n, me;
    size_t bytes;
    double t0, meet, seg[PROBE_SEGS], work, drain;
    int cpu[4];
    double run0, wait0, run, wait;
    double rd, ar, wr;
    int calls, idle;
} probe_rec_t;
static probe_rec_t probe_ring[PROBE_RING];
static unsigned probe_n;
static probe_rec_t *probe_cur;
static int probe_fd = -2;
static void probe_sched(double *run, double *wait)
{
    char b[128];
    *run = *wait = 0;
    if (probe_fd == -2) probe_fd = open("/proc/thread-self/schedstat", O_RDONLY);
    if (probe_fd < 0) return;
    ssize_t k = pread(probe_fd, b, sizeof b - 1, 0);
    if (k <= 0) return;
    b[k] = 0;
    unsigned long long r = 0, w = 0;
    if (sscanf(b, "%llu %llu", &r, &w) == 2) {
        *run = r / 1e3;
        *wait = w / 1e3;
    }
}
static void probe_dump(void)
{
    const char *o = getenv("PLX_DIRECT_PROBE_OUT");
    if (!o || !probe_n) return;
    char path[512];
    snprintf(path, sizeof path, "%s.%d", o, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    unsigned n = probe_n < PROBE_RING ? probe_n : PROBE_RING;
    for (unsigned i = 0; i < n; i++) {
        probe_rec_t *r = &probe_ring[(probe_n - n + i) % PROBE_RING];
        fprintf(f, "%d %zu %d %d meet %.1f seg", r->coll, r->bytes, r->n, r->me, r->meet - r->t0);
        for (int s = 0; s < PROBE_SEGS && s < r->n; s++) fprintf(f, " %.1f", r->seg[s] ? r->seg[s] - r->t0 : -1);
        fprintf(f, " work %.1f drain %.1f cpu %d %d %d %d run %.1f wait %.1f rd %.1f ar %.1f wr %.1f calls %d idle %d\n",
                r->work - r->t0, r->drain - r->t0, r->cpu[0], r->cpu[1], r->cpu[2], r->cpu[3], r->run, r->wait,
                r->rd, r->ar, r->wr, r->calls, r->idle);
    }
    fclose(f);
}
static inline double probe_us(void) { return plx_now() * 1e6; }
static inline void probe_start(int coll, size_t bytes, int n, int me)
{
    static int reg;
    if (!reg) {
        reg = 1;
        atexit(probe_dump);
    }
    probe_cur = &probe_ring[probe_n++ % PROBE_RING];
    memset(probe_cur, 0, sizeof *probe_cur);
    probe_cur->coll = coll;
    probe_cur->bytes = bytes;
    probe_cur->n = n;
    probe_cur->me = me;
    probe_sched(&probe_cur->run0, &probe_cur->wait0);
    probe_cur->cpu[0] = sched_getcpu();
    probe_cur->t0 = probe_us();
}
#define PROBE_START(c, b, n, me) probe_start(c, b, n, me)
#define PROBE_MEET() do { if (probe_cur) { probe_cur->meet = probe_us(); probe_cur->cpu[1] = sched_getcpu(); } } while (0)
#define PROBE_SEG(i) do { if (probe_cur && (i) < PROBE_SEGS) probe_cur->seg[i] = probe_us(); } while (0)
#define PROBE_WORK() do { if (probe_cur) { probe_cur->work = probe_us(); probe_cur->cpu[2] = sched_getcpu(); } } while (0)
#define PROBE_CALL(x) do { if (probe_cur) { probe_cur->calls++; probe_cur->idle += (x); } } while (0)
#define PROBE_ADD(f, t) do { if (probe_cur) probe_cur->f += probe_us() - (t); } while (0)
#define PROBE_T() probe_us()
#define PROBE_END() do { if (probe_cur) { double r_, w_; probe_cur->drain = probe_us(); probe_cur->cpu[3] = sched_getcpu(); \
        probe_sched(&r_, &w_); probe_cur->run = r_ - probe_cur->run0; probe_cur->wait = w_ - probe_cur->wait0; probe_cur = NULL; } } while (0)
#else
#define PROBE_START(c, b, n, me) ((void)0)
#define PROBE_MEET() ((void)0)
#define PROBE_SEG(i) ((void)0)
#define PROBE_WORK() ((void)0)
#define PROBE_CALL(x) ((void)0)
#define PROBE_ADD(f, t) ((void)(t))
#define PROBE_T() 0.0
#define PROBE_END() ((void)0)
#endif
#endif
