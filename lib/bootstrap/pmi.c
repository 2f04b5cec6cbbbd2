/*
 * lib/bootstrap/pmi.c — the pmi out-of-band backend (lib/bootstrap/oob.h): a Plexus
 * program started by MPICH's hydra (mpirun.mpich, mpiexec.hydra) or by
 * Slurm's srun --mpi=pmi2 joins the job through the launcher's PMI server,
 * with no Plexus environment at all.
 *
 * Both launchers hand each process a connected socket in PMI_FD together
 * with PMI_RANK and PMI_SIZE (hydra's -pmi-port mode instead gives
 * PMI_PORT=host:port and PMI_ID: we connect, send cmd=initack pmiid=ID and
 * are told size and rank by "cmd=set" lines), and both accept the "simple"
 * PMI wire protocol at version 1.1 on it (one text line per message, space-separated
 * key=value words, "cmd=..." first); Slurm's pmi2 plugin switches to its
 * PMI-2 dialect only when a client asks for version 2.0, so version 1.1 is
 * the one dialect both servers speak.  The messages used:
 *   cmd=init pmi_version=1 pmi_subversion=1   -> cmd=response_to_init ... rc=0
 *   cmd=get_maxes                             -> cmd=maxes kvsname_max= keylen_max= vallen_max=
 *   cmd=get_my_kvsname                        -> cmd=my_kvsname kvsname=K
 *   cmd=put kvsname=K key=k value=v           -> cmd=put_result rc=0
 *   cmd=barrier_in                            -> cmd=barrier_out
 *   cmd=get kvsname=K key=k                   -> cmd=get_result rc=0 value=v
 *   cmd=finalize                              -> cmd=finalize_ack
 *
 * allgather = each rank puts its bytes as hex in chunks that fit a line,
 * a barrier (which is also the KVS fence), then a get of every rank's
 * chunks.  It runs a handful of times during plx_init only.
 *
 * Every read and write waits in poll() against one deadline (PLX_TIMEOUT
 * from the start of the call); a reply that is too long, lacks a field,
 * answers another command or carries rc != 0 is an error with a message
 * quoting it, never a crash.  The PMI server cannot say which ranks are
 * missing from a barrier, so a timeout says how many were expected.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plx_internal.h"
#include "bootstrap/oob.h"
#include "bootstrap/bootstrap.h"
#include "bootstrap/boot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PMI_LINE_MAX 1024      /* the simple protocol's line limit, newline included */
#define PMI_REPLY_MAX 4096     /* longest reply we accept (a value of 1024 plus words) */

typedef struct pmi {
    int fd;
    int own_fd;                /* we connected it (PMI_PORT): close it at the end */
    int rank, size;
    char kvs[256];
    size_t chunk_hex;          /* hex digits of a value per put (even) */
    unsigned next;             /* allgathers so far: each uses its own keys */
    double timeout_s;
    char in[PMI_REPLY_MAX];    /* bytes received, not yet a whole line */
    size_t have;
} pmi_t;

/* ---- line I/O against a deadline ---- */

static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - plx_boot_now_ms();
        if (left <= 0) return -1;
        struct pollfd pf = { fd, ev, 0 };
        int r = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -2;
    }
}

/* Send one line (the caller's text has its newline). */
static plx_status_t send_line(pmi_t *p, const char *line, int64_t deadline)
{
    size_t len = strlen(line), off = 0;
    if (len > PMI_LINE_MAX) {
        plx_error("bootstrap (pmi): internal: a %zu-byte request exceeds the PMI line limit", len);
        return PLX_ERR_INTERNAL;
    }
    while (off < len) {
        ssize_t w = send(p->fd, line + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK) w = write(p->fd, line + off, len - off);
        if (w > 0) { off += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(p->fd, POLLOUT, deadline);
            if (r == -1) {
                plx_error("bootstrap (pmi): rank %d: the PMI server (PMI_FD=%d) took no request "
                          "within %g s", p->rank, p->fd, p->timeout_s);
                return PLX_ERR_TIMEOUT;
            }
            if (r == 0) continue;
        }
        plx_error("bootstrap (pmi): rank %d: cannot write to the PMI server (PMI_FD=%d): %s",
                  p->rank, p->fd, w < 0 ? strerror(errno) : "nothing written");
        return PLX_ERR_BOOTSTRAP;
    }
    return PLX_SUCCESS;
}

