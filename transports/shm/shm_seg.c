/*
 * transports/shm/shm_seg.c — the node's shared segment: layout, creation by
 * the node leader, attachment by the other local ranks, and wiring of the
 * per-pair rings and staging areas into the process-private peer table.
 *
 * Layout (offsets in shm_seg_hdr_t, pair index = receiver * nlocal + sender
 * so a receiver's incoming rings and staging row are contiguous):
 *   [header page]
 *   [ring of pair 0][ring of pair 1]...      each: ctl line, cells, data ring
 *   [collective windows of local rank 0][...of rank 1]...  SHM_COLL_CHANNELS each:
 *                                            16 data windows, then 16 one-page control windows
 *   [stage of pair 0][stage of pair 1]...    each: ctl page, 2 chunks
 * The header page, rings and windows are reserved with posix_fallocate at creation (a
 * too-small /dev/shm fails init instead of SIGBUS later); the staging rows
 * stay sparse unless their receiver knows it will use them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/config.h"
#include "shm_internal.h"
#include "shm_ring.h"

/* A PLX_SHM_* byte count, parsed and checked against its row of the PLX_*
 * table by lib/core/config.c (plx_init refuses bad values before the transports
 * start), then held within [lo, hi] for this layout (the eager limit
 * depends on the ring).  Returns 1 if set and used, 0 if unset, -1 if not
 * usable (warned; *out = def). */
int shm_env_bytes(const char *name, uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out)
{
    *out = def;
    size_t v;
    int r = plx_env_size(name, &v);
    if (r <= 0) return r;
    if (v < lo || v > hi) {
        plx_warn("shm: %s=%zu does not fit this layout's [%" PRIu64 ", %" PRIu64 "]; using %" PRIu64,
                 name, v, lo, hi, def);
        return -1;
    }
    *out = v;
    return 1;
}

