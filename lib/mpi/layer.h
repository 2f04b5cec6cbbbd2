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
 * counters and the PLX_LOG=info summary), comm_mirror.c (the layer's
 * record of each MPI communicator, made at its first collective, and the
 * Plexus communicator behind it, made at its first blocking routed
 * collective), comm_cache.c (handle -> record without asking MPI: the
 * hot path), dtype_map.c (datatypes, ops, packing of
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
#include <stdint.h>

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

#define PM_BIT(coll) (1u << (coll))     /* pm_mirror_t.may, pm.world_may */
_Static_assert(PM_NCOLL <= 32, "one bit per collective in an unsigned");

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
    struct pm_mirror *world;    /* MPI_COMM_WORLD's record (the hot path skips the cache) */
    unsigned world_may;         /* world->may, 0 when the layer is off (pm_world_falls) */
    int counting;           /* PLX_LOG=info or more: the summary's counters are kept */
} pm_state_t;
extern pm_state_t pm;

/* ---- policy.c ---- */
/* Parse PLX_MPI and PLX_MPI_COLLS; -1 with a message in err for a bad value. */
int pm_policy_load(int *enabled, char *err, size_t errlen);
struct pm_route;
/* Every collective's rows for a communicator of `ranks` ranks (made once
 * per communicator; pm_route in layer.h reads them). */
void pm_policy_fill(struct pm_route *route, int ranks);
/* the summary's counters (pm_count below) */
extern _Atomic unsigned long pm_n_calls[PM_NCOLL][PM_NWHY];
extern _Atomic unsigned long long pm_n_bytes[PM_NCOLL][PM_NWHY];
const char *pm_coll_name(pm_coll_t coll);
/* PLX_LOG=info (or more): rank 0 prints its counters; debug: every rank. */
void pm_summary_print(void);
/* PLX_LOG at info or above */
int pm_log_info(void);

/* ---- comm_mirror.c ---- */
/* A collective's routing rows for one communicator size, made once per
 * communicator (policy.c): Plexus for bytes in [lo[i], hi[i]), else why. */
#define PM_ROUTE_MAX 4      /* rows per collective and size (policy.c's table has at most 2) */
typedef struct pm_route {
    size_t lo[PM_ROUTE_MAX], hi[PM_ROUTE_MAX];
    int n;
    pm_why_t why;
} pm_route_t;

enum { PM_TWIN_NOT_YET = 0, PM_TWIN_OK, PM_TWIN_NEVER };

/* The layer's record of one MPI communicator, made at its first collective
 * call (routed or not) and hung on it as an attribute; its Plexus twin
 * comes later, at the first blocking routed collective. */
typedef struct pm_mirror {
    MPI_Comm comm;          /* the handle (comm_cache.c's key) */
    int size, rank;         /* MPI's answers, asked once */
    int inter;              /* an intercommunicator: every call stays with MPI */
    int twin;               /* PM_TWIN_*: NEVER for a rank outside MPI_COMM_WORLD */
    plx_comm_t pc;          /* the twin, when twin == PM_TWIN_OK */
    int is_world;           /* the context's world communicator: never freed by the layer */
    _Atomic int refs;       /* the attribute's, plus one per bridged request (requests.c) */
    int mpi_freed;          /* the MPI communicator is gone (no error handler to call) */
    size_t *scratch;        /* MPI int counts as size_t for the v-forms (one call at a time per communicator, as MPI requires) */
    pm_route_t route[PM_NCOLL];
    /* the size rule in element counts for the last predefined type asked
     * (pm_size_falls): routed when (unsigned)count - lo[i] < w[i] for some
     * i < n; t 0 (no MPI handle) until the first one */
    struct pm_count_rule {
        MPI_Datatype t;    /* never set while pm.counting: every call then counts why */
        int n;
        unsigned below;    /* the smallest lo[]: a count under it falls at once (the
                            * small calls of a collective routed at larger sizes) */
        unsigned lo[PM_ROUTE_MAX], w[PM_ROUTE_MAX];
    } rule[PM_NCOLL];
    /* PM_BIT(coll) set when coll may go to Plexus on this communicator
     * (some routing row for its size, and not an intercommunicator), or
     * when the summary counts every call (PLX_LOG=info): pm_quick's test */
    unsigned may;
    struct pm_mirror *next;
} pm_mirror_t;
int pm_mirror_init(void);               /* keyval; MPI_COMM_WORLD's record */
void pm_mirror_finalize(void);
/* comm's record, made now if this is its first collective (NULL: comm is
 * MPI_COMM_NULL or MPI refused the queries; the call stays with MPI).
 * The hot path is pm_comm_rec below. */
