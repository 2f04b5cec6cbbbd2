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
 * Out-parameters are written on failure too, so a failed call never leaves
 * garbage behind: a handle becomes NULL (context, communicator, request,
 * graph), a rank -1, a size or count 0, a flag 0, a node number -1, a string
 * NULL.  A code that ignores a failed plx_init therefore gets
 * PLX_ERR_INVALID_ARG from every later call, never a crash.
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
 *     plx_comm_create_group may run in several threads at once (each with
 *     its own tag), but not while another thread splits or dups.
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

/* ---- version -----------------------------------------------------------
 * The version of this header, for #if:
 *   #if PLX_VERSION_CODE >= PLX_VERSION_NUM(0, 2, 0)
 * plx_version() gives the version of the library actually loaded, which
 * may be newer than the header an application was compiled with.  The
 * shared library's soname (libplexus.so.N) changes only when a change
 * breaks applications built against an older release.
 */
#define PLX_VERSION_MAJOR 0
#define PLX_VERSION_MINOR 1
#define PLX_VERSION_PATCH 0
#define PLX_VERSION_NUM(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))
#define PLX_VERSION_CODE PLX_VERSION_NUM(PLX_VERSION_MAJOR, PLX_VERSION_MINOR, PLX_VERSION_PATCH)

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
    PLX_ERR_COMPUTE_FAILED, /* a compute node of a task graph returned non-zero */
    PLX_ERR_MISMATCH,       /* the ranks disagree on a collective call (which one, count x type size, root, op) */
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
 * (mpirun of Open MPI, srun --mpi=pmix) when built with PMIx; the
 * launcher's PMI server on PMI_FD (mpirun.mpich / MPICH's hydra, srun
 * --mpi=pmi2); otherwise the process runs alone as a 1-rank job -- unless
 * the environment shows it is one of several processes started together
 * (PMI_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_STEP_NUM_TASKS > 1): then
 * PLX_ERR_BOOTSTRAP with a message naming what was seen and the fix
 * (PLX_ALLOW_SINGLETON=1 runs it alone on purpose).
 * Errors: PLX_ERR_BOOTSTRAP (bad env, wrong key, rendezvous down),
 * PLX_ERR_TRANSPORT, PLX_ERR_NO_MEMORY, PLX_ERR_INVALID_ARG (ctx NULL or a
 * bad PLX_* environment value).
 */
plx_status_t plx_init(plx_context_t *ctx);

/*
 * This process's place among the ranks on its node, known before plx_init.
 * *local_rank is in 0..*local_size-1: a GPU code picks its device with it
 * (cudaSetDevice(local_rank % ndev)) before anything touches CUDA.  Either
 * pointer may be NULL.
 *
 * It reads what the launcher set; the first complete pair wins:
 * PLX_LOCAL_RANK / PLX_LOCAL_SIZE (plexusrun, or plx_init, see below);
 * MPI_LOCALRANKID / MPI_LOCALNRANKS (mpirun.mpich, MPICH's hydra);
 * OMPI_COMM_WORLD_LOCAL_RANK / OMPI_COMM_WORLD_LOCAL_SIZE (Open MPI's
 * mpirun); SLURM_LOCALID with this node's (SLURM_NODEID) entry of
 * SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE (the "2(x3),1" form),
 * or SLURM_NTASKS_PER_NODE (srun, any --mpi plugin).  PMIx exports no such
 * variable; its launchers set the Open MPI or the Slurm pair.
 *
 * plx_init sets PLX_LOCAL_RANK / PLX_LOCAL_SIZE in the process environment
 * (setenv) from the ranks it found on this node (same hostname and boot
 * id, or PLX_NODE_ID) unless PLX_LOCAL_RANK is already set, so later code
 * and child processes see them under any launcher.
 *
 * Returns PLX_SUCCESS; PLX_ERR_NOT_SUPPORTED when no launcher said (a
 * process started by hand, alone); PLX_ERR_INVALID_ARG when a variable is
 * malformed (not a number, rank >= size).  On failure both are set to -1.
 */
plx_status_t plx_local_rank(int *local_rank, int *local_size);

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
 * becomes NULL.  PLX_ERR_INVALID_ARG for a NULL or finalized context (the
 * object of a finalized context is kept, marked dead, until 16 later
 * contexts have ended, so a stale copy is detected rather than read after
 * free; memory stays bounded and nothing is leaked at exit).
 * After any call of this context ended with PLX_ERR_TIMEOUT,
 * PLX_ERR_PEER_FAILED or PLX_ERR_MISMATCH the job is broken, and
 * plx_finalize is no longer collective: it skips its barriers (which would
 * wait PLX_TIMEOUT for a stuck or dead rank), releases everything at once
 * and returns PLX_SUCCESS; the other ranks see this rank gone through
 * their own bounded waits. */
plx_status_t plx_finalize(plx_context_t *ctx);

/* The communicator of all ranks (owned by the context: do not free it).
 * *comm = NULL on failure. */
plx_status_t plx_comm_world(plx_context_t ctx, plx_comm_t *comm);
/* This rank's number in comm, 0..size-1 (-1 on failure). */
plx_status_t plx_comm_rank(plx_comm_t comm, int *rank);
/* The number of ranks in comm (0 on failure). */
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
 * (not collective), but it may wait (at most PLX_TIMEOUT) until the other
 * members have finished reading this rank's part of the last node-local
 * collective.  Its id and memory are reused by later communicators, so a
 * code may dup and free one per phase or per call for as long as it runs
 * (a rank may belong to at most 4096 communicators at once).  Using a freed
 * handle gives PLX_ERR_INVALID_ARG until 64 later communicators of the
 * context have been freed (its object is then reused); freeing one with
 * operations in flight, or the world comm, is PLX_ERR_INVALID_ARG. */