static uint64_t pow2_up(uint64_t v)
{
    uint64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* One local rank's collective windows: the data channels, then the control ones. */
static uint64_t coll_rank_bytes(const shm_layout_t *lay)
{
    return SHM_COLL_DATA_CHANNELS * lay->coll_win + (SHM_COLL_CHANNELS - SHM_COLL_DATA_CHANNELS) * SHM_COLL_CTL_WIN;
}

void shm_layout_compute(shm_layout_t *lay, int nlocal, int lean)
{
    uint64_t n = (uint64_t)nlocal, pairs = n * n;
    memset(lay, 0, sizeof *lay);
    lay->nlocal = (uint32_t)nlocal;

    /* Data ring per pair: big enough for 4 eager messages in flight; there
     * are nlocal^2 rings, so it shrinks as the node fills up. */
    uint64_t def_ring = nlocal <= 8 ? (128u << 10) : nlocal <= 32 ? (64u << 10)
                      : nlocal <= 128 ? (32u << 10) : (16u << 10);
    uint64_t rb;
    shm_env_bytes("PLX_SHM_RING_BYTES", def_ring, 4096, 64u << 20, &rb);
    lay->ring_bytes = pow2_up(rb);

    uint64_t nc = pow2_up(lay->ring_bytes / 256);
    if (nc < 64) nc = 64;
    if (nc > 4096) nc = 4096;
    lay->ncells = (uint32_t)nc;

    /* Eager up to a quarter of the ring, at most 32 KiB: measured, a copy
     * in and out of the ring beats process_vm_readv (syscall + page pinning
     * + RTS/FIN, ~3 us fixed) up to about there. */
    uint64_t def_eager = lay->ring_bytes / 4;
    if (def_eager > (32u << 10)) def_eager = 32u << 10;
    uint64_t em;
    shm_env_bytes("PLX_SHM_EAGER_MAX", def_eager, 0, lay->ring_bytes / 2, &em);
    lay->eager_max = (uint32_t)em;

    /* Staging: 2 x 512 KiB per pair, shrunk so all pairs stay within 256 MiB
     * (a receiver reserves its row only when it will stage), never below
     * 64 KiB. */
    uint64_t def_stage = 512u << 10;
    while (def_stage > (64u << 10) && pairs * 2 * def_stage > (256ull << 20)) def_stage >>= 1;
    uint64_t sb;
    shm_env_bytes("PLX_SHM_STAGE_BYTES", def_stage, 4096, 256u << 20, &sb);
    lay->stage_bytes = SHM_ALIGN_UP(sb, SHM_PAGE);

    lay->ring_off = SHM_PAGE;
    lay->ring_stride = SHM_ALIGN_UP(sizeof(shm_ring_ctl_t) + (uint64_t)lay->ncells * sizeof(shm_cell_t)
                                    + lay->ring_bytes, SHM_PAGE);
    /* Collective windows: 512 bytes of flags + two data buffers of
     * PLX_SHM_COLL_BYTES (node-local collectives carry up to that many bytes
     * per rank); shrunk as the node fills up like the rings.  3-5 ranks
     * outnumbering the cores: 256 KiB, so shm_slots carries a bcast of up to
     * 256 KiB and gather blocks of up to 256 KiB (the selector's rows at 3-5
     * ranks): there the root (bcast) or the non-roots (gather) copy into
     * their slot and leave instead of waiting for ranks that are not
     * running; 4 ranks on 2 cores, bcast 256 KiB 0.47x and gather 256 KiB
     * 0.51x direct's time by first quartile (perf/RESULTS.md, issue 11,
     * session s10f).  It costs
     * /dev/shm: 16 windows of 2 x 256 KiB per local rank, 33 MiB at 4
     * ranks against 5 (reserved by the fallocate below); where that does
     * not fit, the leader retries lean (shm.c).  Not at 2 ranks or 6+ (no
     * row measured there uses it).  Only the shm_slots channels get data
     * buffers: the single-copy collectives' windows (16..31) hold flags and
     * addresses, one page each. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int big = !lean && nlocal >= 3 && nlocal <= 5 && ncpu > 0 && nlocal > ncpu;
    uint64_t def_coll = big ? (256u << 10) : nlocal <= 8 ? (32u << 10) : nlocal <= 32 ? (8u << 10) : (2u << 10);
    uint64_t cb;
    lay->coll_big = shm_env_bytes("PLX_SHM_COLL_BYTES", def_coll, 0, 16u << 20, &cb) <= 0 && big;
    lay->coll_off = lay->ring_off + pairs * lay->ring_stride;
    lay->coll_win = SHM_ALIGN_UP(512 + 2 * SHM_ALIGN_UP(cb, SHM_CACHELINE), SHM_PAGE);
    lay->stage_off = lay->coll_off + n * coll_rank_bytes(lay);
    lay->stage_stride = SHM_STAGE_HDR + 2 * lay->stage_bytes;
    /* Direct staging: one area per local rank into which a single-copy
     * collective copies the part of its input its peers read, so they
     * memcpy it instead of pinning its pages with process_vm_readv
     * (lib/coll/node_direct.c, "Staged input").  Shrunk as the node fills
     * so all areas stay within 64 MiB; reserved by each rank for itself. */
    uint64_t def_ds = 2u << 20;
    while (def_ds > (64u << 10) && n * def_ds > (64ull << 20)) def_ds >>= 1;
    uint64_t ds;
    shm_env_bytes("PLX_SHM_DIRECT_STAGE", def_ds, 0, 256u << 20, &ds);
    lay->dstage_bytes = SHM_ALIGN_UP(ds, SHM_PAGE);
    lay->dstage_off = lay->stage_off + pairs * lay->stage_stride;
    lay->total = lay->dstage_off + n * lay->dstage_bytes;
}

static void fill_random_hex(char out[17])
{
    unsigned char r[8];
    ssize_t got = getrandom(r, sizeof r, 0);
    if (got != (ssize_t)sizeof r) {
        /* getrandom missing: urandom, then a weak mix (name is still O_EXCL) */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        got = fd >= 0 ? read(fd, r, sizeof r) : -1;
        if (fd >= 0) close(fd);
        if (got != (ssize_t)sizeof r) {
            uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)r;
            memcpy(r, &x, sizeof r);
        }
    }
    for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", r[i]);
}

