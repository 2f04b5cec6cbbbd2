/*
 * lib/bootstrap/client.c — the bootstrap client: the PLX_* environment,
 * connecting (with retry and backoff, and rank 0's own server thread when
 * no launcher serves), the mutual HMAC handshake, and the blocking
 * allgather / barrier / bcast calls the context uses at start-up.
 *
 * Every wait is a poll() on a non-blocking socket against one deadline
 * (timeout_s from the start of the call), so nothing here can hang: a
 * missing server, a silent peer or a vanished server each become an error
 * with a message saying what was awaited.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot_internal.h"
#include "core/log.h"
#include "core/parse_num.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct plx_boot {
    int fd;                      /* -1 for a singleton */
    int rank, size;
    uint32_t seq;                /* last collective number used */
    double timeout_s;
    uint8_t key[PLX_BOOT_KEY_BYTES];
    char where[300];             /* "host:port" for messages */
    plx_status_t broken;         /* sticky error, PLX_SUCCESS while usable */
    int stream_bad;              /* framing lost (I/O error mid-way): no goodbye */
    plx_boot_server_t *srv;      /* rank 0's own server, or NULL */
    char err[512];
};

/* ---- environment ---- */

static plx_status_t env_err(char *err, size_t errlen, plx_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static plx_status_t env_err(char *err, size_t errlen, plx_status_t st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static void derive_job_id(const uint8_t key[PLX_BOOT_KEY_BYTES], char out[32])
{
    /* a hash of the key, not the key: the id appears in /dev/shm names */
    static const char label[] = "plexus-job-id";
    uint8_t buf[sizeof label - 1 + PLX_BOOT_KEY_BYTES], h[32];
    memcpy(buf, label, sizeof label - 1);
    memcpy(buf + sizeof label - 1, key, PLX_BOOT_KEY_BYTES);
    plx_sha256(buf, sizeof buf, h);
    plx_hex_encode(h, 4, out);
    memset(buf, 0, sizeof buf);
}

plx_status_t plx_boot_params_from_env(plx_boot_params_t *p, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!p) return env_err(err, errlen, PLX_ERR_INVALID_ARG, "no params");
    memset(p, 0, sizeof *p);
    p->timeout_s = PLX_BOOT_DEFAULT_TIMEOUT;

    const char *s_to = getenv("PLX_TIMEOUT");
    if (s_to) {
        double t;
        if (plx_parse_seconds(s_to, &t) != 0)   /* the parser of every PLX_* number */
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_TIMEOUT='%.40s' is not a number of seconds in (0, 1e7]", s_to);
        p->timeout_s = t;
    }

    const char *s_rank = getenv("PLX_RANK"), *s_size = getenv("PLX_SIZE");
    const char *s_boot = getenv("PLX_BOOTSTRAP"), *s_key = getenv("PLX_JOB_KEY");
    const char *s_id = getenv("PLX_JOB_ID"), *s_serve = getenv("PLX_BOOTSTRAP_SERVE");

    if (!s_rank && !s_size && !s_boot && !s_key) {
        /* started without a launcher and without the env interface: a
         * singleton job, like an MPI program run without mpirun */
        p->rank = 0;
        p->size = 1;
        p->singleton = 1;
        if (plx_boot_random(p->key, sizeof p->key) < 0)
            return env_err(err, errlen, PLX_ERR_BOOTSTRAP, "getrandom: %s", strerror(errno));
    } else {
        char missing[80] = "";
        if (!s_rank) strcat(missing, " PLX_RANK");
        if (!s_size) strcat(missing, " PLX_SIZE");
        if (!s_boot) strcat(missing, " PLX_BOOTSTRAP");
        if (!s_key) strcat(missing, " PLX_JOB_KEY");
        if (missing[0])
            return env_err(err, errlen, PLX_ERR_BOOTSTRAP,
                           "incomplete bootstrap environment: missing%s (set PLX_RANK, PLX_SIZE, "
                           "PLX_BOOTSTRAP, PLX_JOB_KEY, or run under plexusrun)", missing);
        if (parse_int(s_size, 1, PLX_BOOT_MAX_RANKS, &p->size) < 0)
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_SIZE='%.40s' is not an integer in 1..%d", s_size, PLX_BOOT_MAX_RANKS);
        if (parse_int(s_rank, 0, p->size - 1, &p->rank) < 0)
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_RANK='%.40s' is not an integer in 0..%d (PLX_SIZE=%d)",
                           s_rank, p->size - 1, p->size);
        const char *why;
        if (plx_boot_split_hostport(s_boot, p->host, sizeof p->host, &p->port, &why) < 0)
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_BOOTSTRAP='%.80s' is not host:port (%s)", s_boot, why);
        /* never echo the key, not even a bad one */
        if (plx_hex_decode(s_key, p->key, sizeof p->key) < 0)
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_JOB_KEY must be exactly 64 hex digits (32 bytes); got %zu characters",
                           strlen(s_key));
        if (s_serve && strcmp(s_serve, "0") && strcmp(s_serve, "1"))
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_BOOTSTRAP_SERVE='%.20s' must be 0 or 1", s_serve);
        p->serve = p->rank == 0 && !(s_serve && strcmp(s_serve, "0") == 0);
    }

    if (s_id) {
        size_t n = strlen(s_id);
        int ok = n >= 1 && n < sizeof p->job_id;
        for (size_t i = 0; ok && i < n; i++) {
            char c = s_id[i];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        }
        if (!ok)
            return env_err(err, errlen, PLX_ERR_INVALID_ARG,
                           "PLX_JOB_ID='%.40s' must be 1..31 characters of [A-Za-z0-9_-]", s_id);
        memcpy(p->job_id, s_id, n + 1);
    } else {
        derive_job_id(p->key, p->job_id);
    }
    return PLX_SUCCESS;
}

