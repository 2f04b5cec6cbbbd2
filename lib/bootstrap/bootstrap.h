/*
 * lib/bootstrap/bootstrap.h — how ranks find each other at start-up.
 *
 * The bootstrap is used only for set-up (addresses, segment names, node
 * ids), never for data.  A TCP rendezvous server (run by plexusrun in its
 * poll loop, or by rank 0 in a background thread when the job was started
 * some other way) answers allgather / barrier / bcast of small blobs.
 *
 * Security: every connection proves the per-job secret key with an
 * HMAC-SHA256 challenge-response in both directions, so the key never
 * crosses the wire and a fake server is refused as well as a stranger:
 *   server -> client  CHALLENGE  snonce (32 random bytes)
 *   client -> server  AUTH       size, cnonce, HMAC(key, "plexus-boot-v1 client"
 *                                 || snonce || cnonce || rank || size)
 *   server -> client  WELCOME    HMAC(key, "plexus-boot-v1 server" || same)
 *                     or REFUSE  a short reason, then close
 * Strangers, wrong keys, truncated / oversized frames, garbage, duplicate
 * ranks and ranks out of range are refused with a plx_warn() line (a wrong
 * key for a rank not yet connected also fails the job after a short grace:
 * plx_boot_server_set_bad_key_grace); the
 * server never blocks on one connection (non-blocking sockets, epoll,
 * per-connection buffers), caps the number of unauthenticated connections
 * (the oldest is dropped) and drops those that do not authenticate in time.
 * Limitation: after the handshake, frames are not individually MACed or
 * encrypted, so an attacker who can inject into an established TCP stream
 * (on-path on the network) could alter set-up data; the blobs are not
 * secret.  Loopback and a cluster's private network are the intended use.
 *
 * Collectives are numbered (seq 1, 2, ... per connection generation) so
 * calls match across ranks; a mismatch (different op, allgather lengths,
 * bcast root/length) fails the collective on every rank with a message.
 * When a rank's connection drops without a goodbye, every other rank's
 * current or next collective fails with PLX_ERR_PEER_FAILED.
 *
 * Environment (set by plexusrun, or by hand / a cluster script):
 *   PLX_RANK             this process's rank, 0 .. PLX_SIZE-1
 *   PLX_SIZE             number of ranks, 1 .. PLX_BOOT_MAX_RANKS
 *   PLX_BOOTSTRAP        host:port of the rendezvous server ([v6addr]:port too)
 *   PLX_JOB_KEY          the per-job secret: 64 hex digits (32 bytes).  Keep
 *                        it private (it is never printed or sent).
 *   PLX_JOB_ID           optional short id ([A-Za-z0-9_-], at most 31 chars)
 *                        used in shm segment names; default: 8 hex digits of
 *                        SHA-256("plexus-job-id" || key)
 *   PLX_TIMEOUT          seconds, bound on every bootstrap wait (default 300)
 *   PLX_BOOTSTRAP_SERVE  rank 0 runs the rendezvous server in a thread bound
 *                        to PLX_BOOTSTRAP's port unless this is "0"
 *                        (plexusrun sets 0: it serves itself)
 *   PLX_LAUNCHER         "plexusrun" under plexusrun (informational only)
 * When none of PLX_RANK, PLX_SIZE, PLX_BOOTSTRAP, PLX_JOB_KEY is set the
 * process is a singleton (rank 0 of 1, no sockets, random key), like an MPI
 * program started without mpirun.  Setting only some of them is an error.
 *
 * Every client wait is bounded by timeout_s: connect retries with backoff
 * until the server is up; an expired wait gives PLX_ERR_TIMEOUT, a refusal,
 * protocol error or vanished server PLX_ERR_BOOTSTRAP, a dead peer
 * PLX_ERR_PEER_FAILED, each with a one-line message (plx_error) saying what
 * was awaited; plx_boot_last_error() returns it.  After an error the
 * client object is broken: later calls return the same status at once.
 *
 * Thread safety: a client object is used by one thread at a time; a server
 * object by one thread at a time (its own thread once started).
 */
#ifndef PLX_BOOTSTRAP_H
#define PLX_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include "plexus.h"

#define PLX_BOOT_KEY_BYTES   32
#define PLX_BOOT_MAX_BLOB    (1u << 20)   /* largest per-rank contribution / bcast */
#define PLX_BOOT_MAX_TOTAL   (1u << 28)   /* largest allgather result (size * len) */
#define PLX_BOOT_MAX_RANKS   65536
#define PLX_BOOT_DEFAULT_TIMEOUT 300.0

/* ---- client (one per context) ---- */
typedef struct plx_boot plx_boot_t;

typedef struct plx_boot_params {
    int rank, size;
    char host[256];
    int port;
    uint8_t key[PLX_BOOT_KEY_BYTES];
    char job_id[32];
    double timeout_s;            /* bound on every wait */
    int serve;                   /* 1: plx_boot_connect starts the server thread first */
    int singleton;               /* 1: size 1 with no server at all (no env given) */
} plx_boot_params_t;