plx_status_t shm_seg_create(const char *job_id, const shm_layout_t *lay, char name[SHM_NAME_MAX],
                            int *fdp, void **basep, int quiet_nospace)
{
    /* keep the job id printable and short: it becomes part of a file name */
    char jid[25];
    size_t j = 0;
    for (const char *s = job_id ? job_id : ""; *s && j < sizeof jid - 1; s++) {
        char ch = *s;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.';
        jid[j++] = ok ? ch : '_';
    }
    if (j == 0) jid[j++] = 'x';
    jid[j] = '\0';

    int fd = -1;
    for (int attempt = 0; attempt < 4 && fd < 0; attempt++) {
        char hex[17];
        fill_random_hex(hex);
        snprintf(name, SHM_NAME_MAX, "/plx-%s-%s", jid, hex);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        plx_error("shm: shm_open(%s) failed: %s", name, strerror(errno));
        name[0] = '\0';
        return PLX_ERR_TRANSPORT;
    }
    plx_status_t st = PLX_ERR_TRANSPORT;
    if (ftruncate(fd, (off_t)lay->total) != 0) {
        plx_error("shm: ftruncate(%s, %" PRIu64 ") failed: %s", name, lay->total, strerror(errno));
        goto fail;
    }
    int rc = posix_fallocate(fd, 0, (off_t)lay->stage_off);
    if (rc != 0 && rc != EOPNOTSUPP && rc != ENOSYS && rc != EINVAL) {
        if (!(quiet_nospace && rc == ENOSPC))
            plx_error("shm: cannot reserve %" PRIu64 " bytes in /dev/shm for the rings and collective "
                      "windows (%s); enlarge /dev/shm or lower PLX_SHM_RING_BYTES / PLX_SHM_COLL_BYTES",
                      lay->stage_off, strerror(rc));
        st = rc == ENOSPC ? PLX_ERR_NO_MEMORY : PLX_ERR_TRANSPORT;
        goto fail;
    }
    void *base = mmap(NULL, lay->total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        plx_error("shm: mmap of %" PRIu64 " bytes failed: %s", lay->total, strerror(errno));
        st = PLX_ERR_NO_MEMORY;
        goto fail;
    }
    shm_seg_hdr_t *h = base;
    h->version = SHM_SEG_VERSION;
    h->nlocal = lay->nlocal;
    h->ncells = lay->ncells;
    h->eager_max = lay->eager_max;
    h->ring_bytes = lay->ring_bytes;
    h->stage_bytes = lay->stage_bytes;
    h->ring_off = lay->ring_off;
    h->ring_stride = lay->ring_stride;
    h->stage_off = lay->stage_off;
    h->stage_stride = lay->stage_stride;
    h->coll_off = lay->coll_off;
    h->coll_win = lay->coll_win;
    h->dstage_off = lay->dstage_off;
    h->dstage_bytes = lay->dstage_bytes;
    h->total = lay->total;
    h->magic = SHM_SEG_MAGIC;   /* followers read the header only after the allgather */
    *fdp = fd;
    *basep = base;
    return PLX_SUCCESS;
fail:
    shm_unlink(name);
    close(fd);
    name[0] = '\0';
    return st;
}

plx_status_t shm_seg_attach(const char *name, int *fdp, void **basep, size_t *lenp, shm_layout_t *lay)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        plx_error("shm: cannot open segment %s: %s", name, strerror(errno));
        return PLX_ERR_TRANSPORT;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < SHM_PAGE) {
        plx_error("shm: segment %s has a bad size", name);
        close(fd);
        return PLX_ERR_TRANSPORT;
    }
    size_t len = (size_t)sb.st_size;
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        plx_error("shm: mmap of %s (%zu bytes) failed: %s", name, len, strerror(errno));
        close(fd);
        return PLX_ERR_NO_MEMORY;
    }
    const shm_seg_hdr_t *h = base;
    if (h->magic != SHM_SEG_MAGIC || h->version != SHM_SEG_VERSION || h->total != len ||
        h->ncells == 0 || (h->ncells & (h->ncells - 1)) || h->ring_bytes == 0 ||
        (h->ring_bytes & (h->ring_bytes - 1))) {
        plx_error("shm: segment %s has a bad header (version mismatch between ranks?)", name);
        munmap(base, len);
        close(fd);
        return PLX_ERR_TRANSPORT;
    }
    lay->nlocal = h->nlocal;
    lay->ncells = h->ncells;
    lay->eager_max = h->eager_max;
    lay->ring_bytes = h->ring_bytes;
    lay->stage_bytes = h->stage_bytes;
    lay->ring_off = h->ring_off;
    lay->ring_stride = h->ring_stride;
    lay->stage_off = h->stage_off;
    lay->stage_stride = h->stage_stride;
    lay->coll_off = h->coll_off;
    lay->coll_win = h->coll_win;
    lay->dstage_off = h->dstage_off;
    lay->dstage_bytes = h->dstage_bytes;
    lay->total = h->total;
    *fdp = fd;
    *basep = base;
    *lenp = len;
    return PLX_SUCCESS;
}