/* ---- errors ---- */

static plx_status_t fail(plx_boot_t *b, plx_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static plx_status_t fail(plx_boot_t *b, plx_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
    plx_error("bootstrap: %s", b->err);
    b->broken = st;
    return st;
}

const char *plx_boot_last_error(const plx_boot_t *b) { return b ? b->err : ""; }

/* ---- socket I/O against a deadline ---- */

enum { IO_OK = 0, IO_TIMEOUT = -1, IO_EOF = -2, IO_ERR = -3 };

static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - plx_boot_now_ms();
        if (left <= 0) return IO_TIMEOUT;
        struct pollfd pf = { fd, ev, 0 };
        int r = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r > 0) return IO_OK;
        if (r < 0 && errno != EINTR) return IO_ERR;
    }
}

static int io_writev(int fd, struct iovec *iov, int n, int64_t deadline)
{
    while (n > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                int r = wait_fd(fd, POLLOUT, deadline);
                if (r) return r;
                continue;
            }
            return (errno == EPIPE || errno == ECONNRESET) ? IO_EOF : IO_ERR;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) { w -= (ssize_t)iov->iov_len; iov++; n--; }
        if (n > 0) { iov->iov_base = (char *)iov->iov_base + w; iov->iov_len -= (size_t)w; }
    }
    return IO_OK;
}

static int io_read(int fd, void *buf, size_t len, int64_t deadline)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = recv(fd, (char *)buf + got, len - got, 0);
        if (r > 0) { got += (size_t)r; continue; }
        if (r == 0) return IO_EOF;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int w = wait_fd(fd, POLLIN, deadline);
            if (w) return w;
            continue;
        }
        return errno == ECONNRESET ? IO_EOF : IO_ERR;
    }
    return IO_OK;
}

static void sanitize(char *s)
{
    for (; *s; s++) if ((unsigned char)*s < 32 || (unsigned char)*s > 126) *s = '?';
}

/* ---- connect and handshake ---- */

enum { HS_OK = 0, HS_RETRY = 1, HS_FAIL = 2 };

/* Prove the key to the server and check its proof.  HS_RETRY when the
 * connection went away before a verdict (server starting / stopping /
 * shedding load): the caller reconnects. */
