/*
 * plexus.h — the one public header of Plexus, an MPI-style collective
 * communication library.
 *
 * Everything an application needs is here: status codes, datatypes and
 * reduction ops, the context (one per process), communicators, blocking
 * collectives and tagged point-to-point messages.  Every call returns a
 * plx_status_t; plx_strerror() explains it.  Bad arguments give
 * PLX_ERR_INVALID_ARG (and a one-line message when PLX_LOG=warn or higher)
 * and nothing is written to any buffer.  Every internal wait is bounded by
 * PLX_TIMEOUT seconds (default 300).
 *
 * Counts are in elements of the given datatype, never bytes.
 *
 * Thread safety (MPI_THREAD_MULTIPLE-like, with one MPI-like rule):
 *   - Any thread may call any function at any time; each context has one
 *     lock that serialises the library's own state, held only while work
 *     is done (never while a wait backs off), so a thread waiting on one
 *     request does not stop another thread from starting or completing
 *     others.  Several threads may use different communicators at once
 *     (tested under -fsanitize=thread).
 *   - Collectives on ONE communicator must be started in the same order on
 *     every rank, as in MPI; so two threads starting collectives on the
 *     same communicator concurrently is an application race.  The same
 *     holds for plx_comm_split/dup: run them from one thread at a time per
 *     context (they agree on new ids with the other ranks).
 *   - A request may be waited on or tested by one thread at a time.
 *   - plx_finalize must be called by one thread after the others stopped
 *     using the context.
 * Progress: by default the library moves communication only inside plx
 * calls (caller-driven: test/wait/any collective call).  With
 * PLX_PROGRESS=thread each context also runs one background thread that
 * drives every collective in flight while the application computes; it
 * sleeps on a condition variable whenever nothing is in flight, and backs
 * off (spin, then yield, then 20 us sleeps) while in-flight work is idle,
 * so it never holds a core at 100% waiting.
 */
#ifndef PLEXUS_H
#define PLEXUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLX_VERSION_MAJOR 0
#define PLX_VERSION_MINOR 1
#define PLX_VERSION_PATCH 0

/* ---- status codes ------------------------------------------------------ */
typedef enum {
    PLX_SUCCESS = 0,
    PLX_ERR_INVALID_ARG,    /* a bad argument: NULL buffer, bad root/peer, unknown type/op, dead comm */
    PLX_ERR_NO_MEMORY,      /* an allocation failed */
    PLX_ERR_TIMEOUT,        /* a peer did not arrive within PLX_TIMEOUT seconds */
    PLX_ERR_PEER_FAILED,    /* a peer process died */
    PLX_ERR_TRANSPORT,      /* a transport (shm, UCX, NCCL) failed */
    PLX_ERR_BOOTSTRAP,      /* could not find the other ranks (env, rendezvous, key) */
    PLX_ERR_NOT_SUPPORTED,  /* valid request this build or machine cannot serve */
    PLX_ERR_TRUNCATE,       /* a received message was larger than the receive buffer */
    PLX_ERR_INTERNAL,       /* a bug in Plexus: please report */
    PLX_STATUS_COUNT
} plx_status_t;

/* A static English sentence for a status; never NULL. */
const char *plx_strerror(plx_status_t status);

/* ---- datatypes and ops ------------------------------------------------- */
typedef enum {
    PLX_INT8 = 0,
    PLX_UINT8,
    PLX_INT32,
    PLX_UINT32,
    PLX_INT64,
    PLX_UINT64,
    PLX_FLOAT16,            /* IEEE 754 binary16, reduced through float */
    PLX_BFLOAT16,           /* bfloat16, reduced through float */
    PLX_FLOAT32,
    PLX_FLOAT64,
    PLX_DTYPE_COUNT
} plx_dtype_t;

typedef enum {
    PLX_SUM = 0,
    PLX_PROD,
    PLX_MIN,
    PLX_MAX,
    PLX_AVG,                /* sum divided by the communicator size (integer division on integers) */
    PLX_BAND,               /* bitwise ops: integer types only */
    PLX_BOR,
    PLX_BXOR,
    PLX_OP_COUNT
} plx_op_t;

/* Size in bytes of one element, or 0 for an unknown datatype. */
size_t plx_dtype_size(plx_dtype_t dtype);
/* Short names ("float32", "sum"); "unknown" when out of range. */
const char *plx_dtype_name(plx_dtype_t dtype);
const char *plx_op_name(plx_op_t op);

/* Pass as the send buffer to reduce/allreduce/allgather/... in place
 * (see each call for where the input is then taken from). */
#define PLX_IN_PLACE ((void *)1)

/* ---- context and communicators ---------------------------------------- */
typedef struct plx_context *plx_context_t;
typedef struct plx_comm    *plx_comm_t;

/* Colour for plx_comm_split: this rank joins no new communicator. */
#define PLX_UNDEFINED (-32766)

