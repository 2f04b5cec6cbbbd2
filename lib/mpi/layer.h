/*
 * lib/mpi/layer.h — what the files of libplexus-mpi share.
 *
 * libplexus-mpi is an MPI profiling-interface (PMPI) library: it defines
 * MPI_Allreduce, MPI_Wait, ... and sends each call either to Plexus or on
 * to the PMPI_ function of the MPI it was built for.  It uses the public
 * Plexus API only (plexus.h), never the library's internals.
 *
 * The files: init.c (MPI_Init, MPI_Init_thread, MPI_Finalize: Plexus up and down),
 * policy.c (PLX_MPI / PLX_MPI_COLLS, the default routing table, the
 * counters and the PLX_LOG=info summary), comm_mirror.c (the Plexus
 * communicator behind each MPI communicator, made at its first routed
 * collective), dtype_map.c (datatypes, ops, packing of
 * non-contiguous buffers), errors.c (Plexus status -> MPI error),
 * requests.c (nonblocking collectives as MPI requests, MPI_Wait & co.),
 * call.c (one start/finish path for every routed call), and one file of
 * interceptors per collective family (coll_sync.c, coll_reduce.c,
 * coll_move.c, coll_vector.c: the v-forms, coll_scan.c), op_user.c
 * (MPI_Op_create'd ops as Plexus user ops).  Everything not MPI_* is hidden (libtool
 * -export-symbols-regex).
 */
#ifndef PLX_MPI_LAYER_H
#define PLX_MPI_LAYER_H

#include <mpi.h>
#include <plexus.h>

#include <stdatomic.h>
#include <stddef.h>

/* The collectives the layer can route (routing rows and one counter line
 * each).  A new Plexus collective adds a name here, in coll_names
 * (policy.c), and an interceptor. */
typedef enum {
    PM_BARRIER = 0,
    PM_BCAST,
    PM_REDUCE,
    PM_ALLREDUCE,
    PM_ALLGATHER,
    PM_REDUCE_SCATTER,      /* MPI_Reduce_scatter_block, and MPI_Reduce_scatter with equal counts */
    PM_ALLTOALL,
    PM_GATHER,
    PM_SCATTER,
    PM_ALLGATHERV,
    PM_ALLTOALLV,
    PM_GATHERV,
    PM_SCATTERV,
    PM_REDUCE_SCATTERV,     /* MPI_Reduce_scatter with unequal counts */
    PM_SCAN,
    PM_EXSCAN,
    PM_NCOLL
} pm_coll_t;

/* Where a call went and why (the summary counts calls and bytes by these). */
typedef enum {
    PM_TO_PLEXUS = 0,
    PM_WHY_COLL,            /* PLX_MPI_COLLS leaves this collective to MPI */
    PM_WHY_COMM,            /* the communicator has no Plexus twin (intercommunicator, ...) */
    PM_WHY_LAZY,            /* nonblocking, and no blocking routed call made the twin yet */
    PM_WHY_TYPE,            /* a datatype Plexus cannot reduce */
    PM_WHY_OP,              /* an op Plexus does not have (or not for this type) */
    PM_WHY_SIZE,            /* the routing table says MPI is faster at this size */
    PM_WHY_UNMEASURED,      /* no routing-table rows yet (PLX_MPI_COLLS must name it) */
    PM_WHY_ARGS,            /* arguments MPI must judge (negative count, ...) */
    PM_NWHY
} pm_why_t;

/* returned by the layer's start functions: the call goes on to PMPI_ */
#define PM_FALL (-1)

/* ---- process-wide state (init.c) ---- */
typedef struct pm_state {
    int active;             /* Plexus is up and the layer routes */
    plx_context_t ctx;
    MPI_Comm oob;           /* private duplicate of MPI_COMM_WORLD (Plexus' bootstrap, progress pokes) */
    int world_rank;
    int thread_level;       /* what MPI provided */
} pm_state_t;
extern pm_state_t pm;

/* ---- policy.c ---- */
/* Parse PLX_MPI and PLX_MPI_COLLS; -1 with a message in err for a bad value. */
int pm_policy_load(int *enabled, char *err, size_t errlen);
/* PM_TO_PLEXUS, PM_WHY_COLL or PM_WHY_SIZE for `bytes` (the size as perf/
 * counts it: the whole result of allgather/gather, ...) on `ranks` ranks. */
pm_why_t pm_policy_route(pm_coll_t coll, size_t bytes, int ranks);
void pm_count(pm_coll_t coll, pm_why_t why, size_t bytes);
const char *pm_coll_name(pm_coll_t coll);
/* PLX_LOG=info (or more): rank 0 prints its counters; debug: every rank. */
void pm_summary_print(void);
/* PLX_LOG at info or above */
int pm_log_info(void);

