/*
 * lib/coll/coll.h — the collective algorithms, each a schedule builder.
 *
 * Every algorithm has the same shape: given a fresh schedule on a
 * communicator and the collective's arguments (exactly as the user passed
 * them, PLX_IN_PLACE included), it appends the rounds and steps that carry
 * the collective out (see lib/engine/sched.h).  It never talks to a transport and
 * never waits: the progress engine runs the schedule.  The table
 * plx_coll_algos lists them all by name; the selector (lib/coll/select.c) picks
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

#include "engine/sched.h"

#include <stdio.h>

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
    /* issue 14: per-rank counts and prefix reductions */
    PLX_COLL_ALLGATHERV,
    PLX_COLL_ALLTOALLV,
    PLX_COLL_GATHERV,
    PLX_COLL_SCATTERV,
    PLX_COLL_REDUCE_SCATTERV,
    PLX_COLL_SCAN,
    PLX_COLL_EXSCAN,
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
    /* The v-forms: per-rank counts and displacements, in elements (NULL
     * where the API says they are ignored); count is as the call passed it
     * (coll_select_count gives what the selector sees).  Builders read the arrays only
     * while building, so a nonblocking call does not keep them; a graph
     * node owns copies (owned: one block holding them, freed with it).
     *   allgatherv       count = sendcount; rcounts, rdispls
     *   gatherv          count = sendcount; rcounts, rdispls at root
     *   scatterv         count = recvcount; scounts, sdispls at root
     *   alltoallv        scounts, sdispls (NULL in place), rcounts, rdispls
     *   reduce_scatterv  rcounts (block r starts at the sum of rcounts[<r]) */
    const size_t *scounts, *sdispls;
    const size_t *rcounts, *rdispls;
    void *owned;
} coll_args_t;

/* 1 for the collectives that take per-rank counts (fields above). */
static inline int coll_is_v(plx_coll_t c)
{
    return c >= PLX_COLL_ALLGATHERV && c <= PLX_COLL_REDUCE_SCATTERV;
}

/* 1 where every rank knows whether the whole collective moves nothing
 * (count 0 on every rank): then a rank may skip it without a schedule.
 * Not for alltoallv, gatherv and scatterv, where one rank's counts can be
 * all zero while others still send (every rank must build the schedule:
 * it takes the communicator's sequence number). */
static inline int coll_count_agreed(plx_coll_t c)
{
    return c != PLX_COLL_ALLTOALLV && c != PLX_COLL_GATHERV && c != PLX_COLL_SCATTERV;
}

static inline size_t coll_sum_counts(const size_t *c, int n)
{
    size_t s = 0;
    for (int i = 0; c && i < n; i++) s += c[i];
    return s;
}

/* The element count the selector sees (bytes = this x datatype size; see
 * select.h) and a skip is decided on: count for the equal-count forms;
 * allgatherv, reduce_scatterv: the total over all ranks (known to every
 * rank); alltoallv: the larger of this rank's send and receive totals;
 * gatherv, scatterv: this rank's own block. */
static inline size_t coll_select_count(plx_comm_t comm, const coll_args_t *a)
{
    int p = comm->size, r = comm->rank;
    switch (a->coll) {
    case PLX_COLL_ALLGATHERV:
    case PLX_COLL_REDUCE_SCATTERV:
        return coll_sum_counts(a->rcounts, p);
    case PLX_COLL_ALLTOALLV: {
        size_t rn = coll_sum_counts(a->rcounts, p);
        size_t sn = a->sbuf == PLX_IN_PLACE ? rn : coll_sum_counts(a->scounts, p);
        return sn > rn ? sn : rn;
    }
    case PLX_COLL_GATHERV:
        return a->sbuf == PLX_IN_PLACE && a->rcounts ? a->rcounts[r] : a->count;
    case PLX_COLL_SCATTERV:
        return a->rbuf == PLX_IN_PLACE && a->scounts ? a->scounts[r] : a->count;
    default:
        return a->count;
    }
}

/* 1 if the call moves nothing on any rank and every rank knows it: it is
 * completed at once, without a schedule. */
static inline int coll_skips(plx_comm_t comm, const coll_args_t *a)
{
    return a->coll != PLX_COLL_BARRIER && coll_count_agreed(a->coll) && coll_select_count(comm, a) == 0;
}

/* 1 for the collectives that combine with an op (reduce, allreduce,
 * reduce_scatter[v], scan, exscan). */