/* Receive one line into out (without its newline, NUL-terminated).
 * what names the awaited reply for messages. */
static plx_status_t recv_line(pmi_t *p, char *out, size_t cap, const char *what, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(p->in, '\n', p->have);
        if (nl) {
            size_t n = (size_t)(nl - p->in);
            if (n >= cap) {
                plx_error("bootstrap (pmi): rank %d: a %zu-byte reply from the PMI server while "
                          "waiting for %s (at most %zu accepted)", p->rank, n, what, cap - 1);
                return PLX_ERR_BOOTSTRAP;
            }
            memcpy(out, p->in, n);
            out[n] = '\0';
            memmove(p->in, nl + 1, p->have - n - 1);
            p->have -= n + 1;
            return PLX_SUCCESS;
        }
        if (p->have == sizeof p->in) {
            plx_error("bootstrap (pmi): rank %d: the PMI server sent more than %zu bytes without "
                      "a newline while we waited for %s", p->rank, sizeof p->in, what);
            return PLX_ERR_BOOTSTRAP;
        }
        int w = wait_fd(p->fd, POLLIN, deadline);
        if (w == -1) {
            plx_error("bootstrap (pmi): rank %d: no %s from the PMI server within %g s "
                      "(did all %d ranks call plx_init?  PLX_TIMEOUT sets the bound)",
                      p->rank, what, p->timeout_s, p->size);
            return PLX_ERR_TIMEOUT;
        }
        /* readable: read() returns what is there without blocking */
        ssize_t r = w == 0 ? read(p->fd, p->in + p->have, sizeof p->in - p->have) : -1;
        if (r > 0) { p->have += (size_t)r; continue; }
        if (r == 0) {
            plx_error("bootstrap (pmi): rank %d: the PMI server closed the connection while we "
                      "waited for %s (the launcher stopped the job?)", p->rank, what);
            return PLX_ERR_BOOTSTRAP;
        }
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        plx_error("bootstrap (pmi): rank %d: cannot read from the PMI server: %s", p->rank,
                  strerror(errno));
        return PLX_ERR_BOOTSTRAP;
    }
}

/* The value of word key= in a reply line (copied into out), or NULL. */
static const char *word(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    const char *s = line;
    while (*s) {
        while (*s == ' ') s++;
        const char *e = s + strcspn(s, " ");
        if ((size_t)(e - s) > kl && strncmp(s, key, kl) == 0 && s[kl] == '=') {
            size_t vl = (size_t)(e - s) - kl - 1;
            if (vl >= cap) return NULL;
            memcpy(out, s + kl + 1, vl);
            out[vl] = '\0';
            return out;
        }
        s = e;
    }
    return NULL;
}

/* Printable, short copy of a reply for messages. */
static void quote(const char *line, char *out, size_t cap)
{
    size_t i = 0;
    for (; line[i] && i + 1 < cap; i++)
        out[i] = (unsigned char)line[i] >= 32 && (unsigned char)line[i] < 127 ? line[i] : '?';
    out[i] = '\0';
    if (line[i] && cap > 4) strcpy(out + cap - 4, "...");
}

/* Send req, read one reply, check that it is cmd=want and that rc (when
 * present) is 0.  The reply is left in reply. */
static plx_status_t transact(pmi_t *p, const char *req, const char *want, char *reply, size_t cap,
                             int64_t deadline)
{
    PLX_CHECK(send_line(p, req, deadline));
    char what[64];
    snprintf(what, sizeof what, "cmd=%s", want);
    PLX_CHECK(recv_line(p, reply, cap, what, deadline));
    char cmd[64], rc[32], q[160];
    if (!word(reply, "cmd", cmd, sizeof cmd) || strcmp(cmd, want) != 0) {
        quote(reply, q, sizeof q);
        plx_error("bootstrap (pmi): rank %d: expected cmd=%s from the PMI server, got '%s'",
                  p->rank, want, q);
        return PLX_ERR_BOOTSTRAP;
    }
    if (word(reply, "rc", rc, sizeof rc) && strcmp(rc, "0") != 0) {
        quote(reply, q, sizeof q);
        char req_q[96];
        quote(req, req_q, sizeof req_q);
        req_q[strcspn(req_q, "\n")] = '\0';
        plx_error("bootstrap (pmi): rank %d: the PMI server refused '%s': '%s'", p->rank, req_q, q);
        return PLX_ERR_BOOTSTRAP;
    }
    return PLX_SUCCESS;
}