/*
 * Start Plexus in this process: find the other ranks, bring up the
 * transports.  Collective over all ranks.  The ranks are found through, in
 * this order: the env interface PLX_RANK / PLX_SIZE / PLX_BOOTSTRAP /
 * PLX_JOB_KEY (set by plexusrun, or by hand); the launcher's PMIx server
 * (mpirun of Open MPI, srun --mpi=pmix) when built with PMIx; otherwise the
 * process runs alone as a 1-rank job.
 * Errors: PLX_ERR_BOOTSTRAP (bad env, wrong key, rendezvous down),
 * PLX_ERR_TRANSPORT, PLX_ERR_NO_MEMORY, PLX_ERR_INVALID_ARG (ctx NULL or a
 * bad PLX_* environment value).
 */
plx_status_t plx_init(plx_context_t *ctx);

/*
 * Start Plexus over the application's own out-of-band channel, e.g. an MPI
 * communicator: allgather(sendbuf, recvbuf, bytes, user) must gather
 * `bytes` from every rank into recvbuf in rank order on every rank (with
 * MPI: MPI_Allgather(sendbuf, bytes, MPI_BYTE, recvbuf, bytes, MPI_BYTE,
 * comm)) and return 0 on success.  It is called only inside plx_init_oob
 * and plx_finalize, from the calling thread, collectively.  rank/size give
 * this process's place.  Otherwise like plx_init.
 */
typedef int (*plx_oob_allgather_fn)(const void *sendbuf, void *recvbuf, size_t bytes, void *user);
typedef struct plx_oob {
    int rank, size;
    plx_oob_allgather_fn allgather;
    void *user;
} plx_oob_t;
plx_status_t plx_init_oob(const plx_oob_t *oob, plx_context_t *ctx);

/* Tear down; collective over all ranks.  Frees every communicator.  *ctx
 * becomes NULL.  PLX_ERR_INVALID_ARG for a NULL or finalized context (a
 * finalized context keeps a small dead handle so that a stale copy is
 * detected rather than read after free). */
plx_status_t plx_finalize(plx_context_t *ctx);

/* The communicator of all ranks (owned by the context: do not free it). */
plx_status_t plx_comm_world(plx_context_t ctx, plx_comm_t *comm);
plx_status_t plx_comm_rank(plx_comm_t comm, int *rank);
plx_status_t plx_comm_size(plx_comm_t comm, int *size);

/*
 * Split comm into disjoint communicators, one per colour, ranked by key
 * (ties by old rank).  Collective over comm.  color == PLX_UNDEFINED gives
 * *newcomm == NULL.  color must be >= 0 or PLX_UNDEFINED.
 */
plx_status_t plx_comm_split(plx_comm_t comm, int color, int key, plx_comm_t *newcomm);
/* A new communicator with the same ranks; collective over comm. */
plx_status_t plx_comm_dup(plx_comm_t comm, plx_comm_t *newcomm);
/* Free a communicator made by split or dup; *comm becomes NULL.  Local
 * (not collective).  Using a freed handle afterwards gives
 * PLX_ERR_INVALID_ARG until plx_finalize. Freeing the world comm is invalid. */
plx_status_t plx_comm_free(plx_comm_t *comm);

/* ---- collectives (blocking) -------------------------------------------
 * Every rank of comm calls the same collective with matching count, dtype,
 * op and root.  Buffers may be NULL only when the count is 0.
 */

/* Wait until every rank of comm has entered. */
plx_status_t plx_barrier(plx_comm_t comm);

/* Copy count elements of root's buf to every rank's buf. */
plx_status_t plx_bcast(void *buf, size_t count, plx_dtype_t dtype, int root, plx_comm_t comm);

/* Reduce sendbuf of every rank into root's recvbuf.  recvbuf matters only
 * at root.  In place: root passes PLX_IN_PLACE as sendbuf and its input in
 * recvbuf. Bitwise ops on float types give PLX_ERR_INVALID_ARG. */
plx_status_t plx_reduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                        plx_op_t op, int root, plx_comm_t comm);

/* Reduce sendbuf of every rank; every rank gets the result in recvbuf.
 * In place: sendbuf = PLX_IN_PLACE, input taken from recvbuf. */
plx_status_t plx_allreduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                           plx_op_t op, plx_comm_t comm);

/* Every rank contributes count elements; recvbuf (size*count elements)
 * gets block r from rank r.  In place: sendbuf = PLX_IN_PLACE, this rank's
 * block already sits at recvbuf + rank*count. */
plx_status_t plx_allgather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                           plx_comm_t comm);

/* Reduce size*recvcount elements of sendbuf over all ranks; rank r gets
 * block r (recvcount elements) in recvbuf.  In place: sendbuf =
 * PLX_IN_PLACE, the size*recvcount input is in recvbuf and the result
 * is written to its first recvcount elements. */
plx_status_t plx_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                plx_dtype_t dtype, plx_op_t op, plx_comm_t comm);