static unsigned char *ring_of(shm_tl_t *t, int s, int r)
{
    return (unsigned char *)t->seg + t->lay.ring_off +
           ((uint64_t)r * t->lay.nlocal + (uint64_t)s) * t->lay.ring_stride;
}

static unsigned char *stage_of(shm_tl_t *t, int s, int r)
{
    return (unsigned char *)t->seg + t->lay.stage_off +
           ((uint64_t)r * t->lay.nlocal + (uint64_t)s) * t->lay.stage_stride;
}

void shm_seg_wire(shm_tl_t *t)
{
    size_t cells_off = sizeof(shm_ring_ctl_t);
    size_t data_off = cells_off + (size_t)t->lay.ncells * sizeof(shm_cell_t);
    for (int p = 0; p < t->nlocal; p++) {
        shm_peer_t *pe = &t->peers[p];
        unsigned char *o = ring_of(t, t->me, p), *i = ring_of(t, p, t->me);
        pe->out.ctl = (shm_ring_ctl_t *)o;
        pe->out.cells = (shm_cell_t *)(o + cells_off);
        pe->out.data = o + data_off;
        pe->in.ctl = (shm_ring_ctl_t *)i;
        pe->in.cells = (shm_cell_t *)(i + cells_off);
        pe->in.data = i + data_off;
        unsigned char *so = stage_of(t, t->me, p), *si = stage_of(t, p, t->me);
        pe->stage_out_ctl = (shm_stage_ctl_t *)so;
        pe->stage_out_buf = so + SHM_STAGE_HDR;
        pe->stage_in_ctl = (shm_stage_ctl_t *)si;
        pe->stage_in_buf = si + SHM_STAGE_HDR;
    }
}

void *shm_seg_coll_window(shm_tl_t *t, int local, int channel)
{
    uint64_t in = channel < SHM_COLL_DATA_CHANNELS
                      ? (uint64_t)channel * t->lay.coll_win
                      : SHM_COLL_DATA_CHANNELS * t->lay.coll_win +
                            (uint64_t)(channel - SHM_COLL_DATA_CHANNELS) * SHM_COLL_CTL_WIN;
    return (unsigned char *)t->seg + t->lay.coll_off + (uint64_t)local * coll_rank_bytes(&t->lay) + in;
}

void *shm_seg_dstage(shm_tl_t *t, int local)
{
    return (unsigned char *)t->seg + t->lay.dstage_off + (uint64_t)local * t->lay.dstage_bytes;
}

int shm_seg_reserve_dstage(shm_tl_t *t, int fd)
{
    if (t->lay.dstage_bytes == 0) return 0;
    uint64_t off = t->lay.dstage_off + (uint64_t)t->me * t->lay.dstage_bytes;
    int rc = posix_fallocate(fd, (off_t)off, (off_t)t->lay.dstage_bytes);
    if (rc == 0 || rc == EOPNOTSUPP || rc == ENOSYS || rc == EINVAL) return 1;
    plx_warn("shm: cannot reserve %" PRIu64 " bytes of direct staging in /dev/shm (%s); the "
             "direct collectives read this rank's input with CMA", t->lay.dstage_bytes, strerror(rc));
    return 0;
}

plx_status_t shm_seg_reserve_stage_in(shm_tl_t *t, int fd)
{
    uint64_t off = t->lay.stage_off + (uint64_t)t->me * t->lay.nlocal * t->lay.stage_stride;
    uint64_t len = (uint64_t)t->lay.nlocal * t->lay.stage_stride;
    int rc = posix_fallocate(fd, (off_t)off, (off_t)len);
    if (rc == 0 || rc == EOPNOTSUPP || rc == ENOSYS || rc == EINVAL) return PLX_SUCCESS;
    plx_error("shm: cannot reserve %" PRIu64 " bytes of staging in /dev/shm (%s); enlarge "
              "/dev/shm or lower PLX_SHM_STAGE_BYTES", len, strerror(rc));
    return rc == ENOSPC ? PLX_ERR_NO_MEMORY : PLX_ERR_TRANSPORT;
}