plx_status_t plx_comm_free(plx_comm_t *comm);

/* ---- collectives (blocking) -------------------------------------------
 * Every rank of comm calls the same collective with matching count, dtype,
 * op and root.  Buffers may be NULL only when the count is 0.
 *
 * Ranks that disagree (another collective, count x datatype size, root, or
 * the op or datatype of a reduction; collectives started in different
 * orders on one communicator) get PLX_ERR_MISMATCH from every collective
 * call (blocking, nonblocking through its wait/test, and task-graph
 * communication nodes through the launch), with an error line naming both
 * sides ("rank 0 called allreduce of 400 bytes (float32 sum), rank 2 (world
 * 2) allreduce of 200 bytes (float32 sum)").  Every rank that can see the
 * disagreement returns it, and a rank that saw it tells the others, so
 * nobody waits to PLX_TIMEOUT for it; a rank whose part completed before
 * anyone noticed (a bcast root whose sends went out) may return
 * PLX_SUCCESS.  On a communicator whose members all share one node, the
 * point-to-point algorithms check by the ranks they receive from (no
 * message of their own): disagreeing ranks whose messages do not match see
 * it in their wait's slow path, within about 0.1-1 s.  On the node-local
 * shared slots ("shm_slots") a bcast root
 * and a reduce non-root wait for nobody, so they check the others'
 * signatures of call N after it: if no rank returned PLX_ERR_MISMATCH
 * from call N, the next shm_slots call of that rank on that communicator
 * that sees the others' records (N+1 when it waits for everyone, else
 * N+2 at the latest, counting shm_slots calls only) returns
 * PLX_ERR_MISMATCH, with a line naming call N and both sides, although
 * that call itself completed normally; plx_comm_free logs one found in
 * the last calls.  Nothing is written outside the callers' buffers, and
 * the communicator stays usable.  Not detected: a rank passing count 0 (it
 * returns at once without communicating, so the others time out), and
 * sizes on both sides of the node-local slots limit (one side runs
 * shm_slots, the other a schedule: both time out).
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
 * apply (PLX_ERR_INVALID_ARG, nothing started, *req = NULL); req NULL is
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

/* ---- persistent requests (MPI-4 persistent collectives) ----------------
 * A plx_*_init call takes exactly the arguments of the i-form of the same
 * name (same checks, in-place rules and errors, nothing started) and makes
 * an inactive persistent request: the algorithm is selected and its
 * schedule built once, here.  plx_start runs it; plx_test / plx_wait /
 * plx_waitall / plx_waitany complete it like any request, with the
 * operation's status, but leave it allocated and inactive (the handle is
 * not set to NULL) so it can be started again: a start allocates nothing
 * and selects nothing.  Buffers are read and written at each run, so their
 * contents may change between runs (not while one is active).
 *
 *   plx_request_t req;
 *   plx_allreduce_init(PLX_IN_PLACE, grads, n, PLX_FLOAT32, PLX_SUM, world, &req);
 *   for (step = 0; step < steps; step++) {
 *       plx_start(&req);  ...  plx_wait(&req);
 *   }
 *   plx_request_free(&req);
 *
 * Rules (as MPI-4):
 *   - the init calls are local; each start is a collective: every rank
 *     must start its persistent collectives in the same order relative to
 *     its other collectives on that communicator;
 *   - starting an active request (started, not yet completed by a test or
 *     wait) gives PLX_ERR_INVALID_ARG; so does starting a request that is
 *     not persistent or whose communicator was freed;
 *   - testing or waiting an inactive persistent request returns
 *     PLX_SUCCESS at once (plx_waitany ignores inactive entries, and gives
 *     index -1 when every entry is NULL or inactive);
 *   - plx_request_free frees it (an active one when its run ends);
 *     requests still there at plx_finalize are freed by it.
 * Device (GPU) buffers are accepted; their runs take the plain start path
 * each time (NCCL or staging decide per run).
 */
plx_status_t plx_barrier_init(plx_comm_t comm, plx_request_t *req);
plx_status_t plx_bcast_init(void *buf, size_t count, plx_dtype_t dtype, int root, plx_comm_t comm,
                            plx_request_t *req);
plx_status_t plx_reduce_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                             plx_op_t op, int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_allreduce_init(const void *sendbuf, void *recvbuf, size_t count,
                                plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                plx_request_t *req);