/* Block j (count elements) of rank i's sendbuf goes to block i of rank j's
 * recvbuf.  In place: sendbuf = PLX_IN_PLACE, input taken from recvbuf. */
plx_status_t plx_alltoall(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                          plx_comm_t comm);

/* Root's recvbuf (size*count elements) gets block r from rank r.  recvbuf
 * matters only at root.  In place: root passes PLX_IN_PLACE as sendbuf,
 * its block already sits at recvbuf + root*count. */
plx_status_t plx_gather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                        int root, plx_comm_t comm);

/* Block r (count elements) of root's sendbuf goes to rank r's recvbuf.
 * sendbuf matters only at root.  In place: root passes PLX_IN_PLACE as
 * recvbuf and its block stays in sendbuf. */
plx_status_t plx_scatter(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                         int root, plx_comm_t comm);

/* ---- point to point ---------------------------------------------------
 * Messages between a pair of ranks with equal tags arrive in order.  tag is
 * 0 .. PLX_TAG_MAX.  Sending to oneself works (any size).
 */
#define PLX_TAG_MAX 0x7fffffff

/* Send count elements to rank peer of comm; returns when buf may be reused. */
plx_status_t plx_send(const void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                      plx_comm_t comm);

/* Receive up to count elements from rank peer with this tag.  *received
 * (may be NULL) gets the element count that arrived.  A larger message
 * gives PLX_ERR_TRUNCATE (buf then holds its first count elements). */
plx_status_t plx_recv(void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                      plx_comm_t comm, size_t *received);

/* ---- nonblocking calls and requests ------------------------------------
 * Every collective and send/recv has an i-form that starts it and returns a
 * request at once; the blocking calls above are exactly the i-form followed
 * by plx_wait.  Any number may be in flight on one communicator and across
 * communicators; collectives are matched across ranks by the order in which
 * each rank starts them on a communicator (every rank must start the
 * collectives of one communicator in the same order).  Buffers must not be
 * touched until the request completes.  Progress happens inside
 * plx_test/plx_wait/plx_waitall/plx_waitany (and any blocking call): each
 * moves every request of the context, not only the one named.  A request
 * that completes through test/wait is freed and set to NULL; the status it
 * returns is the operation's.  The argument checks of the blocking form
 * apply (PLX_ERR_INVALID_ARG, nothing started, *req untouched); req NULL is
 * invalid.
 */
typedef struct plx_request *plx_request_t;

plx_status_t plx_ibarrier(plx_comm_t comm, plx_request_t *req);
plx_status_t plx_ibcast(void *buf, size_t count, plx_dtype_t dtype, int root, plx_comm_t comm,
                        plx_request_t *req);
plx_status_t plx_ireduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                         plx_op_t op, int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_iallreduce(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                            plx_op_t op, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_iallgather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                            plx_comm_t comm, plx_request_t *req);
plx_status_t plx_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                 plx_dtype_t dtype, plx_op_t op, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_ialltoall(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                           plx_comm_t comm, plx_request_t *req);
plx_status_t plx_igather(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                         int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_iscatter(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                          int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_isend(const void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                       plx_comm_t comm, plx_request_t *req);
/* *received (may be NULL) is written when the request completes. */
plx_status_t plx_irecv(void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                       plx_comm_t comm, size_t *received, plx_request_t *req);

/* Progress everything once; *done = 1 when *req completed (then it is freed,
 * *req = NULL, and the operation's status is returned), else 0 and
 * PLX_SUCCESS.  A NULL *req counts as complete. */
plx_status_t plx_test(plx_request_t *req, int *done);
/* Until *req completes (bounded by PLX_TIMEOUT from its start); frees it. */
plx_status_t plx_wait(plx_request_t *req);
/* Until all complete; statuses (may be NULL) gets each one's status; returns
 * the first error in index order, or PLX_SUCCESS.  NULL entries are skipped. */
plx_status_t plx_waitall(int n, plx_request_t reqs[], plx_status_t statuses[]);
/* Until one completes: *index gets its position (-1 if every entry is NULL)
 * and its status is returned. */
plx_status_t plx_waitany(int n, plx_request_t reqs[], int *index);
/* Release a request without waiting; an operation still in flight goes on
 * and its request is freed when it completes.  *req becomes NULL. */
plx_status_t plx_request_free(plx_request_t *req);

/* ---- information ------------------------------------------------------ */
/* Which algorithm and transport(s) the selector picks on comm for
 * `collective` ("allreduce", "bcast", ...) at `bytes` bytes (count x
 * datatype size as passed to the call).  The strings are static. */
plx_status_t plx_query_algorithm(plx_comm_t comm, const char *collective, size_t bytes,
                                 const char **algorithm, const char **transport);

/* "0.1.0 (shm ucx cuda nccl)": the version and the transports built in. */
const char *plx_version_string(void);

#ifdef __cplusplus
}
#endif
#endif /* PLEXUS_H */