/* Read the environment above.  Returns PLX_SUCCESS, or PLX_ERR_BOOTSTRAP
 * (missing/incomplete env) / PLX_ERR_INVALID_ARG (a malformed value) with a
 * one-line message in err (size errlen; err may be NULL).  Never logs. */
plx_status_t plx_boot_params_from_env(plx_boot_params_t *p, char *err, size_t errlen);

/* Connect and authenticate; when p->serve, first start the rendezvous
 * server in a thread bound to p->host:p->port (it lives until
 * plx_boot_close of this object).  Retries until the server is up, bounded
 * by p->timeout_s.  On error *boot is NULL and the reason was logged. */
plx_status_t plx_boot_connect(const plx_boot_params_t *p, plx_boot_t **boot);

/* Collectives over all ranks of the job.  Bounded by timeout_s.
 * allgather: every rank gives len bytes (the same len everywhere, at most
 * PLX_BOOT_MAX_BLOB, size*len at most PLX_BOOT_MAX_TOTAL); all gets size*len
 * bytes in rank order (mine may point into all).
 * bcast: len bytes of root's buf to every rank's buf (same len and root
 * everywhere, len at most PLX_BOOT_MAX_BLOB). */
plx_status_t plx_boot_allgather(plx_boot_t *b, const void *mine, void *all, size_t len);
plx_status_t plx_boot_barrier(plx_boot_t *b);
plx_status_t plx_boot_bcast(plx_boot_t *b, void *buf, size_t len, int root);

/* The message of the last error on b ("" if none). */
const char *plx_boot_last_error(const plx_boot_t *b);

/* Say goodbye (so the server knows this exit is orderly) and free.  The
 * rank that serves waits (bounded by timeout_s) until every rank has its
 * last results before stopping the server.  NULL is ignored. */
void plx_boot_close(plx_boot_t *b);

/* ---- server (plexusrun, or rank 0's thread) ---- */
typedef struct plx_boot_server plx_boot_server_t;

/* Listen on host:port (port 0 = any; host NULL or "" = 127.0.0.1);
 * *port_out (may be NULL) gets the bound port. */
plx_status_t plx_boot_server_create(const char *host, int port, int nranks,
                                    const uint8_t key[PLX_BOOT_KEY_BYTES],
                                    plx_boot_server_t **srv, int *port_out);

/* Tuning, mainly for tests: at most max_unauth connections may be in the
 * handshake at once (default nranks + 64, at most 4096; the oldest is
 * dropped to make room, and a dropped rank reconnects), and each must
 * authenticate within auth_timeout_ms (default 10000).  Values <= 0 keep
 * the current setting. */
void plx_boot_server_set_limits(plx_boot_server_t *srv, int max_unauth, int auth_timeout_ms);

/* A connection that claims a rank not yet connected and fails to prove
 * the key (a rank started with a wrong PLX_JOB_KEY) fails the whole job,
 * naming that rank, unless a rank of that number with the right key
 * arrives within grace_ms (default PLX_BOOT_BAD_KEY_GRACE_MS): the other
 * ranks learn it in seconds instead of at PLX_TIMEOUT.  The grace bounds
 * what a stranger who can reach the port achieves with a false claim (it
 * ends only a job whose real rank is that late).  grace_ms < 0: never
 * (plexusrun, which gives every rank the key itself). */
#define PLX_BOOT_BAD_KEY_GRACE_MS 3000
void plx_boot_server_set_bad_key_grace(plx_boot_server_t *srv, int grace_ms);

/* multi_gen (default 1): once every rank has said goodbye, ranks may
 * connect again for a new round (plx_init after plx_finalize).  Rank 0's
 * own server uses 0: it goes away with rank 0's client. */
void plx_boot_server_set_multi_gen(plx_boot_server_t *srv, int multi_gen);

/* quiet = 1: the launcher is stopping the job on purpose, so ranks that
 * drop their connections are logged at info level instead of warn. */
void plx_boot_server_set_quiet(plx_boot_server_t *srv, int quiet);

/* For an outside poll loop (plexusrun): one fd that is readable whenever the
 * server has work, and the ms until its next internal deadline (-1: none).
 * Call plx_boot_server_step(srv, 0) when the fd is readable or the
 * deadline passed (calling it more often is harmless). */
int plx_boot_server_fd(const plx_boot_server_t *srv);
int plx_boot_server_timeout_ms(const plx_boot_server_t *srv);

/* Handle whatever is ready, waiting at most timeout_ms (-1: until
 * something happens or an internal deadline).  Returns 0, or -1 on a
 * fatal error of the server itself (logged). */
int plx_boot_server_step(plx_boot_server_t *srv, int timeout_ms);

/* 1 if rank lost its connection without a goodbye (in this round). */
int plx_boot_server_rank_failed(const plx_boot_server_t *srv, int rank);

typedef struct plx_boot_server_stats {
    unsigned accepted;        /* TCP connections accepted */
    unsigned authenticated;   /* handshakes that succeeded */
    unsigned refused;         /* refused with a reason (bad frame, key, rank...) */
    unsigned dropped;         /* closed/timed out/evicted before authenticating */
    unsigned failed_ranks;    /* ranks lost without goodbye */
    unsigned collectives;     /* collectives completed */
} plx_boot_server_stats_t;
/* Counters (read them from the thread that runs the server, or after
 * plx_boot_server_stop_thread). */