plx_status_t plx_allgather_init(const void *sendbuf, void *recvbuf, size_t count,
                                plx_dtype_t dtype, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_reduce_scatter_init(const void *sendbuf, void *recvbuf, size_t recvcount,
                                     plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                     plx_request_t *req);
plx_status_t plx_alltoall_init(const void *sendbuf, void *recvbuf, size_t count,
                               plx_dtype_t dtype, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_gather_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                             int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_scatter_init(const void *sendbuf, void *recvbuf, size_t count,
                              plx_dtype_t dtype, int root, plx_comm_t comm, plx_request_t *req);
/* Persistent v-collectives and prefix reductions (MPI_Allgatherv_init,
 * ..., MPI_Scan_init, MPI_Exscan_init): the arguments, checks and in-place
 * rules of plx_iallgatherv, ..., plx_iexscan; started and completed as the
 * other persistent collectives (plx_allreduce_init, plx_start).  The
 * count and displacement arrays belong to the request: they must stay
 * valid and unchanged while it lives, until plx_request_free (as MPI-4
 * requires; the data buffers, not the arrays, may change between runs). */
plx_status_t plx_allgatherv_init(const void *sendbuf, size_t sendcount, void *recvbuf,
                                 const size_t recvcounts[], const size_t displs[],
                                 plx_dtype_t dtype, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_alltoallv_init(const void *sendbuf, const size_t sendcounts[],
                                const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                const size_t rdispls[], plx_dtype_t dtype, plx_comm_t comm,
                                plx_request_t *req);
plx_status_t plx_gatherv_init(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t recvcounts[], const size_t displs[], plx_dtype_t dtype,
                              int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_scatterv_init(const void *sendbuf, const size_t sendcounts[],
                               const size_t displs[], void *recvbuf, size_t recvcount,
                               plx_dtype_t dtype, int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_reduce_scatterv_init(const void *sendbuf, void *recvbuf,
                                      const size_t recvcounts[], plx_dtype_t dtype, plx_op_t op,
                                      plx_comm_t comm, plx_request_t *req);
plx_status_t plx_scan_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                           plx_op_t op, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_exscan_init(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                             plx_op_t op, plx_comm_t comm, plx_request_t *req);
/* Persistent send and receive (MPI_Send_init / MPI_Recv_init): each start
 * posts the transfer again, as plx_isend / plx_irecv would. */
plx_status_t plx_send_init(const void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                           plx_comm_t comm, plx_request_t *req);
plx_status_t plx_recv_init(void *buf, size_t count, plx_dtype_t dtype, int peer, int tag,
                           plx_comm_t comm, size_t *received, plx_request_t *req);

/* Start one inactive persistent request. */
plx_status_t plx_start(plx_request_t *req);
/* Start n of them in index order (all are checked first: a bad entry,
 * duplicates or requests of different contexts start none).  An error
 * while starting (transport) is returned and the entries after it are not
 * started. */
plx_status_t plx_startall(int n, plx_request_t reqs[]);

/* ---- more communicators, point to point, ending a job -------------------
 * The calls an MPI code ported to Plexus looks for next:
 * MPI_Comm_split_type(SHARED), MPI_Comm_create, MPI_Sendrecv,
 * MPI_Probe/MPI_Iprobe and MPI_Abort. */

/* Kinds of plx_comm_split_type. */
typedef enum {
    PLX_COMM_TYPE_NODE = 1  /* the ranks sharing this rank's node (as the transports see it:
                               hostname + kernel boot id, or PLX_NODE_ID when set) */
} plx_comm_type_t;

/*
 * Split comm into one communicator per node: *newcomm gets the ranks of
 * comm on this rank's node, ranked by key (ties by rank in comm), like
 * plx_comm_split with the node as colour.  Collective over comm.  type
 * PLX_UNDEFINED: this rank joins none (*newcomm = NULL).  Free the result
 * with plx_comm_free.  PLX_ERR_INVALID_ARG: bad comm, NULL newcomm, a type
 * that is neither PLX_COMM_TYPE_NODE nor PLX_UNDEFINED.
 */
plx_status_t plx_comm_split_type(plx_comm_t comm, int type, int key, plx_comm_t *newcomm);

/*
 * A communicator of the n ranks of comm listed in ranks[] (ranks of comm,
 * all different), ranked in list order: ranks[i] gets rank i.  Collective
 * over comm: every rank of comm calls it with the same list, and the ranks
 * not in the list get *newcomm = NULL (n = 0: all do).
 * PLX_ERR_INVALID_ARG: bad comm, NULL newcomm, n < 0 or n > size, ranks
 * NULL with n > 0, an entry out of range or listed twice (nothing is
 * exchanged: every rank passing the same list sees the same error).
 * PLX_ERR_MISMATCH on every rank when the ranks passed different lists
 * (with a message naming a rank that disagrees); no communicator is made.
 */
plx_status_t plx_comm_create(plx_comm_t comm, int n, const int ranks[], plx_comm_t *newcomm);

/*
 * Like plx_comm_create, but collective over the n listed ranks only (as
 * MPI_Comm_create_group): each rank of comm in ranks[] calls it with the
 * same list and tag, the others do not call it.  ranks[i] gets rank i.
 * The members agree on the new communicator among themselves over
 * point-to-point messages on comm, in a tag space of their own (no message,
 * probe or collective of the application on comm sees them); tag (0 ..
 * PLX_TAG_MAX) tells apart creations that run at the same time from
 * different threads over overlapping lists.  Groups with no rank in common
 * may create at the same time; so may other ranks of comm run any other
 * call meanwhile.  Free the result with plx_comm_free.
 * PLX_ERR_INVALID_ARG: bad comm, NULL newcomm, n < 1 or n > size, ranks
 * NULL, an entry out of range or listed twice, the calling rank not in the
 * list, tag < 0.  PLX_ERR_MISMATCH when the members passed different lists
 * (or the same ranks in another order) and the lowest listed rank, which
 * gathers them, sees it: on that rank and every member it heard from.  A
 * rank listed by some members but not calling (or the reverse) waits until
 * PLX_TIMEOUT: PLX_ERR_TIMEOUT.  Every wait is bounded by PLX_TIMEOUT.
 */
plx_status_t plx_comm_create_group(plx_comm_t comm, int n, const int ranks[], int tag,
                                   plx_comm_t *newcomm);

/*
 * Send sendcount elements to rank dest with sendtag and receive up to
 * recvcount elements from rank source with recvtag, both in flight at once
 * (so a ring shift cannot deadlock).  *received (may be NULL) gets the
 * element count that arrived.  The buffers must not overlap (dest or source
 * may be this rank).  The checks of plx_send and plx_recv apply to each
 * half; PLX_ERR_TRUNCATE as plx_recv.  Bounded by PLX_TIMEOUT.
 */
plx_status_t plx_sendrecv(const void *sendbuf, size_t sendcount, plx_dtype_t sendtype, int dest,
                          int sendtag, void *recvbuf, size_t recvcount, plx_dtype_t recvtype,
                          int source, int recvtag, plx_comm_t comm, size_t *received);
/* The same as one nonblocking request (plx_wait / plx_test ...; its status
 * is the receive's error if any, else the send's).  *received is written
 * when it completes.  req NULL: PLX_ERR_INVALID_ARG. */
plx_status_t plx_isendrecv(const void *sendbuf, size_t sendcount, plx_dtype_t sendtype, int dest,
                           int sendtag, void *recvbuf, size_t recvcount, plx_dtype_t recvtype,
                           int source, int recvtag, plx_comm_t comm, size_t *received,
                           plx_request_t *req);

/* Wildcards of plx_probe / plx_iprobe (not of plx_recv: receive from the
 * source and with the tag the probe reported). */
#define PLX_ANY_SOURCE (-1)
#define PLX_ANY_TAG    (-1)

/* What a probe found: the next message plx_recv(source, tag) would take. */
typedef struct plx_msg_info {
    int source;             /* rank in the communicator */
    int tag;
    size_t bytes;           /* its length (divide by plx_dtype_size for a count) */
} plx_msg_info_t;

/*
 * Look for a message from source with tag (either may be a wildcard) that
 * has arrived and not been received, without receiving it.  *found = 1
 * and *info filled if there is one (info may be NULL), else *found = 0.
 * Among several sources the lowest rank with a match is reported; from one
 * source, the oldest match (the one plx_recv takes first).  Moves
 * communication like plx_test.  PLX_ERR_INVALID_ARG: bad comm, NULL found,
 * source not a rank or PLX_ANY_SOURCE, tag negative other than PLX_ANY_TAG.
 */
plx_status_t plx_iprobe(int source, int tag, plx_comm_t comm, int *found, plx_msg_info_t *info);
/* Until such a message has arrived (then as plx_iprobe with *found = 1).
 * PLX_ERR_TIMEOUT after PLX_TIMEOUT seconds, PLX_ERR_PEER_FAILED when the
 * source (with PLX_ANY_SOURCE: every other rank) died, each with a message
 * naming the ranks it waited for. */
plx_status_t plx_probe(int source, int tag, plx_comm_t comm, plx_msg_info_t *info);

/*
 * End every rank of the job at once, as MPI_Abort: logs "rank R (world W)
 * called plx_abort with code C" and ends this process with exit status C
 * when C is 1..255, else 1 (never 0, so every launcher sees a failure).
 * Does not return (except PLX_ERR_INVALID_ARG for a bad comm).  comm names
 * the caller's communicator for the message; the whole job ends, as with
 * most MPI implementations.
 *   - under plexusrun: plexusrun reports "rank R called plx_abort with
 *     code C", stops every other rank at once (SIGTERM, then SIGKILL after
 *     1 s) and exits with the same status;
 *   - under other launchers (mpirun, srun): the launcher sees a failed rank
 *     and, as they do by default, kills the others; where it does not, the
 *     other ranks' calls that wait on the aborted rank end with
 *     PLX_ERR_PEER_FAILED within about 0.1 s of its death.
 * Nothing is left in /dev/shm.
 */
plx_status_t plx_abort(plx_comm_t comm, int code);

/* ---- information ------------------------------------------------------ */
/* Which algorithm and transport(s) the selector picks on comm for
 * `collective` ("allreduce", "bcast", ...) at `bytes` bytes (count x
 * datatype size as passed to the call).  The strings are static. */
plx_status_t plx_query_algorithm(plx_comm_t comm, const char *collective, size_t bytes,
                                 const char **algorithm, const char **transport);

/* "0.1.0 (shm ucx cuda nccl)": the version and the transports built in. */
const char *plx_version_string(void);

/* The version of the loaded library (compare with PLX_VERSION_* of the
 * header).  Any pointer may be NULL. */
plx_status_t plx_version(int *major, int *minor, int *patch);

/* ---- task graphs --------------------------------------------------------
 * A graph holds compute nodes (a C function and its argument) and
 * communication nodes (every collective, send and recv), joined by
 * dependencies.  It is built once, compiled once (checks, order, queues and
 * buffers set up), then launched any number of times; a launch allocates
 * nothing and makes no system call when a worker is already awake.
 *
 *   plx_graph_t g;
 *   plx_graph_node_t grad, ar, upd;
 *   plx_graph_create(ctx, &g);
 *   plx_graph_add_compute(g, backward, state, &grad);
 *   plx_graph_add_allreduce(g, PLX_IN_PLACE, grads, n, PLX_FLOAT32, PLX_SUM, world, &ar);
 *   plx_graph_add_compute(g, update, state, &upd);
 *   plx_graph_depend(g, grad, ar);
 *   plx_graph_depend(g, ar, upd);
 *   plx_graph_compile(g);
 *   for (step = 0; step < steps; step++)
 *       plx_graph_run(g);          // or plx_graph_launch(g, &req) ... plx_wait(&req)
 *   plx_graph_free(&g);
 *
 * Nodes are numbered 0, 1, 2, ... in the order they are added.  A compute
 * function returns 0 on success; anything else fails the launch.
 *
 * Execution.  Compute nodes run on a pool of worker threads of the context
 * (PLX_GRAPH_THREADS, default: the cores this process may use divided by
 * the ranks on its node, at least 1), shared by all its graphs.  A compute
 * node measured under PLX_GRAPH_INLINE_US (default 10) microseconds
 * executes inline in the thread driving the engine instead (a hand-off to a
 * worker and back costs more; its first run always goes to a worker, and
 * inline nodes are timed again at one launch in 16), and the thread inside
 * plx_graph_run also runs compute nodes when that delays no communication.  Communication nodes are posted to the
 * progress engine, never run on a worker: they move inside plx_wait /
 * plx_test / plx_graph_run (PLX_PROGRESS=caller) or on the progress thread
 * (PLX_PROGRESS=thread) while compute runs.  When a node completes, every
 * successor that became ready is dispatched at once (by the worker that
 * finished it, without waiting for the engine), in the order of the
 * graph's policy:
 *   PLX_GRAPH_COMM_FIRST (default): communication nodes are posted before
 *     the compute nodes that became ready in the same step; no ready compute
 *     node ever waits for communication to finish;
 *   PLX_GRAPH_COMPUTE_FIRST: compute nodes first (the right order when
 *     posting communication can block, as on a GPU stream);
 *   PLX_GRAPH_FIFO: the naive executor, for measuring: one queue in ready
 *     order, each compute or collective node run to completion before the
 *     next starts (send and recv nodes are only posted, as with isend/irecv:
 *     waiting for each would deadlock pairs that must be in flight together).
 * Higher priorities go first among nodes of the same kind (compute nodes
 * waiting for a worker are taken highest priority first).  The default
 * policy comes from PLX_GRAPH_POLICY=comm_first|compute_first|fifo.
 *
 * Matching across ranks.  Collective nodes are posted on every rank in the
 * same order per communicator, whatever the timing: compile computes one
 * topological order of the whole graph (Kahn's algorithm taking the lowest
 * node number first), and a ready collective node is posted only after
 * every collective node of its communicator earlier in that order (and
 * while fewer than PLX_GRAPH_COMM_WINDOW, default 2, of the graph's
 * collectives on that communicator are in flight).  So
 * every rank must build the same graph: the same add and depend calls in
 * the same order (buffers, data and compute functions may differ; kinds of
 * node, communicators and dependencies may not).  Send and recv nodes are
 * matched by peer and tag like plx_isend/plx_irecv and posted as soon as
 * they are ready: order two of them with the same peer and tag by a
 * dependency when their order matters.  While a launch runs, its
 * communicators must not be used by other collectives or by another graph
 * in flight (give each concurrent graph its own communicator: plx_comm_dup).
 *
 * Errors.  Every call checks its arguments like the plain calls
 * (PLX_ERR_INVALID_ARG and a one-line message naming the call and the
 * problem).  A failing compute node ends the launch with
 * PLX_ERR_COMPUTE_FAILED and a message naming the node: the compute nodes
 * not yet started are skipped, while the communication nodes still run (on
 * unfinished data) so that the other ranks are not left waiting and every
 * communicator stays matched; the graph may be launched again.  A failed
 * communication node ends the launch with its status (PLX_ERR_TIMEOUT,
 * PLX_ERR_PEER_FAILED, ...) once the nodes in flight have ended; nothing
 * more is started.  A launch that completes no node for PLX_TIMEOUT
 * seconds ends with PLX_ERR_TIMEOUT naming the nodes it waits for.
 *
 * Threads.  One thread at a time may build, compile, launch or free one
 * graph; different graphs may be used from different threads.  Compute
 * functions run on worker threads or inline inside the engine (with the
 * context's lock held), so they must not call plx_* functions of the same
 * context.
 */
typedef struct plx_graph *plx_graph_t;
typedef int plx_graph_node_t;
typedef int (*plx_graph_fn_t)(void *arg);

typedef enum {
    PLX_GRAPH_COMM_FIRST = 0,
    PLX_GRAPH_COMPUTE_FIRST,
    PLX_GRAPH_FIFO
} plx_graph_policy_t;

/* An empty graph of ctx, with the policy of PLX_GRAPH_POLICY.
 * PLX_ERR_INVALID_ARG for a bad ctx or a bad PLX_GRAPH_POLICY /
 * PLX_GRAPH_THREADS value. */
plx_status_t plx_graph_create(plx_context_t ctx, plx_graph_t *graph);

/* Add nodes (only before plx_graph_compile).  *node gets the new node's
 * number.  The communication nodes take exactly the arguments of the
 * nonblocking call of the same name (same checks, same in-place rules);
 * their buffers must stay valid while the graph may be launched, and are
 * read and written at each launch.  comm must belong to the graph's
 * context. */
plx_status_t plx_graph_add_compute(plx_graph_t g, plx_graph_fn_t fn, void *arg,
                                   plx_graph_node_t *node);
plx_status_t plx_graph_add_barrier(plx_graph_t g, plx_comm_t comm, plx_graph_node_t *node);
plx_status_t plx_graph_add_bcast(plx_graph_t g, void *buf, size_t count, plx_dtype_t dtype,
                                 int root, plx_comm_t comm, plx_graph_node_t *node);
plx_status_t plx_graph_add_reduce(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dtype, plx_op_t op, int root, plx_comm_t comm,
                                  plx_graph_node_t *node);
plx_status_t plx_graph_add_allreduce(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                     size_t count, plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                     plx_graph_node_t *node);
plx_status_t plx_graph_add_allgather(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                     size_t count, plx_dtype_t dtype, plx_comm_t comm,
                                     plx_graph_node_t *node);
plx_status_t plx_graph_add_reduce_scatter(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                          size_t recvcount, plx_dtype_t dtype, plx_op_t op,
                                          plx_comm_t comm, plx_graph_node_t *node);
plx_status_t plx_graph_add_alltoall(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                    size_t count, plx_dtype_t dtype, plx_comm_t comm,
                                    plx_graph_node_t *node);
plx_status_t plx_graph_add_gather(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dtype, int root, plx_comm_t comm,
                                  plx_graph_node_t *node);
plx_status_t plx_graph_add_scatter(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                   size_t count, plx_dtype_t dtype, int root, plx_comm_t comm,
                                   plx_graph_node_t *node);
plx_status_t plx_graph_add_send(plx_graph_t g, const void *buf, size_t count, plx_dtype_t dtype,
                                int peer, int tag, plx_comm_t comm, plx_graph_node_t *node);
/* *received (may be NULL) is written at each launch when the node completes. */
plx_status_t plx_graph_add_recv(plx_graph_t g, void *buf, size_t count, plx_dtype_t dtype,
                                int peer, int tag, plx_comm_t comm, size_t *received,
                                plx_graph_node_t *node);

/* `after` starts only when `before` has completed (before compile).  Unknown
 * node numbers and a node depending on itself: PLX_ERR_INVALID_ARG. */
plx_status_t plx_graph_depend(plx_graph_t g, plx_graph_node_t before, plx_graph_node_t after);
/* Higher goes first (default 0; before compile). */
plx_status_t plx_graph_set_priority(plx_graph_t g, plx_graph_node_t node, int priority);
/* This graph's policy (any time no launch is in flight; every rank should
 * use the same one). */
plx_status_t plx_graph_set_policy(plx_graph_t g, plx_graph_policy_t policy);

/* Check the graph and set it up for launching; local (not collective).
 * PLX_ERR_INVALID_ARG with a message for a dependency cycle (naming its
 * nodes) or a communicator freed since its node was added.  Compiling a
 * compiled graph does nothing; a compiled graph takes no more nodes or
 * dependencies.  The context's worker threads start at its first compile. */
plx_status_t plx_graph_compile(plx_graph_t g);

/* Start one execution of a compiled graph; *req is an ordinary request
 * (plx_wait / plx_test / plx_waitall ...; its status is the launch's).
 * PLX_ERR_INVALID_ARG if the graph is not compiled, still running an
 * earlier launch, or one of its communicators was freed. */
plx_status_t plx_graph_launch(plx_graph_t g, plx_request_t *req);
/* plx_graph_launch + wait, the calling thread helping with compute nodes
 * (see Execution above).  Returns the launch's status. */
plx_status_t plx_graph_run(plx_graph_t g);

/* Free a graph that is not running (PLX_ERR_INVALID_ARG while a launch is
 * in flight); *g becomes NULL.  The context's worker threads end with its
 * last graph.  Free graphs before plx_finalize. */
plx_status_t plx_graph_free(plx_graph_t *g);

/* Timing, for profiling and tests: when on (off by default; any time no
 * launch is in flight), every node of each launch records when it started
 * and ended (compute: around the function; communication: posted, and seen
 * complete), in seconds of CLOCK_MONOTONIC; plx_graph_node_times gives the
 * last launch's (0 for a node that did not run). */
plx_status_t plx_graph_set_timing(plx_graph_t g, int on);
plx_status_t plx_graph_node_times(plx_graph_t g, plx_graph_node_t node, double *start,
                                  double *end);

/* ---- GPU buffers (CUDA) ------------------------------------------------
 * Built with CUDA (configure --with-cuda), every collective accepts CUDA
 * device pointers (cudaMalloc'd or managed memory) as well as host ones:
 * the memory type of each buffer is detected (cudaPointerGetAttributes) or
 * set per communicator (plx_comm_set_mem_type).  Device collectives run
 * through NCCL when it was built (--with-nccl) and every rank of the
 * communicator has a GPU of its own; otherwise (ranks sharing one GPU, no
 * NCCL, PLX_NCCL=0, or a bitwise op, which NCCL lacks) the buffers are
 * staged through pinned host memory and the host algorithm runs over
 * shm/UCX: correct, slower.  plx_query_algorithm_device says which.
 *
 * Rules:
 *   - all buffers one rank passes to one call are of one kind (device or
 *     host; mixing them: PLX_ERR_INVALID_ARG) and on one GPU, the GPU of
 *     the communicator's first device collective;
 *   - every rank passes the same kind (a device call on one rank never
 *     matches a host call on another: PLX_ERR_TIMEOUT);
 *   - the plain calls (plx_allreduce, plx_iallreduce, ...) read device
 *     inputs after the work already submitted to the legacy default stream
 *     (Plexus' internal stream synchronises with it; work on other streams
 *     must be finished, as with CUDA-aware MPI) and complete when the
 *     results are in device memory; the nonblocking form completes through
 *     the progress engine, which polls a CUDA event (no thread blocks);
 *   - the first device collective on a communicator sets it up
 *     (collective: rank 0 makes the NCCL unique id, a host bcast on the
 *     communicator hands it out, then a nonblocking NCCL init), so it takes
 *     longer; later ones start at once;
 *   - NCCL's asynchronous errors and dead peers end device collectives
 *     with PLX_ERR_TRANSPORT / PLX_ERR_PEER_FAILED (NCCL's message logged;
 *     the NCCL communicator is aborted and later device collectives on that
 *     communicator fail at once); a stuck one ends with PLX_ERR_TIMEOUT.
 * Point-to-point calls (plx_send, plx_recv, ...) take host buffers only.
 * Without CUDA, or with no usable device, device buffers cannot exist:
 * the host path is unchanged and makes no CUDA call at all.
 */
typedef enum {
    PLX_MEM_AUTO = 0,       /* detect each buffer's type (default) */
    PLX_MEM_HOST,           /* every buffer is host memory: skip detection */
    PLX_MEM_DEVICE          /* every buffer is device memory: skip detection */
} plx_mem_type_t;

/* Set the memory type of every buffer later passed to collectives on comm
 * (local; each rank may set it).  PLX_MEM_DEVICE when no CUDA device is
 * usable: PLX_ERR_NOT_SUPPORTED. */
plx_status_t plx_comm_set_mem_type(plx_comm_t comm, plx_mem_type_t type);

/* *usable = 1 if this context uses a CUDA device for device buffers (CUDA
 * built, a device present, PLX_CUDA not 0), else 0. */
plx_status_t plx_query_device(plx_context_t ctx, int *usable);

/* What plx_query_algorithm says, for device buffers: algorithm "nccl" and
 * transport "nccl", or the host algorithm and "staged/shm" ("staged/ucx",
 * "staged/shm+ucx") when device buffers are staged through host memory;
 * before the first device collective on comm decided it, "pending" and
 * "nccl|staged".  PLX_ERR_NOT_SUPPORTED when no device is usable. */
plx_status_t plx_query_algorithm_device(plx_comm_t comm, const char *collective, size_t bytes,
                                        const char **algorithm, const char **transport);

/* Stream-ordered collectives, for code that wants NCCL's semantics: the
 * collective reads its inputs after the work already on `stream` and work
 * later put on `stream` sees its results; the call returns once the
 * collective is enqueued (through NCCL; the first call on a communicator
 * also waits for its setup).  Buffers must be device memory.  When device
 * buffers are staged (see above) the call waits on the host until the
 * collective has run and enqueues only the copy back on `stream`.
 * plx_cuda_stream_t is cudaStream_t (pass one directly; NULL: the legacy
 * default stream).  Same arguments, checks and in-place rules as the
 * blocking calls.  PLX_ERR_NOT_SUPPORTED without a usable CUDA device. */
struct CUstream_st;
typedef struct CUstream_st *plx_cuda_stream_t;

plx_status_t plx_bcast_on_stream(void *buf, size_t count, plx_dtype_t dtype, int root,
                                 plx_comm_t comm, plx_cuda_stream_t stream);
plx_status_t plx_reduce_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dtype, plx_op_t op, int root, plx_comm_t comm,
                                  plx_cuda_stream_t stream);
plx_status_t plx_allreduce_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                     plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                     plx_cuda_stream_t stream);
plx_status_t plx_allgather_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                     plx_dtype_t dtype, plx_comm_t comm, plx_cuda_stream_t stream);
plx_status_t plx_reduce_scatter_on_stream(const void *sendbuf, void *recvbuf, size_t recvcount,
                                          plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                          plx_cuda_stream_t stream);
plx_status_t plx_alltoall_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                    plx_dtype_t dtype, plx_comm_t comm, plx_cuda_stream_t stream);
plx_status_t plx_gather_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dtype, int root, plx_comm_t comm,
                                  plx_cuda_stream_t stream);