static int handshake(plx_boot_t *b, int fd, int64_t deadline, char *lasterr, size_t lelen)
{
    uint8_t hb[PLX_BOOT_HDR_BYTES], nonce[PLX_BOOT_NONCE_BYTES];
    plx_boot_hdr_t h;
    const char *why;
    int r = io_read(fd, hb, sizeof hb, deadline);
    if (r == IO_EOF || r == IO_ERR) {
        snprintf(lasterr, lelen, "connection closed before the server's challenge");
        return HS_RETRY;
    }
    if (r == IO_TIMEOUT) {
        snprintf(lasterr, lelen, "no challenge from the server");
        return HS_RETRY;
    }
    plx_boot_hdr_unpack(hb, &h);
    if (plx_boot_hdr_check(&h, b->size, PLX_BOOT_NONCE_BYTES, &why) < 0 ||
        h.type != PLX_BOOT_CHALLENGE) {
        fail(b, PLX_ERR_BOOTSTRAP, "%s is not a plexus bootstrap server (first frame: %s)",
             b->where, h.type != PLX_BOOT_CHALLENGE && strcmp(why, "ok") == 0 ? "not a challenge" : why);
        return HS_FAIL;
    }
    if (io_read(fd, nonce, sizeof nonce, deadline) != IO_OK) {
        snprintf(lasterr, lelen, "connection closed during the server's challenge");
        return HS_RETRY;
    }

    uint8_t cn[PLX_BOOT_NONCE_BYTES], msg[PLX_BOOT_HDR_BYTES + PLX_BOOT_AUTH_BYTES];
    if (plx_boot_random(cn, sizeof cn) < 0) {
        fail(b, PLX_ERR_BOOTSTRAP, "getrandom: %s", strerror(errno));
        return HS_FAIL;
    }
    plx_boot_hdr_make(msg, PLX_BOOT_AUTH, 0, (uint32_t)b->rank, 0, PLX_BOOT_AUTH_BYTES);
    uint8_t *pl = msg + PLX_BOOT_HDR_BYTES;
    plx_put_be32(pl, (uint32_t)b->size);
    memcpy(pl + 4, cn, sizeof cn);
    plx_boot_auth_mac(b->key, 'c', nonce, cn, (uint32_t)b->rank, (uint32_t)b->size,
                      pl + 4 + PLX_BOOT_NONCE_BYTES);
    struct iovec iov = { msg, sizeof msg };
    if (io_writev(fd, &iov, 1, deadline) != IO_OK) {
        snprintf(lasterr, lelen, "could not send the authentication");
        return HS_RETRY;
    }

    r = io_read(fd, hb, sizeof hb, deadline);
    if (r != IO_OK) {
        snprintf(lasterr, lelen, r == IO_TIMEOUT ? "no answer to the authentication"
                                                 : "connection closed before the server's verdict");
        return HS_RETRY;
    }
    plx_boot_hdr_unpack(hb, &h);
    if (plx_boot_hdr_check(&h, b->size, PLX_BOOT_REASON_MAX, &why) < 0 ||
        (h.type != PLX_BOOT_WELCOME && h.type != PLX_BOOT_REFUSE)) {
        fail(b, PLX_ERR_BOOTSTRAP, "bad answer from the bootstrap server %s during the handshake (%s)",
             b->where, strcmp(why, "ok") ? why : "unexpected frame type");
        return HS_FAIL;
    }
    char body[PLX_BOOT_REASON_MAX + 1];
    r = io_read(fd, body, h.len, deadline);
    if (r != IO_OK) {
        snprintf(lasterr, lelen, "connection closed during the server's verdict");
        return HS_RETRY;
    }
    if (h.type == PLX_BOOT_REFUSE) {
        body[h.len] = '\0';
        sanitize(body);
        fail(b, PLX_ERR_BOOTSTRAP, "the bootstrap server %s refused rank %d: %s", b->where,
             b->rank, body);
        return HS_FAIL;
    }
    uint8_t want[PLX_BOOT_MAC_BYTES];
    plx_boot_auth_mac(b->key, 's', nonce, cn, (uint32_t)b->rank, (uint32_t)b->size, want);
    if (h.rank != (uint32_t)b->rank || plx_ct_memcmp(want, body, sizeof want) != 0) {
        fail(b, PLX_ERR_BOOTSTRAP, "the server at %s could not prove it knows the job key: "
             "refusing it (a different job, or not a genuine plexus server)", b->where);
        return HS_FAIL;
    }
    return HS_OK;
}