void plx_boot_server_get_stats(const plx_boot_server_t *srv, plx_boot_server_stats_t *st);

/* Stop (if running) and free; closes every connection. */
void plx_boot_server_destroy(plx_boot_server_t *srv);

/* Run the server in a background thread. */
plx_status_t plx_boot_server_start_thread(plx_boot_server_t *srv);
/* Stop the thread.  graceful_s > 0: first wait up to that long until every
 * rank has said goodbye or holds all its results (nothing left to send, no
 * collective open); then stop.  Safe to call when no thread runs. */
void plx_boot_server_stop_thread(plx_boot_server_t *srv, double graceful_s);

/* ---- frames (exposed for unit tests) ----
 * On the wire: a 20-byte header, all fields big-endian, then len payload
 * bytes.  S->C frames carry the addressee's rank (0 in CHALLENGE). */
#define PLX_BOOT_MAGIC 0x504c5842u  /* "PLXB" */
#define PLX_BOOT_HDR_BYTES 20
#define PLX_BOOT_PROTO_VERSION 1
#define PLX_BOOT_NONCE_BYTES 32
#define PLX_BOOT_MAC_BYTES 32
#define PLX_BOOT_AUTH_BYTES (4 + PLX_BOOT_NONCE_BYTES + PLX_BOOT_MAC_BYTES)
#define PLX_BOOT_REASON_MAX 256

enum plx_boot_type {
    PLX_BOOT_CHALLENGE = 1, /* S->C, flags = protocol version, len 32: snonce */
    PLX_BOOT_AUTH,          /* C->S, len 68: be32 size, cnonce, mac */
    PLX_BOOT_WELCOME,       /* S->C, len 32: server mac */
    PLX_BOOT_REFUSE,        /* S->C, len <= 256: reason text; then close */
    PLX_BOOT_ALLGATHER,     /* C->S, len <= MAX_BLOB: this rank's contribution */
    PLX_BOOT_BARRIER,       /* C->S, len 0 */
    PLX_BOOT_BCAST,         /* C->S, len 8 (+ data at the root): be32 root, be32 len */
    PLX_BOOT_RESULT,        /* S->C, flags = the collective's type, len <= MAX_TOTAL */
    PLX_BOOT_ERROR,         /* S->C, len 4..260: be32 plx_status_t, reason text */
    PLX_BOOT_BYE,           /* C->S, len 0 */
    PLX_BOOT_TYPE_MAX = PLX_BOOT_BYE
};

typedef struct plx_boot_hdr {
    uint32_t magic;
    uint16_t type;
    uint16_t flags;
    uint32_t rank;
    uint32_t seq;
    uint32_t len;                /* payload bytes following the header */
} plx_boot_hdr_t;

void plx_boot_hdr_pack(const plx_boot_hdr_t *h, uint8_t out[PLX_BOOT_HDR_BYTES]);
void plx_boot_hdr_unpack(const uint8_t in[PLX_BOOT_HDR_BYTES], plx_boot_hdr_t *h);

/* Validate a received header (already unpacked to host order): magic,
 * known type, flags, rank < nranks, len <= max_len and the type's own
 * length rule.  Returns 0 if acceptable, else -1 and a static reason in
 * *why (why may be NULL). */
int plx_boot_hdr_check(const plx_boot_hdr_t *h, int nranks, size_t max_len, const char **why);

/* The handshake MAC; role is 'c' (client proof) or 's' (server proof). */
void plx_boot_auth_mac(const uint8_t key[PLX_BOOT_KEY_BYTES], char role,
                       const uint8_t snonce[PLX_BOOT_NONCE_BYTES],
                       const uint8_t cnonce[PLX_BOOT_NONCE_BYTES],
                       uint32_t rank, uint32_t size, uint8_t out[PLX_BOOT_MAC_BYTES]);

/* ---- SHA-256 / HMAC-SHA256 (FIPS 180-4, RFC 2104; exposed for tests) ---- */
typedef struct plx_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;              /* message length so far */
    uint8_t buf[64];
    size_t fill;
} plx_sha256_ctx_t;

void plx_sha256_init(plx_sha256_ctx_t *c);
void plx_sha256_update(plx_sha256_ctx_t *c, const void *data, size_t len);
void plx_sha256_final(plx_sha256_ctx_t *c, uint8_t out[32]);
void plx_sha256(const uint8_t *msg, size_t len, uint8_t out[32]);
void plx_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen,
                     uint8_t out[32]);
/* Constant-time comparison: 0 when equal. */
int plx_ct_memcmp(const void *a, const void *b, size_t n);

/* Parse exactly 2*n hex digits into out; 0 on success, -1 otherwise. */
int plx_hex_decode(const char *hex, uint8_t *out, size_t n);
/* Write 2*n lowercase hex digits and a NUL into out (size >= 2*n+1). */
void plx_hex_encode(const uint8_t *in, size_t n, char *out);

#endif /* PLX_BOOTSTRAP_H */