plx_status_t plx_scatter_on_stream(const void *sendbuf, void *recvbuf, size_t count,
                                   plx_dtype_t dtype, int root, plx_comm_t comm,
                                   plx_cuda_stream_t stream);

/* ---- per-rank counts, prefix reductions, user-defined ops -----------------
 * The v-collectives take a count and a displacement per rank, both in
 * elements of dtype (displacements from the start of the buffer; blocks
 * may come in any order and with gaps).  Count and displacement arrays
 * have comm-size entries; they are read during the call only (the
 * nonblocking forms and graph nodes keep what they need), so they may be
 * changed or freed as soon as the call returns.  Blocks a call writes must
 * not overlap one another (PLX_ERR_INVALID_ARG); blocks it only reads may.
 * A rank may contribute or receive 0 elements; its buffer may then be
 * NULL.  The counts of one rank's block must agree on every rank that
 * names it (as in MPI).  Disagreeing counts are detected where a message
 * arrives with another size than its receiver expects: the call fails
 * there (PLX_ERR_TRUNCATE or PLX_ERR_INTERNAL, with a line naming the
 * sender and both sizes), and ranks waiting on that one may end with
 * PLX_ERR_TIMEOUT or PLX_ERR_PEER_FAILED.  Errors as for the
 * equal-count forms, plus PLX_ERR_INVALID_ARG for a NULL count or
 * displacement array that the call reads, a count or block end
 * (displacement + count) that overflows the address space (a negative
 * int converted to size_t), and a sendcount that differs from this rank's
 * own entry in recvcounts where the call has both.
 */