static int parse_nonneg(const char *s, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > max) return -1;
    *out = v;
    return 0;
}

/* ---- the oob backend ---- */

static int64_t deadline_of(const pmi_t *p)
{
    return plx_boot_now_ms() + (int64_t)(p->timeout_s * 1000.0);
}

static plx_status_t pmi_barrier(void *st)
{
    pmi_t *p = st;
    char reply[PMI_REPLY_MAX];
    return transact(p, "cmd=barrier_in\n", "barrier_out", reply, sizeof reply, deadline_of(p));
}

static plx_status_t pmi_allgather(void *st, const void *mine, void *all, size_t len)
{
    pmi_t *p = st;
    unsigned id = p->next++;
    int64_t deadline = deadline_of(p);
    size_t hexlen = 2 * len, nchunks = (hexlen + p->chunk_hex - 1) / p->chunk_hex;
    char *hex = malloc(hexlen + 1), *line = malloc(PMI_REPLY_MAX);
    uint8_t *got = malloc(p->chunk_hex / 2 + 1);
    plx_status_t st_ = PLX_SUCCESS;
    if (!hex || !line || !got) { st_ = PLX_ERR_NO_MEMORY; goto out; }
    plx_hex_encode(mine, len, hex);
    for (size_t c = 0; c < nchunks && st_ == PLX_SUCCESS; c++) {
        size_t off = c * p->chunk_hex, n = hexlen - off < p->chunk_hex ? hexlen - off : p->chunk_hex;
        snprintf(line, PMI_LINE_MAX + 1, "cmd=put kvsname=%s key=plx%u.%d.%zu value=%.*s\n",
                 p->kvs, id, p->rank, c, (int)n, hex + off);
        char reply[256];
        st_ = transact(p, line, "put_result", reply, sizeof reply, deadline);
    }
    if (st_ == PLX_SUCCESS) {
        char reply[256];
        st_ = transact(p, "cmd=barrier_in\n", "barrier_out", reply, sizeof reply, deadline);
    }
    for (int r = 0; r < p->size && st_ == PLX_SUCCESS; r++) {
        for (size_t c = 0; c < nchunks && st_ == PLX_SUCCESS; c++) {
            size_t off = c * p->chunk_hex, n = hexlen - off < p->chunk_hex ? hexlen - off : p->chunk_hex;
            char req[PMI_LINE_MAX + 1];
            snprintf(req, sizeof req, "cmd=get kvsname=%s key=plx%u.%d.%zu\n", p->kvs, id, r, c);
            st_ = transact(p, req, "get_result", line, PMI_REPLY_MAX, deadline);
            if (st_ != PLX_SUCCESS) break;
            char *val = malloc(p->chunk_hex + 2);
            if (!val) { st_ = PLX_ERR_NO_MEMORY; break; }
            if (!word(line, "value", val, p->chunk_hex + 2) || strlen(val) != n ||
                plx_hex_decode(val, got, n / 2) < 0) {
                char q[160];
                quote(line, q, sizeof q);
                plx_error("bootstrap (pmi): rank %d: allgather #%u: rank %d's piece %zu is not "
                          "the %zu hex digits expected: '%s'", p->rank, id, r, c, n, q);
                st_ = PLX_ERR_BOOTSTRAP;
            } else {
                memcpy((char *)all + (size_t)r * len + off / 2, got, n / 2);
            }
            free(val);
        }
    }
out:
    free(hex);
    free(line);
    free(got);
    return st_;
}