static inline int coll_is_reduction(plx_coll_t c)
{
    return c == PLX_COLL_REDUCE || c == PLX_COLL_ALLREDUCE || c == PLX_COLL_REDUCE_SCATTER ||
           c == PLX_COLL_REDUCE_SCATTERV || c == PLX_COLL_SCAN || c == PLX_COLL_EXSCAN;
}

typedef plx_status_t (*coll_build_fn)(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

typedef struct coll_algo {
    plx_coll_t coll;
    const char *name;          /* "ring", "recursive_doubling", ... */
    coll_build_fn build;       /* NULL for node_slots algorithms */
    const char *summary;       /* one line for plexus_info */
    int node_slots;            /* runs through shared slots (lib/coll/node_slots.c), not a
                                  schedule; COLL_NODE_DIRECT: node-local single-copy reads
                                  (lib/coll/node_direct.c) */
    /* NULL: runs on any communicator; else whether it can run this one at
     * this size (comm NULL: printing the table, answer 1) */
    int (*can_run)(plx_comm_t comm, size_t bytes);
    /* Reductions: 1 if it combines the contributions strictly in rank order
     * (rank 0 op rank 1 op ...), so it serves non-commutative user ops
     * (plx_op_create); 0 (the default) if it relies on the op commuting:
     * the selector then skips it for a non-commutative op. */
    int rank_ordered;
} coll_algo_t;

/* node_slots value of the single-copy algorithms (1: shared slots). */
#define COLL_NODE_DIRECT 2

/* All algorithms, terminated by an entry with name == NULL. */
extern const coll_algo_t plx_coll_algos[];
const coll_algo_t *coll_algo_find(plx_coll_t coll, const char *name);

/* ---- helpers shared by the builders --------------------------------------
 * Pointers into a buffer of elements of es bytes. */
#define COLL_AT(buf, elems, es)  ((char *)(buf) + (size_t)(elems) * (es))
#define COLL_CAT(buf, elems, es) ((const char *)(buf) + (size_t)(elems) * (es))

/* The members a timed-out node-local wait names in its message, "1 (world
 * 5), 3 (world 7)": the first 8 of them; n counts all. */
typedef struct coll_rank_list {
    char text[256];
    size_t len;
    int n;
} coll_rank_list_t;

static inline void coll_rank_list_add(coll_rank_list_t *l, int rank, int world)
{
    if (l->n++ < 8 && l->len < sizeof l->text - 24)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s%d (world %d)",
                                   l->len ? ", " : "", rank, world);
}

static inline int coll_in_place(const void *p) { return p == PLX_IN_PLACE; }

/* AVG travels as SUM; the builder divides the final result once. */
static inline plx_op_t coll_reduce_op(plx_op_t op) { return op == PLX_AVG ? PLX_SUM : op; }

/* count elements split into n blocks as evenly as possible: the first
 * count % n blocks get one element more (blocks may be empty). */
static inline size_t coll_block_off(size_t count, int n, int i)
{
    size_t q = count / (size_t)n, r = count % (size_t)n, ui = (size_t)i;
    return ui * q + (ui < r ? ui : r);
}
static inline size_t coll_block_len(size_t count, int n, int i)
{
    return count / (size_t)n + ((size_t)i < count % (size_t)n ? 1 : 0);
}

/* Lowest set bit of a relative rank in a binomial tree: its subtree spans
 * relative ranks [vr, vr + coll_lowbit(vr)) (cut at size); the root (vr 0)
 * gets the smallest power of two >= size. */
static inline int coll_lowbit(int vr, int size)
{
    if (vr) return vr & -vr;
    int m = 1;
    while (m < size) m <<= 1;
    return m;
}

/* Relative ranks [lo, lo + n) of a tree rooted at root are absolute ranks
 * (lo + root) .. mod size: at most two runs, split where they wrap past
 * size - 1.  Returns the number of runs; run i starts at absolute rank
 * start[i] and has len[i] ranks.  A message carrying a relative range to or
 * from a buffer in absolute order (the root's) is sent as one message per
 * run, so both sides split it identically. */
static inline int coll_rel_runs(int lo, int n, int root, int size, int start[2], int len[2])
{
    int wrap = size - root;                   /* first relative rank that wraps to 0 */
    if (lo >= wrap || lo + n <= wrap) {
        start[0] = (lo + root) % size;
        len[0] = n;
        return 1;
    }
    start[0] = lo + root;
    len[0] = wrap - lo;
    start[1] = 0;
    len[1] = lo + n - wrap;
    return 2;
}