/* Every rank contributes sendcount elements; recvbuf gets rank r's block
 * (recvcounts[r] elements) at recvbuf + displs[r].  sendcount must equal
 * recvcounts[rank].  In place: sendbuf = PLX_IN_PLACE, this rank's block
 * already sits at recvbuf + displs[rank] (sendcount is ignored). */
plx_status_t plx_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                            const size_t recvcounts[], const size_t displs[], plx_dtype_t dtype,
                            plx_comm_t comm);

/* Rank i sends sendcounts[j] elements from sendbuf + sdispls[j] to rank j,
 * which receives them (recvcounts[i] elements, equal to it) at recvbuf +
 * rdispls[i].  In place: sendbuf = PLX_IN_PLACE (sendcounts and sdispls
 * ignored, may be NULL): the data to send is taken from recvbuf with
 * recvcounts and rdispls, and replaced by what arrives. */
plx_status_t plx_alltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[],
                           void *recvbuf, const size_t recvcounts[], const size_t rdispls[],
                           plx_dtype_t dtype, plx_comm_t comm);

/* Root's recvbuf gets rank r's sendcount elements at recvbuf + displs[r]
 * (recvcounts[r] elements).  recvbuf, recvcounts and displs matter only at
 * root (may be NULL elsewhere).  In place: root passes PLX_IN_PLACE as
 * sendbuf, its block already sits at recvbuf + displs[root]. */