static void pmi_close(void *st)
{
    pmi_t *p = st;
    /* tell the launcher this exit is orderly; bounded, the job is over */
    char reply[256];
    double t = p->timeout_s < 5 ? p->timeout_s : 5;
    (void)transact(p, "cmd=finalize\n", "finalize_ack", reply, sizeof reply,
                   plx_boot_now_ms() + (int64_t)(t * 1000.0));
    if (p->own_fd) close(p->fd);
    free(p);
}

static const plx_oob_ops_t pmi_ops = { "pmi", pmi_allgather, pmi_barrier, pmi_close };

/* hydra's -pmi-port mode: connect to PMI_PORT, introduce ourselves with
 * PMI_ID and read the "cmd=set size=N", "cmd=set rank=R" (and debug) lines
 * that follow cmd=initack. */
static plx_status_t connect_port(pmi_t *p, const char *s_port, const char *s_id, int64_t deadline)
{
    char host[256], req[128], line[PMI_REPLY_MAX], v[64];
    int port;
    const char *why;
    long id;
    if (plx_boot_split_hostport(s_port, host, sizeof host, &port, &why) < 0 || !s_id ||
        parse_nonneg(s_id, INT_MAX, &id) < 0) {
        plx_error("bootstrap (pmi): PMI_PORT='%.80s' / PMI_ID='%.20s' are not host:port and a "
                  "number (%s)", s_port, s_id ? s_id : "(unset)", s_id ? why : "no PMI_ID");
        return PLX_ERR_BOOTSTRAP;
    }
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    int gr = getaddrinfo(host, ps, &hints, &res);
    if (gr) {
        plx_error("bootstrap (pmi): PMI_PORT=%s: cannot resolve '%s': %s", s_port, host,
                  gai_strerror(gr));
        return PLX_ERR_BOOTSTRAP;
    }
    int err = 0;
    for (struct addrinfo *a = res; a && p->fd < 0; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { err = errno; continue; }
        if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
            err = errno;
            close(fd);
            continue;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (wait_fd(fd, POLLOUT, deadline) != 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            err = soerr ? soerr : ETIMEDOUT;
            close(fd);
            continue;
        }
        p->fd = fd;
    }
    freeaddrinfo(res);
    if (p->fd < 0) {
        plx_error("bootstrap (pmi): cannot connect to the PMI server at PMI_PORT=%s: %s", s_port,
                  strerror(err));
        return PLX_ERR_BOOTSTRAP;
    }
    p->own_fd = 1;
    snprintf(req, sizeof req, "cmd=initack pmiid=%ld\n", id);
    PLX_CHECK(transact(p, req, "initack", line, sizeof line, deadline));
    long size = -1, rank = -1;
    for (int k = 0; k < 3; k++) {   /* size, rank, debug, in the server's order */
        PLX_CHECK(recv_line(p, line, sizeof line, "cmd=set", deadline));
        if (word(line, "size", v, sizeof v) && parse_nonneg(v, PLX_BOOT_MAX_RANKS, &size) == 0) continue;
        if (word(line, "rank", v, sizeof v) && parse_nonneg(v, PLX_BOOT_MAX_RANKS, &rank) == 0) continue;
        if (word(line, "debug", v, sizeof v)) continue;
        char q[160];
        quote(line, q, sizeof q);
        plx_error("bootstrap (pmi): unexpected line after cmd=initack from PMI_PORT=%s: '%s'",
                  s_port, q);
        return PLX_ERR_BOOTSTRAP;
    }
    if (size < 1 || rank < 0 || rank >= size) {
        plx_error("bootstrap (pmi): the PMI server at PMI_PORT=%s gave rank %ld of size %ld",
                  s_port, rank, size);
        return PLX_ERR_BOOTSTRAP;
    }
    p->rank = (int)rank;
    p->size = (int)size;
    return PLX_SUCCESS;
}