/* Non-blocking connect to one address, bounded. */
static int try_connect(const struct addrinfo *a, int64_t deadline, int *errp)
{
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) { *errp = errno; return -1; }
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
        if (errno != EINPROGRESS) { *errp = errno; close(fd); return -1; }
        int r = wait_fd(fd, POLLOUT, deadline);
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (r == IO_TIMEOUT) { *errp = ETIMEDOUT; close(fd); return -1; }
        if (r || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            *errp = soerr ? soerr : errno;
            close(fd);
            return -1;
        }
    }
    plx_boot_sock_setup(fd);
    return fd;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static plx_status_t start_own_server(plx_boot_t *b, const plx_boot_params_t *p)
{
    int port = 0;
    plx_status_t st = plx_boot_server_create(p->host, p->port, p->size, p->key, &b->srv, &port);
    if (st != PLX_SUCCESS && errno == EADDRNOTAVAIL) {
        /* the name in PLX_BOOTSTRAP is not an address of this host (NAT,
         * alias): listen on every address; the key still guards the door */
        const char *any = strchr(p->host, ':') ? "::" : "0.0.0.0";
        plx_info("bootstrap: cannot bind %s:%d here; serving on %s:%d instead", p->host, p->port,
                 any, p->port);
        st = plx_boot_server_create(any, p->port, p->size, p->key, &b->srv, &port);
    }
    if (st != PLX_SUCCESS)
        return fail(b, st, "rank 0 cannot serve the bootstrap on %s (see the line above; "
                    "another job on this port? set PLX_BOOTSTRAP to a free port)", b->where);
    plx_boot_server_set_multi_gen(b->srv, 0);
    st = plx_boot_server_start_thread(b->srv);
    if (st != PLX_SUCCESS) {
        plx_boot_server_destroy(b->srv);
        b->srv = NULL;
        return fail(b, st, "cannot start the bootstrap server thread");
    }
    return PLX_SUCCESS;
}

plx_status_t plx_boot_connect(const plx_boot_params_t *p, plx_boot_t **bootp)
{
    if (!bootp) return PLX_ERR_INVALID_ARG;
    *bootp = NULL;
    if (!p || p->size < 1 || p->size > PLX_BOOT_MAX_RANKS || p->rank < 0 ||
        p->rank >= p->size || !(p->timeout_s > 0) ||
        (!p->singleton && (p->port < 1 || p->port > 65535 || !p->host[0]))) {
        plx_warn("bootstrap: bad parameters (rank %d, size %d, port %d, timeout %g)",
                 p ? p->rank : -1, p ? p->size : -1, p ? p->port : -1, p ? p->timeout_s : 0.0);
        return PLX_ERR_INVALID_ARG;
    }
    if (p->singleton && p->size != 1) {
        plx_warn("bootstrap: a singleton job must have size 1");
        return PLX_ERR_INVALID_ARG;
    }
    plx_boot_t *b = calloc(1, sizeof *b);
    if (!b) return PLX_ERR_NO_MEMORY;
    b->fd = -1;
    b->rank = p->rank;
    b->size = p->size;
    b->timeout_s = p->timeout_s;
    memcpy(b->key, p->key, sizeof b->key);
    if (p->singleton) {
        snprintf(b->where, sizeof b->where, "(singleton)");
        *bootp = b;
        return PLX_SUCCESS;
    }
    if (strchr(p->host, ':')) snprintf(b->where, sizeof b->where, "[%s]:%d", p->host, p->port);
    else snprintf(b->where, sizeof b->where, "%s:%d", p->host, p->port);

    int64_t start = plx_boot_now_ms();
    int64_t deadline = start + (int64_t)(p->timeout_s * 1000.0);
    if (p->serve && start_own_server(b, p) != PLX_SUCCESS) {
        plx_boot_close(b);
        return PLX_ERR_BOOTSTRAP;
    }

    char port[16], lasterr[400] = "nothing tried";
    snprintf(port, sizeof port, "%d", p->port);
    int64_t backoff = 10;
    int told_waiting = 0;
    for (;;) {
        struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                                  .ai_flags = AI_NUMERICSERV }, *res = NULL;
        int gr = getaddrinfo(p->host, port, &hints, &res);
        if (gr) {
            snprintf(lasterr, sizeof lasterr, "cannot resolve '%s': %s", p->host, gai_strerror(gr));
        } else {
            for (struct addrinfo *a = res; a; a = a->ai_next) {
                int e = 0;
                int fd = try_connect(a, deadline, &e);
                if (fd < 0) {
                    snprintf(lasterr, sizeof lasterr, "connect: %s", strerror(e));
                    continue;
                }
                int hs = handshake(b, fd, deadline, lasterr, sizeof lasterr);
                if (hs == HS_OK) {
                    b->fd = fd;
                    break;
                }
                close(fd);
                if (hs == HS_FAIL) {
                    freeaddrinfo(res);
                    plx_status_t st = b->broken;
                    plx_boot_close(b);
                    return st;
                }
            }
            freeaddrinfo(res);
        }
        if (b->fd >= 0) break;
        int64_t now = plx_boot_now_ms();
        if (now >= deadline) break;
        if (!told_waiting && now - start > 2000) {
            plx_info("bootstrap: rank %d still waiting for the server at %s (%s); retrying "
                     "for up to %.0f s", b->rank, b->where, lasterr, p->timeout_s);
            told_waiting = 1;
        }
        sleep_ms(backoff < deadline - now ? backoff : deadline - now);
        backoff = backoff * 2 > 500 ? 500 : backoff * 2;
        /* stop before an attempt that could only time out at once: the
         * message keeps the last real error ("Connection refused") */
        if (plx_boot_now_ms() >= deadline) break;
    }
    if (b->fd < 0) {
        plx_status_t st = fail(b, PLX_ERR_TIMEOUT,
                               "rank %d: no bootstrap server accepted us at %s within %.1f s "
                               "(last error: %s)", b->rank, b->where, p->timeout_s, lasterr);
        plx_boot_close(b);
        return st;
    }
    plx_debug("bootstrap: rank %d of %d connected to %s", b->rank, b->size, b->where);
    *bootp = b;
    return PLX_SUCCESS;
}