plx_status_t plx_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                         const size_t recvcounts[], const size_t displs[], plx_dtype_t dtype,
                         int root, plx_comm_t comm);

/* Rank r's recvbuf gets recvcount (= root's sendcounts[r]) elements from
 * root's sendbuf + displs[r].  sendbuf, sendcounts and displs matter only
 * at root.  In place: root passes PLX_IN_PLACE as recvbuf and its block
 * stays in sendbuf. */
plx_status_t plx_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                          void *recvbuf, size_t recvcount, plx_dtype_t dtype, int root,
                          plx_comm_t comm);

/* MPI_Reduce_scatter: reduce the N = sum(recvcounts) elements of sendbuf
 * over all ranks; rank r gets recvcounts[r] elements, the block starting
 * at element recvcounts[0] + ... + recvcounts[r-1] of the result (same
 * recvcounts on every rank).  In place: sendbuf = PLX_IN_PLACE, the N
 * input elements are in recvbuf and the result is written to its first
 * recvcounts[rank] elements.  (plx_reduce_scatter is the equal-block
 * form.) */
plx_status_t plx_reduce_scatterv(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                 plx_dtype_t dtype, plx_op_t op, plx_comm_t comm);

/* Inclusive prefix reduction: rank r's recvbuf gets sendbuf(0) op
 * sendbuf(1) op ... op sendbuf(r), element by element, combined in rank
 * order.  AVG divides by the number of ranks combined (r + 1).  In place:
 * sendbuf = PLX_IN_PLACE, input taken from recvbuf. */