pm_mirror_t *pm_mirror_slow(MPI_Comm comm);
/* Make m's twin now, with the other ranks (a blocking routed collective:
 * every rank of the communicator is in it).  0 when it has none. */
int pm_mirror_make_twin(pm_mirror_t *m);
void pm_mirror_unref(pm_mirror_t *m);
/* arrays * size size_t entries of m's scratch, or NULL (no memory) */
size_t *pm_mirror_scratch(pm_mirror_t *m, int arrays);
/* twins made so far (the summary) */
unsigned long pm_mirror_made(void);

/* ---- comm_cache.c: handle -> record without asking MPI ---- */
#define PM_CACHE_BITS 11
#define PM_CACHE_SLOTS (1u << PM_CACHE_BITS)
#define PM_SLOT_EMPTY ((uintptr_t)0)    /* no MPI handle is 0 or 1 (pointers; MPICH's kind bits) */
#define PM_SLOT_TOMB ((uintptr_t)1)
typedef struct pm_slot {
    _Atomic uintptr_t key;
    pm_mirror_t *_Atomic rec;
} pm_slot_t;
extern pm_slot_t pm_cache[PM_CACHE_SLOTS];
int pm_cache_insert(MPI_Comm comm, pm_mirror_t *m);    /* 0: table full (not cached) */
void pm_cache_remove(MPI_Comm comm, const pm_mirror_t *m);

static inline uintptr_t pm_cache_key(MPI_Comm comm) { return (uintptr_t)comm; }
static inline uintptr_t pm_cache_key_type(MPI_Datatype t) { return (uintptr_t)t; }

/* the top `bits` bits of a multiplicative hash of a handle's bits */
static inline unsigned pm_hash(uintptr_t k, int bits)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 29;
    x *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> (64 - bits));
}

static inline unsigned pm_cache_home(uintptr_t k) { return pm_hash(k, PM_CACHE_BITS); }

/* PM_TO_PLEXUS, or why not (PM_WHY_COLL, PM_WHY_SIZE, PM_WHY_UNMEASURED),
 * for `bytes` (the size as perf/ counts it: the whole result of
 * allgather/gather, ...) on m's communicator. */
static inline pm_why_t pm_route(const pm_mirror_t *m, pm_coll_t coll, size_t bytes)
{
    const pm_route_t *r = &m->route[coll];
    for (int i = 0; i < r->n; i++)
        if (bytes >= r->lo[i] && bytes < r->hi[i]) return PM_TO_PLEXUS;
    return r->why;
}

static inline pm_mirror_t *pm_cache_find(MPI_Comm comm)
{
    uintptr_t k = pm_cache_key(comm);
    unsigned i = pm_cache_home(k);
    for (unsigned n = 0; n < PM_CACHE_SLOTS; n++, i = (i + 1) & (PM_CACHE_SLOTS - 1)) {
        uintptr_t s = atomic_load_explicit(&pm_cache[i].key, memory_order_acquire);
        if (s == k) return atomic_load_explicit(&pm_cache[i].rec, memory_order_relaxed);
        if (s == PM_SLOT_EMPTY) return NULL;
    }
    return NULL;
}

/* The record of comm: a compare for MPI_COMM_WORLD, a table probe for a
 * communicator seen before, the slow path at its first collective. */
static inline pm_mirror_t *pm_comm_rec(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return pm.world;
    pm_mirror_t *m = pm_cache_find(comm);
    return m ? m : pm_mirror_slow(comm);
}

