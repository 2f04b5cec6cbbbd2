/*
 * lib/bootstrap/bootstrap.h — how ranks find each other at start-up.
 *
 * The bootstrap is used only for set-up (addresses, segment names, node
 * ids), never for data.  A TCP rendezvous server (run by plexusrun, or by
 * rank 0 in a thread when the job was started some other way) answers
 * allgather / barrier / bcast of small blobs.  Every connection proves the
 * per-job secret key with an HMAC-SHA256 challenge-response, so the key never
 * crosses the wire; strangers, wrong keys, truncated or oversized frames are
 * refused with a logged reason.
 *
 * Environment (set by plexusrun, or by hand / a cluster script):
 *   PLX_RANK, PLX_SIZE     this process's rank and the job size
 *   PLX_BOOTSTRAP          host:port of the rendezvous server
 *   PLX_JOB_KEY            the secret: 64 hex digits (32 bytes)
 *   PLX_JOB_ID             optional short id used in shm segment names
 */
#ifndef PLX_BOOTSTRAP_H
#define PLX_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include "plexus.h"

#define PLX_BOOT_KEY_BYTES   32
#define PLX_BOOT_MAX_BLOB    (1u << 20)   /* largest per-rank contribution */
#define PLX_BOOT_MAX_RANKS   65536

/* ---- client (one per context) ---- */
typedef struct plx_boot plx_boot_t;

typedef struct plx_boot_params {
    int rank, size;
    char host[256];
    int port;
    uint8_t key[PLX_BOOT_KEY_BYTES];
    char job_id[32];
    double timeout_s;            /* bound on every wait */
} plx_boot_params_t;

/* Read PLX_RANK/PLX_SIZE/PLX_BOOTSTRAP/PLX_JOB_KEY/PLX_JOB_ID.  Returns
 * PLX_ERR_BOOTSTRAP with a message in err (size errlen) when missing or bad. */
plx_status_t plx_boot_params_from_env(plx_boot_params_t *p, char *err, size_t errlen);

/* Connect (rank 0 first starts a server thread when the address is local
 * and nobody listens yet is NOT done: see plx_boot_connect). Authenticates. */
plx_status_t plx_boot_connect(const plx_boot_params_t *p, plx_boot_t **boot);

/* Collectives over all ranks of the job.  Bounded by timeout_s. */
plx_status_t plx_boot_allgather(plx_boot_t *b, const void *mine, void *all, size_t len);
plx_status_t plx_boot_barrier(plx_boot_t *b);
plx_status_t plx_boot_bcast(plx_boot_t *b, void *buf, size_t len, int root);

/* Say goodbye (so the server knows this exit is orderly) and free. */
void plx_boot_close(plx_boot_t *b);

/* ---- server (plexusrun, or rank 0's thread) ---- */
typedef struct plx_boot_server plx_boot_server_t;

/* Listen on host:port (port 0 = any); *port_out gets the bound port. */
plx_status_t plx_boot_server_create(const char *host, int port, int nranks,
                                    const uint8_t key[PLX_BOOT_KEY_BYTES],
                                    plx_boot_server_t **srv, int *port_out);
/* The listening fd and connection fds to poll for POLLIN (fills up to max, returns count). */
int plx_boot_server_fds(plx_boot_server_t *srv, int *fds, int max);
/* Handle whatever is readable without blocking for long. Returns 0, or -1 on a fatal error. */
int plx_boot_server_step(plx_boot_server_t *srv, int timeout_ms);
/* Ranks that said goodbye; a connection lost without goodbye marks the rank failed. */
int plx_boot_server_rank_failed(plx_boot_server_t *srv, int rank);
void plx_boot_server_destroy(plx_boot_server_t *srv);

/* Run a server in a background thread (used by rank 0 when PLX_BOOTSTRAP_SERVE=1). */
plx_status_t plx_boot_server_start_thread(plx_boot_server_t *srv);

/* ---- frames (exposed for unit tests) ---- */
#define PLX_BOOT_MAGIC 0x504c5842u  /* "PLXB" */
typedef struct plx_boot_hdr {
    uint32_t magic;
    uint16_t type;
    uint16_t flags;
    uint32_t rank;
    uint32_t seq;
    uint32_t len;                /* payload bytes following the header */
} plx_boot_hdr_t;

/* Validate a received header (network byte order converted).  Returns 0 if
 * acceptable, else -1 and a reason in why. */
int plx_boot_hdr_check(const plx_boot_hdr_t *h, int nranks, size_t max_len, const char **why);

/* HMAC-SHA256 (used by the handshake; exposed for tests). */
void plx_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen,
                     uint8_t out[32]);
void plx_sha256(const uint8_t *msg, size_t len, uint8_t out[32]);

#endif /* PLX_BOOTSTRAP_H */