plx_status_t plx_oob_pmi_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                              void **state)
{
    const char *s_fd = getenv("PMI_FD"), *s_rank = getenv("PMI_RANK"), *s_size = getenv("PMI_SIZE");
    const char *s_port = getenv("PMI_PORT");
    if (!s_fd && !s_port) return PLX_ERR_NOT_SUPPORTED;   /* not under a PMI launcher */
    long fd = -1, rank = 0, size = 1;
    if (s_fd && (parse_nonneg(s_fd, INT_MAX, &fd) < 0 || fcntl((int)fd, F_GETFD) < 0)) {
        /* inherited from a parent that was a PMI process: not ours to use */
        plx_debug("bootstrap (pmi): PMI_FD='%.20s' is not an open descriptor here; not joining "
                  "through PMI", s_fd);
        return PLX_ERR_NOT_SUPPORTED;
    }
    if (s_fd && (!s_rank || !s_size || parse_nonneg(s_size, PLX_BOOT_MAX_RANKS, &size) < 0 ||
                 size < 1 || parse_nonneg(s_rank, size - 1, &rank) < 0)) {
        plx_error("bootstrap (pmi): PMI_FD is set but PMI_RANK='%.20s' / PMI_SIZE='%.20s' are "
                  "not a rank and a size (at most %d ranks)", s_rank ? s_rank : "(unset)",
                  s_size ? s_size : "(unset)", PLX_BOOT_MAX_RANKS);
        return PLX_ERR_BOOTSTRAP;
    }
    pmi_t *p = calloc(1, sizeof *p);
    if (!p) return PLX_ERR_NO_MEMORY;
    p->fd = (int)fd;
    p->rank = (int)rank;
    p->size = (int)size;
    p->timeout_s = timeout_s;

    char reply[PMI_REPLY_MAX], v[256];
    int64_t deadline = deadline_of(p);
    plx_status_t st = s_fd ? PLX_SUCCESS : connect_port(p, s_port, getenv("PMI_ID"), deadline);
    if (st != PLX_SUCCESS) {
        if (p->own_fd) close(p->fd);
        free(p);
        return st;
    }
    plx_log_set_rank(p->rank);
    st = transact(p, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", reply,
                  sizeof reply, deadline);
    if (st == PLX_SUCCESS)
        st = transact(p, "cmd=get_maxes\n", "maxes", reply, sizeof reply, deadline);
    long keymax = 0, valmax = 0;
    if (st == PLX_SUCCESS &&
        (!word(reply, "keylen_max", v, sizeof v) || parse_nonneg(v, 1 << 20, &keymax) < 0 ||
         !word(reply, "vallen_max", v, sizeof v) || parse_nonneg(v, 1 << 20, &valmax) < 0 ||
         keymax < 32 || valmax < 64)) {
        char q[160];
        quote(reply, q, sizeof q);
        plx_error("bootstrap (pmi): the PMI server's limits are unusable (need keys of 32 and "
                  "values of 64 characters): '%s'", q);
        st = PLX_ERR_BOOTSTRAP;
    }
    if (st == PLX_SUCCESS)
        st = transact(p, "cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof reply, deadline);
    if (st == PLX_SUCCESS && (!word(reply, "kvsname", p->kvs, sizeof p->kvs) || !p->kvs[0])) {
        char q[160];
        quote(reply, q, sizeof q);
        plx_error("bootstrap (pmi): no kvsname in the PMI server's reply '%s'", q);
        st = PLX_ERR_BOOTSTRAP;
    }
    if (st != PLX_SUCCESS) {
        if (p->own_fd) close(p->fd);
        free(p);
        return st;
    }
    /* a put line is "cmd=put kvsname=K key=plxA.B.C value=V\n": V takes
     * what the line limit leaves (and the server's value limit allows) */
    size_t room = PMI_LINE_MAX - 64 - strlen(p->kvs);
    size_t vmax = (size_t)valmax - 1;
    p->chunk_hex = (room < vmax ? room : vmax) & ~(size_t)1;
    info->rank = p->rank;
    info->size = p->size;
    /* a short printable id from the KVS name (it names shm segments) */
    uint32_t h = 2166136261u;
    for (const char *c = p->kvs; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
    snprintf(info->job_id, sizeof info->job_id, "m%08x", h);
    plx_debug("bootstrap (pmi): rank %d of %d joined KVS %s (values of %zu hex digits per put)",
              p->rank, p->size, p->kvs, p->chunk_hex);
    *ops = &pmi_ops;
    *state = p;
    return PLX_SUCCESS;
}