/* ---- dtype_map.c ---- */
/* The predefined datatypes' sizes and Plexus twins, asked once (MPI_Init). */
void pm_types_init(void);
/* A predefined datatype (pm_type_find below) */
typedef struct pm_type_info {
    MPI_Datatype t;
    int used;
    long size;
    int red;                /* what a reduction may do with it: PM_RED_* */
    plx_dtype_t pdt;        /* its Plexus twin (PM_RED_INT, PM_RED_FLOAT) */
    int dense;              /* count elements lie as count * size bytes */
} pm_type_info_t;
enum { PM_RED_NONE = 0, PM_RED_INT, PM_RED_FLOAT, PM_RED_BYTE };
#define PM_TYPE_BITS 8
#define PM_TYPE_SLOTS (1u << PM_TYPE_BITS)     /* ~40 types: most found at the first probe */
extern pm_type_info_t pm_types[PM_TYPE_SLOTS];
long pm_type_size_asked(MPI_Datatype type);     /* a derived type: MPI's answer, or -1 */
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
    pm_mirror_t *m;         /* comm's record (pm_call_begin; no reference: MPI forbids
                             * freeing a communicator inside a call on it) */
    pm_stage_t stage[2];
    int nstage;
} pm_call_t;
/* pm_call_begin and pm_call_route: below (inline) */
/* After plx_i*: blocking (mreq NULL) waits, nonblocking makes *mreq.  Any
 * failure goes to the communicator's error handler.  Returns an MPI code. */
int pm_call_finish(pm_call_t *c, plx_status_t started, plx_request_t preq, MPI_Request *mreq);
/* Wind up a call that could not be started (staging failed). */
int pm_call_abandon(pm_call_t *c, int mpi_code);

/* ---- requests.c ---- */
extern _Atomic int pm_n_inflight;       /* bridged requests not yet completed */
void pm_progress_slow(void);            /* pm_progress when some are in flight */
void pm_poke_mpi(void);                 /* let MPI's own progress engine run once */
void pm_drain(void);                    /* MPI_Finalize: every bridged request done */
int pm_bridge(pm_call_t *c, plx_request_t preq, MPI_Request *mreq);

/* ---- the hot path, inline: what every collective call runs before it
 * knows where it goes.  A call left to MPI must cost only a few loads and
 * compares here (issue 15), so nothing below asks MPI anything. */

/* complete the MPI requests of finished Plexus ones (one load when none) */
static inline void pm_progress(void)
{
    if (atomic_load_explicit(&pm_n_inflight, memory_order_relaxed)) pm_progress_slow();
}

/* Count a call (the summary, printed only with PLX_LOG=info or more:
 * without it nothing is counted).  Plain increments unless MPI runs with
 * MPI_THREAD_MULTIPLE: a locked add on every call was a measurable share
 * of a call left to MPI. */
static inline void pm_count(pm_coll_t coll, pm_why_t why, size_t bytes)
{
    if (!pm.counting) return;           /* nobody will print them */
    _Atomic unsigned long *n = &pm_n_calls[coll][why];
    _Atomic unsigned long long *b = &pm_n_bytes[coll][why];
    if (pm.thread_level == MPI_THREAD_MULTIPLE) {
        atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(b, bytes, memory_order_relaxed);
        return;
    }
    /* one thread in MPI at a time: no locked instruction needed */
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_relaxed);
    atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) + bytes,
                          memory_order_relaxed);
}

static inline const pm_type_info_t *pm_type_find(MPI_Datatype t)
{
    unsigned i = pm_hash(pm_cache_key_type(t), PM_TYPE_BITS);
    for (unsigned n = 0; n < PM_TYPE_SLOTS && pm_types[i].used; n++, i = (i + 1) & (PM_TYPE_SLOTS - 1))
        if (pm_types[i].t == t) return &pm_types[i];
    return NULL;
}

/* bytes of one element of type, or -1 */
static inline long pm_type_size(MPI_Datatype type)
{
    const pm_type_info_t *ti = pm_type_find(type);
    return ti ? ti->size : pm_type_size_asked(type);
}

/* The first thing every collective interceptor does (issue 15): comm's
 * record when this collective (one of the bits `colls`) may go to Plexus
 * on it, else NULL, and the call goes on to PMPI_ at once.  For
 * MPI_COMM_WORLD and a collective the routing table leaves to MPI at every
 * size, that is a compare, two loads and a bit test: no datatype, op or
 * size work, which only calls that may be routed need, and no Plexus
 * progress (routed calls advance Plexus, and so do MPI_Wait & co.). */