/* ---- collectives ---- */

/* Send one collective frame and wait for its RESULT (len expect, into dst). */
static plx_status_t coll(plx_boot_t *b, uint16_t type, const void *pre, size_t prelen,
                         const void *data, size_t len, void *dst, size_t expect)
{
    const char *what = type == PLX_BOOT_ALLGATHER ? "allgather"
                     : type == PLX_BOOT_BARRIER ? "barrier" : "bcast";
    uint32_t seq = ++b->seq;
    int64_t deadline = plx_boot_now_ms() + (int64_t)(b->timeout_s * 1000.0);
    b->stream_bad = 1;   /* until a whole answer (RESULT or ERROR) was read */
    uint8_t hb[PLX_BOOT_HDR_BYTES];
    plx_boot_hdr_make(hb, type, 0, (uint32_t)b->rank, seq, (uint32_t)(prelen + len));
    struct iovec iov[3] = { { hb, sizeof hb }, { (void *)pre, prelen }, { (void *)data, len } };
    int r = io_writev(b->fd, iov, 3, deadline);
    if (r == IO_TIMEOUT)
        return fail(b, PLX_ERR_TIMEOUT, "rank %d: timed out after %g s sending %s #%u to the "
                    "bootstrap server %s", b->rank, b->timeout_s, what, seq, b->where);
    if (r)
        return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: lost the bootstrap server %s while sending "
                    "%s #%u (%s)", b->rank, b->where, what, seq,
                    r == IO_EOF ? "connection closed" : strerror(errno));

    r = io_read(b->fd, hb, sizeof hb, deadline);
    if (r == IO_TIMEOUT)
        return fail(b, PLX_ERR_TIMEOUT, "rank %d: timed out after %g s waiting for the result "
                    "of bootstrap %s #%u from %s (has every rank called it?)", b->rank,
                    b->timeout_s, what, seq, b->where);
    if (r)
        return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: the bootstrap server %s went away while "
                    "rank %d waited for %s #%u (%s)", b->rank, b->where, b->rank, what, seq,
                    r == IO_EOF ? "connection closed" : strerror(errno));
    plx_boot_hdr_t h;
    const char *why;
    plx_boot_hdr_unpack(hb, &h);
    size_t max = expect > 4 + PLX_BOOT_REASON_MAX ? expect : 4 + PLX_BOOT_REASON_MAX;
    if (plx_boot_hdr_check(&h, b->size, max, &why) < 0)
        return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: bad frame from the bootstrap server %s "
                    "during %s #%u: %s", b->rank, b->where, what, seq, why);
    if (h.type == PLX_BOOT_ERROR) {
        uint8_t body[4 + PLX_BOOT_REASON_MAX + 1];
        r = io_read(b->fd, body, h.len, deadline);
        if (r)
            return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: %s #%u failed and the server's reason "
                        "was cut off", b->rank, what, seq);
        b->stream_bad = 0;   /* the server's verdict arrived whole: goodbye still works */
        body[h.len] = '\0';
        sanitize((char *)body + 4);
        uint32_t code = plx_get_be32(body);
        plx_status_t st = code == PLX_ERR_PEER_FAILED ? PLX_ERR_PEER_FAILED
                        : code == PLX_ERR_NO_MEMORY ? PLX_ERR_NO_MEMORY : PLX_ERR_BOOTSTRAP;
        return fail(b, st, "rank %d: bootstrap %s #%u failed: %s", b->rank, what, seq,
                    (char *)body + 4);
    }
    if (h.type != PLX_BOOT_RESULT || h.seq != seq || h.flags != type ||
        h.rank != (uint32_t)b->rank || h.len != expect)
        return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: unexpected answer to %s #%u from %s "
                    "(type %u, seq %u, %u bytes; expected %zu)", b->rank, what, seq, b->where,
                    (unsigned)h.type, (unsigned)h.seq, (unsigned)h.len, expect);
    r = io_read(b->fd, dst, expect, deadline);
    if (r == IO_TIMEOUT)
        return fail(b, PLX_ERR_TIMEOUT, "rank %d: timed out after %g s receiving the result "
                    "of %s #%u", b->rank, b->timeout_s, what, seq);
    if (r)
        return fail(b, PLX_ERR_BOOTSTRAP, "rank %d: the bootstrap server %s went away in the "
                    "middle of the result of %s #%u", b->rank, b->where, what, seq);
    b->stream_bad = 0;
    return PLX_SUCCESS;
}