/* The fold: recursive doubling/halving pair group rank g with g ^ 2^k, a
 * perfect pairing only when the group size is a power of two.  So with p2
 * the largest power of two <= size and rem = size - p2, relative ranks 2i
 * and 2i+1 (i < rem) pair up first: the odd one hands its whole vector to
 * the even one before the power-of-two phase, sits it out, and gets its
 * result after it.  Relative ranks are counted from root (0 when there is
 * none) so the root always stays in the group, as group rank 0.  The price
 * is two extra full-vector messages on 2*rem ranks (why ring wins for large
 * vectors when size is far from a power of two). */
typedef struct coll_fold {
    int size, root;
    int p2, rem;
    int vr;                    /* this rank's relative rank */
    int newrank;               /* rank in the power-of-two group; -1 if folded out */
} coll_fold_t;

static inline void coll_fold_init(coll_fold_t *f, int rank, int size, int root)
{
    f->size = size;
    f->root = root;
    f->p2 = 1;
    while (f->p2 * 2 <= size) f->p2 *= 2;
    f->rem = size - f->p2;
    f->vr = (rank - root + size) % size;
    if (f->vr < 2 * f->rem)
        f->newrank = (f->vr & 1) ? -1 : f->vr / 2;
    else
        f->newrank = f->vr - f->rem;
}

/* Communicator rank of relative rank vr. */
static inline int coll_fold_abs(const coll_fold_t *f, int vr) { return (vr + f->root) % f->size; }

/* Communicator rank of power-of-two group rank g. */
static inline int coll_fold_rank(const coll_fold_t *f, int g)
{
    return coll_fold_abs(f, g < f->rem ? 2 * g : g + f->rem);
}

/* ---- phases shared between collectives -----------------------------------
 * Fold step before a power-of-two phase (see coll_fold_t): a folded-out rank
 * sends its count elements at *cur to its partner; the partner receives them
 * into tmp and reduces acc = *cur op tmp, then *cur = acc.  (reduce_scatter.c) */
void coll_phase_fold_in(plx_sched_t *s, const coll_fold_t *f, const void **cur, void *acc,
                        void *tmp, size_t count, plx_dtype_t dt, plx_op_t op);

/* Recursive-halving reduce-scatter among the power-of-two group.  Part j
 * (j < p2) is elements [pdisp[j], pdisp[j+1]).  The input is at cur (acc or
 * a read-only buffer); on return (in schedule order) acc holds the fully
 * reduced part newrank at its own offset.  tmp must hold the larger half
 * (callers pass pdisp[p2] elements, which the fold needs anyway).
 * (reduce_scatter.c) */
void coll_phase_rs_halving(plx_sched_t *s, const coll_fold_t *f, const void *cur, void *acc,
                           void *tmp, const size_t *pdisp, plx_dtype_t dt, plx_op_t op);

/* Builders (lib/coll/<collective>.c).  bcast's buffer is rbuf (the API
 * passes it as sbuf too). */
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
/* Issue 14: the v-forms, scans and the rank-ordered reductions. */
plx_status_t coll_allgatherv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allgatherv_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_alltoallv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_alltoallv_pairwise(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_gatherv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_scatterv_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatterv_ring(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatterv_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_scan_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_scan_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_exscan_recursive_doubling(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_exscan_linear(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_scatter_ordered(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

/* Rank-ordered reduction of n elements to rank 0 (lib/coll/ordered.c): a
 * binomial tree over absolute ranks in which every rank combines its own
 * range (lower ranks) op its children's (higher ranks), so the result is
 * in[0] op in[1] op ... op in[p-1] for any associative op.  in is this
 * rank's input; acc (n elements, may equal in's buffer only at rank 0 in
 * place) receives the partials at ranks with children.  Returns where rank
 * 0's result lies once the schedule has run (acc, or in when p == 1). */
const void *coll_phase_ordered_reduce0(plx_sched_t *s, plx_comm_t comm, const void *in, void *acc,
                                       size_t n, plx_dtype_t dt, plx_op_t op);

/* lib/coll/hier.c: communicators spanning several nodes */
plx_status_t coll_allreduce_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_bcast_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_reduce_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_allgather_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);
plx_status_t coll_barrier_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a);

#endif /* PLX_COLL_H */