/* Every interceptor is two functions (issue 15).  MPI_X itself only asks
 * pm_world_falls and then jumps to PMPI_X or on (through sized_X, see
 * PM_INTERCEPT) to routed_X, which has the same arguments: with nothing but these two sibling calls MPI_X needs no
 * stack frame, so a call on MPI_COMM_WORLD that the routing table leaves
 * to MPI costs a compare, a load, a bit test and a jump more than plain
 * MPI.  routed_X (PM_NOINLINE, or the compiler folds it back into MPI_X
 * and its frame with it) asks pm_quick and does the rest.  (MPI_X is
 * three functions now: sized_X between the two.) */
#define PM_NOINLINE __attribute__((noinline))
static inline int pm_world_falls(unsigned colls, MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD && !(pm.world_may & colls);
}

pm_mirror_t *pm_quick_other(unsigned colls, MPI_Comm comm);     /* call.c: any other communicator */
static inline pm_mirror_t *pm_quick(unsigned colls, MPI_Comm comm)
{
    /* pm.world is NULL when the layer is off (PLX_MPI=0, after MPI_Finalize) */
    pm_mirror_t *m = comm == MPI_COMM_WORLD ? pm.world : pm_quick_other(colls, comm);
    if (!m || !(m->may & colls)) return NULL;
    pm_progress();
    return m;
}

/* In routed_X, before the interceptor's own work: 1 when a call of
 * blocks * count elements of type goes to MPI by the size rule alone (a
 * collective routed at some sizes only: bcast 8 B under Open MPI, ...).
 * Only for a predefined type and when nothing is counted; anything else
 * takes the full path, which decides the same and counts why.  The rows
 * are kept per communicator and collective as element counts for the last
 * predefined type asked (blocks is the same at every call of one
 * collective on one communicator), so a repeated type costs a compare and
 * one range test per row, not the type lookup and the byte rows (about 50
 * instructions on bcast 8 B).  A negative count is outside every range
 * and falls to MPI, as the full path would send it. */
int pm_size_falls_slow(pm_mirror_t *m, pm_coll_t coll, int count, MPI_Datatype type, int blocks);
/* fast (a constant): only the kept type and the lowest row, 0 for
 * another type or a count at or above that row (sized_X, which must call
 * nothing but PMPI_X and routed_X to stay frameless; routed_X then asks
 * again with the rows).  While the summary counts (pm.counting) no rule
 * is kept (r->t never matches), so every call takes the full path; a
 * count below the lowest row costs one compare more than the type's
 * (1.02-1.04x plain MPI at 8-512 B with the row loop and a counting test,
 * perf/RESULTS.md). */
static inline int pm_size_falls(int fast, pm_mirror_t *m, pm_coll_t coll, int count,
                                MPI_Datatype type, int blocks)
{
    /* an empty asm on m: the root-or-not branches of gather and scatter
     * each read r->t from memory, not one register loaded before the
     * branch (all 9 free registers are then taken; one more is a frame) */
    if (fast) __asm__("" : "+r"(m));
    const struct pm_count_rule *r = &m->rule[coll];
    if (r->t != type) return fast ? 0 : pm_size_falls_slow(m, coll, count, type, blocks);
    if ((unsigned)count < r->below) return 1;
    /* The rows are left to routed_X: their loop needs registers that
     * sized_X of a 7- or 8-argument collective (alltoall, gather,
     * scatter: comm on the stack) does not have free, and the callee-
     * saved ones it took cost a stack frame on every small call. */
    if (fast) return 0;
    for (int i = 0; i < r->n; i++)
        if ((unsigned)count - r->lo[i] < r->w[i]) return 0;
    return 1;
}