plx_status_t plx_scan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                      plx_op_t op, plx_comm_t comm);
/* Exclusive prefix reduction: rank r > 0 gets sendbuf(0) op ... op
 * sendbuf(r-1) (AVG: divided by r); rank 0's recvbuf is not written (it
 * may be NULL there).  In place as plx_scan. */
plx_status_t plx_exscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                        plx_op_t op, plx_comm_t comm);

plx_status_t plx_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                             const size_t recvcounts[], const size_t displs[], plx_dtype_t dtype,
                             plx_comm_t comm, plx_request_t *req);
plx_status_t plx_ialltoallv(const void *sendbuf, const size_t sendcounts[], const size_t sdispls[],
                            void *recvbuf, const size_t recvcounts[], const size_t rdispls[],
                            plx_dtype_t dtype, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                          const size_t recvcounts[], const size_t displs[], plx_dtype_t dtype,
                          int root, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_iscatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                           void *recvbuf, size_t recvcount, plx_dtype_t dtype, int root,
                           plx_comm_t comm, plx_request_t *req);
plx_status_t plx_ireduce_scatterv(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                  plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                  plx_request_t *req);
plx_status_t plx_iscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                       plx_op_t op, plx_comm_t comm, plx_request_t *req);
plx_status_t plx_iexscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dtype,
                         plx_op_t op, plx_comm_t comm, plx_request_t *req);