/* ---- comm_mirror.c ---- */
typedef struct pm_mirror {
    plx_comm_t pc;
    int size;
    int is_world;           /* the context's world communicator: never freed by the layer */
    _Atomic int refs;       /* the attribute's, plus one per call or request using it */
    int mpi_freed;          /* the MPI communicator is gone (no error handler to call) */
    size_t *scratch;        /* MPI int counts as size_t for the v-forms (one call at a time per communicator, as MPI requires) */
    struct pm_mirror *next;
} pm_mirror_t;
int pm_mirror_init(void);               /* keyval; MPI_COMM_WORLD's twin */
void pm_mirror_finalize(void);
/* The twin of comm, or NULL (no twin: the call stays with MPI).  make: a
 * blocking routed collective, where every rank of comm is present, so a
 * missing twin is made now (collective over comm; comm_mirror.c).  A
 * reference is taken for the caller (pm_mirror_unref). */
pm_mirror_t *pm_mirror_get(MPI_Comm comm, int make);
void pm_mirror_unref(pm_mirror_t *m);
/* arrays * size size_t entries of m's scratch, or NULL (no memory) */
size_t *pm_mirror_scratch(pm_mirror_t *m, int arrays);
/* comm was looked at already: it has a twin, or can have none */
int pm_mirror_known(MPI_Comm comm);
/* twins made so far (the summary) */
unsigned long pm_mirror_made(void);

/* ---- dtype_map.c ---- */
/* PM_TO_PLEXUS with *pdt and *pop set, or PM_WHY_TYPE / PM_WHY_OP. */
pm_why_t pm_map_reduction(MPI_Datatype dt, MPI_Op op, plx_dtype_t *pdt, plx_op_t *pop);
/* A buffer handed to Plexus as plain bytes: the user's own when the
 * datatype is dense, else a packed copy (unpacked at the end when out). */
typedef struct pm_stage {
    void *user;
    int count, nblocks;
    MPI_Datatype type;
    void *tmp;              /* NULL when the user's buffer is used directly */
    size_t bytes;
    int out;                /* unpack into user at the end */
    int dup;                /* type is our duplicate (freed at the end) */
    const int *vcounts, *vdispls;   /* v-form: block i is vcounts[i] elements at vdispls[i] */
} pm_stage_t;
/* nblocks blocks of count elements (block i at buf + i*count*extent);
 * *ptr gets the bytes to hand to Plexus; an MPI error code on failure. */
int pm_stage_open(pm_stage_t *s, const void *buf, int count, int nblocks, MPI_Datatype type,
                  int copy_in, int copy_out, void **ptr);
/* v-form: n blocks, counts[i] elements at buf + displs[i] * extent; fills
 * bcounts and bdispls (bytes from *ptr) for Plexus.  Negative
 * displacements are fine (the base moves down). */
int pm_stage_open_v(pm_stage_t *s, const void *buf, const int *counts, const int *displs, int n,
                    MPI_Datatype type, int copy_in, int copy_out, void **ptr, size_t *bcounts,
                    size_t *bdispls);
int pm_stage_close(pm_stage_t *s);      /* unpack (if out) and free */
/* bytes of one element of type, or -1 */
long pm_type_size(MPI_Datatype type);
void *pm_in_place(const void *buf);     /* MPI_IN_PLACE -> PLX_IN_PLACE */

/* ---- op_user.c ---- */
/* The Plexus twin of MPI_Op_create'd op for predefined type dt (made at
 * first use); 0 when op is not a user op this layer saw created. */
int pm_user_op(MPI_Op op, MPI_Datatype dt, plx_op_t *pop);
void pm_user_ops_finalize(void);

/* ---- errors.c ---- */
void pm_errors_init(void);
int pm_error_code(plx_status_t st);
/* Hand a Plexus failure to comm's error handler; returns the MPI code. */
int pm_raise(MPI_Comm comm, plx_status_t st);

/* ---- call.c: one routed call from start to end ---- */
typedef struct pm_call {
    pm_coll_t coll;
    MPI_Comm comm;
    int size, rank;         /* of comm (MPI's answer: the twin has the same ranks) */
    int blocking;           /* a blocking call: may make the twin (comm_mirror.c) */
    pm_mirror_t *m;         /* the twin, once routed */
    pm_stage_t stage[2];
    int nstage;
} pm_call_t;
/* 0 when the call must stay with MPI at once (layer off, intercommunicator:
 * counted); else fills size and rank. */
int pm_call_begin(pm_call_t *c, pm_coll_t coll, MPI_Comm comm, MPI_Request *mreq);
/* Decide from a prior reason, the routing table and the twin (looked up
 * last: the cheap tests first keep fall-through calls cheap); counts;
 * 1 with c->m set, or 0: fall through. */
int pm_call_route(pm_call_t *c, pm_why_t why, size_t bytes);
/* After plx_i*: blocking (mreq NULL) waits, nonblocking makes *mreq.  Any
 * failure goes to the communicator's error handler.  Returns an MPI code. */
int pm_call_finish(pm_call_t *c, plx_status_t started, plx_request_t preq, MPI_Request *mreq);
/* Wind up a call that could not be started (staging failed). */
int pm_call_abandon(pm_call_t *c, int mpi_code);

/* ---- requests.c ---- */
void pm_progress(void);                 /* complete the MPI requests of finished Plexus ones */
void pm_poke_mpi(void);                 /* let MPI's own progress engine run once */
void pm_drain(void);                    /* MPI_Finalize: every bridged request done */
int pm_bridge(pm_call_t *c, plx_request_t preq, MPI_Request *mreq);

#endif /* PLX_MPI_LAYER_H */