/* The interceptors, generated: one PM_INTERCEPT line per collective
 * makes MPI_X and MPI_IX, each as three functions (MPI_X: the
 * MPI_COMM_WORLD bit test of pm_world_falls and a jump; sized_X: below;
 * routed_X: pm_quick, the size rule, the work).  Its arguments:
 *   X, IX    the names after MPI_ (blocking, nonblocking)
 *   BITS     the PM_BIT()s of the collective (pm_world_falls, pm_quick)
 *   FALLS    an expression of m, pm_fast and the arguments: 1 when the
 *            size rule alone leaves the call to MPI (pm_size_falls), 0 for
 *            none.  On MPI_COMM_WORLD, sized_X (between MPI_X and
 *            routed_X; MPI_X itself stays the bit test and a jump) asks
 *            it first with pm_fast set (the kept counts
 *            only, no call but the two jumps: no stack frame), so a call
 *            left to MPI by size skips routed_X's frame and pm_quick
 *   WORK     the routed call, an expression of m, the arguments and
 *            pm_req (NULL for MPI_X, the request for MPI_IX): an MPI code,
 *            or PM_FALL to go on to PMPI_X after all
 *   PARAMS   MPI_X's parameters in parentheses (MPI_IX adds the request)
 *   ARGS     their names in parentheses
 * The nonblocking form has the early size test too: a call it leaves to
 * MPI skips pm_call_begin and the full decision.
 * sized_X compares an opaque copy of comm (the empty asm): told that comm
 * is MPI_COMM_WORLD, GCC passes Open MPI's world handle on to PMPI_X from
 * a register of its own, and in a 7- or 8-argument call (comm, root on
 * the stack) that register is one more than the 9 free ones: a frame.
 * objdump shows every blocking sized_X without push (the 9-argument
 * MPI_Igather / MPI_Iscatter keep one). */
#define PM_UNPAREN(...) __VA_ARGS__
#define PM_INTERCEPT_ONE(X, BITS, FALLS, WORK, REQ, PARAMS, ARGS)                               \
    static PM_NOINLINE int routed_##X PARAMS                                                    \
    {                                                                                           \
        MPI_Request *const pm_req = REQ;                                                        \
        const int pm_fast __attribute__((unused)) = 0;                                          \
        pm_mirror_t *m = pm_quick(BITS, comm);                                                  \
        if (m && (FALLS)) m = NULL;                                                             \
        int rc = m ? (WORK) : PM_FALL;                                                          \
        return rc == PM_FALL ? PMPI_##X ARGS : rc;                                              \
    }                                                                                           \
    static PM_NOINLINE int sized_##X PARAMS                                                     \
    {                                                                                           \
        MPI_Comm pm_c = comm;                                                                   \
        __asm__("" : "+r"(pm_c));                                                               \
        if (pm_c == MPI_COMM_WORLD) {                                                           \
            const int pm_fast __attribute__((unused)) = 1;                                      \
            pm_mirror_t *const m __attribute__((unused)) = pm.world;                            \
            if (FALLS) return PMPI_##X ARGS;                                                    \
        }                                                                                       \
        return routed_##X ARGS;                                                                 \
    }                                                                                           \
    int MPI_##X PARAMS                                                                          \
    {                                                                                           \
        if (pm_world_falls(BITS, comm)) return PMPI_##X ARGS;                                   \
        return sized_##X ARGS;                                                                  \
    }
#define PM_INTERCEPT(X, IX, BITS, FALLS, WORK, PARAMS, ARGS)                                    \
    PM_INTERCEPT_ONE(X, BITS, FALLS, WORK, NULL, PARAMS, ARGS)                                  \
    PM_INTERCEPT_ONE(IX, BITS, FALLS, WORK, request, (PM_UNPAREN PARAMS, MPI_Request *request), \
                     (PM_UNPAREN ARGS, request))

/* Start a call that pm_quick let through; 0 when it must stay with MPI
 * after all (an intercommunicator, counted only for the summary). */
static inline int pm_call_begin(pm_call_t *c, pm_coll_t coll, pm_mirror_t *m, MPI_Comm comm,
                                MPI_Request *mreq)
{
    c->blocking = mreq == NULL;
    c->coll = coll;
    c->comm = comm;
    c->nstage = 0;
    c->m = m;
    if (m->inter) {
        pm_count(coll, PM_WHY_COMM, 0);
        return 0;
    }
    c->size = m->size;
    c->rank = m->rank;
    return 1;
}

int pm_call_twin(pm_call_t *c);         /* call.c: make the twin (first blocking routed call) */

/* Decide from a prior reason, the communicator's routing rows and its
 * twin (made at the first blocking routed call); counts; 1: to Plexus
 * (c->m->pc), 0: fall through. */
static inline int pm_call_route(pm_call_t *c, pm_why_t why, size_t bytes)
{
    if (why == PM_TO_PLEXUS) why = pm_route(c->m, c->coll, bytes);
    if (why == PM_TO_PLEXUS && c->m->twin != PM_TWIN_OK) why = (pm_why_t)pm_call_twin(c);
    pm_count(c->coll, why, bytes);
    return why == PM_TO_PLEXUS;
}

#endif /* PLX_MPI_LAYER_H */