plx_status_t plx_boot_allgather(plx_boot_t *b, const void *mine, void *all, size_t len)
{
    if (!b) return PLX_ERR_INVALID_ARG;
    if (b->broken) return b->broken;
    if (len > PLX_BOOT_MAX_BLOB || (uint64_t)len * (uint64_t)b->size > PLX_BOOT_MAX_TOTAL ||
        (len && (!mine || !all))) {
        plx_warn("bootstrap: allgather of %zu bytes x %d ranks: bad arguments (limit %u per rank, "
                 "%u in all)", len, b->size, PLX_BOOT_MAX_BLOB, PLX_BOOT_MAX_TOTAL);
        return PLX_ERR_INVALID_ARG;
    }
    if (b->fd < 0) {   /* singleton */
        if (len && all != mine) memmove(all, mine, len);
        return PLX_SUCCESS;
    }
    return coll(b, PLX_BOOT_ALLGATHER, NULL, 0, mine, len, all, len * (size_t)b->size);
}

plx_status_t plx_boot_barrier(plx_boot_t *b)
{
    if (!b) return PLX_ERR_INVALID_ARG;
    if (b->broken) return b->broken;
    if (b->fd < 0) return PLX_SUCCESS;
    return coll(b, PLX_BOOT_BARRIER, NULL, 0, NULL, 0, NULL, 0);
}

plx_status_t plx_boot_bcast(plx_boot_t *b, void *buf, size_t len, int root)
{
    if (!b) return PLX_ERR_INVALID_ARG;
    if (b->broken) return b->broken;
    if (len > PLX_BOOT_MAX_BLOB || root < 0 || root >= b->size || (len && !buf)) {
        plx_warn("bootstrap: bcast of %zu bytes from root %d: bad arguments (size %d, limit %u)",
                 len, root, b->size, PLX_BOOT_MAX_BLOB);
        return PLX_ERR_INVALID_ARG;
    }
    if (b->fd < 0) return PLX_SUCCESS;
    uint8_t pre[8];
    plx_put_be32(pre, (uint32_t)root);
    plx_put_be32(pre + 4, (uint32_t)len);
    int me = root == b->rank;
    return coll(b, PLX_BOOT_BCAST, pre, 8, me ? buf : NULL, me ? len : 0, buf, me ? 0 : len);
}

void plx_boot_close(plx_boot_t *b)
{
    if (!b) return;
    if (b->fd >= 0) {
        if (!b->stream_bad) {
            /* goodbye: the server then knows this exit is orderly */
            uint8_t hb[PLX_BOOT_HDR_BYTES];
            plx_boot_hdr_make(hb, PLX_BOOT_BYE, 0, (uint32_t)b->rank, 0, 0);
            struct iovec iov = { hb, sizeof hb };
            double t = b->timeout_s < 5 ? b->timeout_s : 5;
            (void)io_writev(b->fd, &iov, 1, plx_boot_now_ms() + (int64_t)(t * 1000));
        }
        close(b->fd);
    }
    if (b->srv) {
        /* rank 0 serving: let the others pick up their last results first */
        plx_boot_server_stop_thread(b->srv, b->stream_bad || b->fd < 0 ? 0 : b->timeout_s);
        plx_boot_server_destroy(b->srv);
    }
    memset(b->key, 0, sizeof b->key);
    free(b);
}