/* Graph nodes of the same calls (see "task graphs" above); the count and
 * displacement arrays are copied when the node is added. */
plx_status_t plx_graph_add_allgatherv(plx_graph_t g, const void *sendbuf, size_t sendcount,
                                      void *recvbuf, const size_t recvcounts[],
                                      const size_t displs[], plx_dtype_t dtype, plx_comm_t comm,
                                      plx_graph_node_t *node);
plx_status_t plx_graph_add_alltoallv(plx_graph_t g, const void *sendbuf, const size_t sendcounts[],
                                     const size_t sdispls[], void *recvbuf,
                                     const size_t recvcounts[], const size_t rdispls[],
                                     plx_dtype_t dtype, plx_comm_t comm, plx_graph_node_t *node);
plx_status_t plx_graph_add_gatherv(plx_graph_t g, const void *sendbuf, size_t sendcount,
                                   void *recvbuf, const size_t recvcounts[], const size_t displs[],
                                   plx_dtype_t dtype, int root, plx_comm_t comm,
                                   plx_graph_node_t *node);
plx_status_t plx_graph_add_scatterv(plx_graph_t g, const void *sendbuf, const size_t sendcounts[],
                                    const size_t displs[], void *recvbuf, size_t recvcount,
                                    plx_dtype_t dtype, int root, plx_comm_t comm,
                                    plx_graph_node_t *node);
plx_status_t plx_graph_add_reduce_scatterv(plx_graph_t g, const void *sendbuf, void *recvbuf,
                                           const size_t recvcounts[], plx_dtype_t dtype,
                                           plx_op_t op, plx_comm_t comm, plx_graph_node_t *node);
plx_status_t plx_graph_add_scan(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                plx_graph_node_t *node);
plx_status_t plx_graph_add_exscan(plx_graph_t g, const void *sendbuf, void *recvbuf, size_t count,
                                  plx_dtype_t dtype, plx_op_t op, plx_comm_t comm,
                                  plx_graph_node_t *node);

/*
 * User-defined reduction ops, usable wherever a plx_op_t is (every
 * reducing collective, i-form and graph node; host buffers, and device
 * buffers through host staging since NCCL has no user ops).
 * fn(in, inout, count, dtype, user) must set inout[i] = in[i] op inout[i]
 * for i < count, where in holds the combination of lower ranks than inout
 * (MPI_User_function's convention); op must be associative.  count may be
 * any size (long vectors come in pieces); the pointers need not be aligned
 * beyond what the caller's buffers are; in and inout never overlap.  fn is
 * called from inside the library (any thread that drives progress, with
 * the context's lock held): it must not call plx_* functions.
 * commutative = 0 declares that the order matters: every collective then
 * combines in rank order (rank 0 op rank 1 op ...), with algorithms that
 * keep that order (plexus_info --algorithms marks them); commutative = 1 lets
 * every algorithm run.  user is passed to fn unchanged.  Handles are
 * process-wide (any context) and every rank must create its ops in the
 * same order to pass matching handles.  PLX_ERR_INVALID_ARG: fn or op
 * NULL; PLX_ERR_NO_MEMORY: more than 16384 ops created in this process.
 */
#define PLX_OP_USER_BASE 256
#define PLX_OP_NULL ((plx_op_t)-1)
typedef void (*plx_op_fn_t)(const void *in, void *inout, size_t count, plx_dtype_t dtype,
                            void *user);
plx_status_t plx_op_create(plx_op_fn_t fn, int commutative, void *user, plx_op_t *op);
/* Stop new calls from using *op (they get PLX_ERR_INVALID_ARG) and set it to
 * PLX_OP_NULL; collectives already started with it finish with it.
 * PLX_ERR_INVALID_ARG for a built-in, freed or unknown op. */
plx_status_t plx_op_free(plx_op_t *op);

#ifdef __cplusplus
}
#endif
#endif /* PLEXUS_H */
