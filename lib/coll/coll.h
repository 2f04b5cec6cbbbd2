/*
 * lib/coll/coll.h — the collective algorithms, each a schedule builder.
 *
 * Every algorithm has the same shape: given a fresh schedule on a
 * communicator and the collective's arguments (exactly as the user passed
 * them, PLX_IN_PLACE included), it appends the rounds and steps that carry
 * the collective out (see lib/sched.h).  It never talks to a transport and
 * never waits: the progress engine runs the schedule.  The table
 * plx_coll_algos lists them all by name; the selector (lib/select.c) picks
 * one per call from it, and PLX_TUNE names them.
 *
 * Contracts every builder keeps:
 *  - correct for every communicator size (1 and non-powers of two), count 0,
 *    counts not divisible by the size, in place, every datatype and op
 *    (AVG: reduce with SUM, then sched_avg on the final result);
 *  - buffers of ranks where the API says "ignored" (recvbuf of reduce at a
 *    non-root, sendbuf of scatter at a non-root, ...) are never touched;
 *  - the user's send buffer is never written;
 *  - a rank posts its receives from a given peer in the order that peer
 *    sends (all messages of a schedule share one tag).
 */
#ifndef PLX_COLL_H
#define PLX_COLL_H

#include "sched.h"

typedef enum {
    PLX_COLL_BARRIER = 0,
    PLX_COLL_BCAST,
    PLX_COLL_REDUCE,
    PLX_COLL_ALLREDUCE,
    PLX_COLL_ALLGATHER,
    PLX_COLL_REDUCE_SCATTER,
    PLX_COLL_ALLTOALL,
    PLX_COLL_GATHER,
    PLX_COLL_SCATTER,
    PLX_COLL_COUNT
} plx_coll_t;

/* "allreduce" etc.; NULL if out of range. */
const char *plx_coll_name(plx_coll_t c);
/* -1 if unknown. */
int plx_coll_from_name(const char *name);

typedef struct coll_args {
    plx_coll_t coll;
    const void *sbuf;          /* may be PLX_IN_PLACE where the API allows */
    void *rbuf;                /* may be PLX_IN_PLACE for scatter at root */
    size_t count;              /* elements, as in the public API of this collective */
    plx_dtype_t dt;
    plx_op_t op;               /* reductions only */
    int root;                  /* rooted collectives only */
} coll_args_t;

typedef plx_status_t (*coll_build_fn)(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

typedef struct coll_algo {
    plx_coll_t coll;
    const char *name;          /* "ring", "recursive_doubling", ... */
    coll_build_fn build;
    const char *summary;       /* one line for plexus_info */
} coll_algo_t;

/* All algorithms, terminated by an entry with name == NULL. */
extern const coll_algo_t plx_coll_algos[];
const coll_algo_t *coll_algo_find(plx_coll_t coll, const char *name);

/* Builders (lib/coll/<collective>.c). */
plx_status_t coll_barrier_dissemination(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_bcast_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_bcast_scatter_allgather(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatter_gather(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allreduce_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allreduce_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allreduce_rabenseifner(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allgather_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allgather_bruck(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatter_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatter_recursive_halving(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_alltoall_pairwise(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_alltoall_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_gather_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_gather_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_scatter_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_scatter_binomial(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

#endif /* PLX_COLL_H */
