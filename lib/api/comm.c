/*
 * lib/api/comm.c — communicators: world, rank/size, split, dup, free.
 *
 * A communicator is an ordered list of world ranks plus an id that every
 * member agrees on.  Message tags and node-local slot channels are keyed by
 * the id, so traffic of different communicators never matches.
 *
 * Ids are reused.  Each rank marks the ids of the comms it belongs to in
 * ctx->comm_ids_used; a split or dup allgathers these sets over the parent
 * and every member takes the lowest id that no parent member uses (as MPI
 * context ids), so all compute the same one.  plx_comm_free clears the bit
 * at once on the freeing rank; the id becomes reusable only when *every*
 * member of a later split has freed it, because until then that member's
 * bit keeps it out of the union.  Before the bit is cleared, freeing waits
 * (bounded) until the other members have finished reading this rank's
 * node-local slot window, and a comm reusing a channel numbers its slot
 * collectives above every number its members ever wrote (slots_seq_hwm).
 *
 * plx_comm_create_group cannot take that union over a parent that is not
 * all there: its members agree among themselves (lib/api/comm_create.c)
 * and each *claims* the proposed id here first (plx_comm_id_claim), so no
 * other agreement of that rank picks it meanwhile.
 *
 * Freed comm objects are kept, marked dead, in a FIFO of PLX_COMM_QUARANTINE
 * entries and only then reused (with gen incremented): a stale handle is
 * reported as PLX_ERR_INVALID_ARG for at least that many later frees,
 * while the memory stays bounded by the peak number of live comms.
 */
#include "plx_internal.h"
#include "engine/request.h"
#include "engine/sched.h"
#include "coll/node_slots.h"
#include "coll/node_direct.h"
#include "coll/call_record.h"
#include "coll/hier.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

/* Freed comm objects kept dead before one is reused. */
#define PLX_COMM_QUARANTINE 64
#define ID_WORDS (PLX_COMM_ID_LIMIT / 64)

plx_status_t plx_comm_world(plx_context_t ctx, plx_comm_t *comm)
{
    if (comm) *comm = NULL;     /* on failure too: never a garbage handle */
    if (!ctx || ctx->magic != PLX_CTX_MAGIC) return plx_bad_arg("plx_comm_world", "not an initialised context");
    if (!comm) return plx_bad_arg("plx_comm_world", "comm is NULL");
    *comm = ctx->world;
    return PLX_SUCCESS;
}

plx_status_t plx_comm_rank(plx_comm_t comm, int *rank)
{
    if (rank) *rank = -1;
    if (!plx_comm_ok(comm)) return plx_bad_arg("plx_comm_rank", "invalid or freed communicator");
    if (!rank) return plx_bad_arg("plx_comm_rank", "rank is NULL");
    *rank = comm->rank;
    return PLX_SUCCESS;
}

plx_status_t plx_comm_size(plx_comm_t comm, int *size)
{
    if (size) *size = 0;
    if (!plx_comm_ok(comm)) return plx_bad_arg("plx_comm_size", "invalid or freed communicator");
    if (!size) return plx_bad_arg("plx_comm_size", "size is NULL");
    *size = comm->size;
    return PLX_SUCCESS;
}

/* ---- comm objects: live list, dead FIFO -------------------------------------- */
static void ids_set(plx_context_t ctx, uint32_t id, int used)
{
    uint64_t bit = 1ull << (id % 64);
    if (used) ctx->comm_ids_used[id / 64] |= bit;
    else ctx->comm_ids_used[id / 64] &= ~bit;
}

/* A zeroed comm object: the oldest dead one once the quarantine is full. */
static plx_comm_t comm_obj_get(plx_context_t ctx)
{
    if (ctx->ndead > PLX_COMM_QUARANTINE) {
        plx_comm_t c = ctx->dead_head;
        ctx->dead_head = c->next;
        if (!ctx->dead_head) ctx->dead_tail = NULL;
        ctx->ndead--;
        uint32_t gen = c->gen + 1;
        memset(c, 0, sizeof *c);
        c->gen = gen;
        return c;
    }
    return calloc(1, sizeof(struct plx_comm));
}

static void live_link(plx_context_t ctx, plx_comm_t c)
{
    c->prev = NULL;
    c->next = ctx->comms;
    if (ctx->comms) ctx->comms->prev = c;
    ctx->comms = c;
}

static void live_unlink(plx_context_t ctx, plx_comm_t c)
{
    if (c->prev) c->prev->next = c->next;
    else ctx->comms = c->next;
    if (c->next) c->next->prev = c->prev;
    c->next = c->prev = NULL;
}

/* Everything a comm holds besides the object itself. */
static void comm_release_state(plx_comm_t c)
{
    plx_slots_release(c);
    plx_direct_release(c);
    plx_callrec_release(c);
    plx_hier_release(c);
    plx_dev_comm_release(c);
    free(c->world_rank);
    c->world_rank = NULL;
}

void plx_comms_release_all(plx_context_t ctx)
{
    for (int pass = 0; pass < 2; pass++) {
        plx_comm_t c = pass ? ctx->dead_head : ctx->comms;
        while (c) {
            plx_comm_t next = c->next;
            comm_release_state(c);
            c->magic = PLX_DEAD_MAGIC;
            free(c);
            c = next;
        }
    }
    ctx->comms = ctx->dead_head = ctx->dead_tail = NULL;
    ctx->ndead = 0;
}

/* ---- split / dup ------------------------------------------------------------- */
/* What each parent member tells the others in a split. */
typedef struct split_entry {
    int32_t color, key, rank;
    uint32_t pad;
    uint64_t slots_seq_hwm;
    uint64_t ids_used[ID_WORDS];
} split_entry_t;

static int cmp_split(const void *a, const void *b)
{
    const split_entry_t *x = *(split_entry_t *const *)a, *y = *(split_entry_t *const *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : (x->rank > y->rank);
}

/* The lowest id no parent member uses; -1 if there is none. */
static int agreed_id(const split_entry_t *all, int n)
{
    for (int w = 0; w < ID_WORDS; w++) {
        uint64_t used = 0;
        for (int r = 0; r < n; r++) used |= all[r].ids_used[w];
        if (~used) return w * 64 + __builtin_ctzll(~used);
    }
    return -1;
}

static plx_status_t do_split(const char *fn, plx_comm_t comm, int color, int key, plx_comm_t *newcomm)
{
    plx_context_t ctx = comm->ctx;
    split_entry_t *mine = calloc(1, sizeof *mine);
    split_entry_t *all = malloc((size_t)comm->size * sizeof *all);
    split_entry_t **members = malloc((size_t)comm->size * sizeof *members);
    plx_comm_t c = NULL;
    int *wr = NULL;
    plx_status_t st = PLX_ERR_NO_MEMORY;
    if (!mine || !all || !members) goto out;
    *mine = (split_entry_t){ .color = color, .key = key, .rank = comm->rank };
    plx_ctx_lock(ctx);   /* plx_comm_free of another comm may run in another thread */
    mine->slots_seq_hwm = ctx->slots_seq_hwm;
    memcpy(mine->ids_used, ctx->comm_ids_used, sizeof mine->ids_used);
    plx_ctx_unlock(ctx);
    st = plx_coll_allgather_bytes(comm, mine, all, sizeof *mine);
    if (st != PLX_SUCCESS) goto out;

    int id = agreed_id(all, comm->size);
    if (id < 0) {
        plx_error("%s: out of communicator ids: some rank of the parent belongs to %d "
                  "communicators at once (free unused ones)", fn, PLX_COMM_ID_LIMIT);
        st = PLX_ERR_NO_MEMORY;
        goto out;
    }
    st = PLX_SUCCESS;
    if (color == PLX_UNDEFINED) {
        *newcomm = NULL;
        goto out;
    }
    /* members of my colour, ordered by (key, parent rank); the slot base
     * covers every one of them */
    int n = 0;
    uint64_t base = 0;
    for (int r = 0; r < comm->size; r++)
        if (all[r].color == color) {
            members[n++] = &all[r];
            if (all[r].slots_seq_hwm > base) base = all[r].slots_seq_hwm;
        }
    qsort(members, (size_t)n, sizeof *members, cmp_split);

    st = PLX_ERR_NO_MEMORY;
    plx_ctx_lock(ctx);
    c = comm_obj_get(ctx);
    plx_ctx_unlock(ctx);
    wr = malloc((size_t)n * sizeof(int));
    if (!c || !wr) goto out;
    c->magic = PLX_COMM_MAGIC;
    c->ctx = ctx;
    c->id = (uint32_t)id;
    c->size = n;
    c->world_rank = wr;
    c->slots_seq_base = base;
    for (int i = 0; i < n; i++) {
        wr[i] = comm->world_rank[members[i]->rank];
        if (members[i]->rank == comm->rank) c->rank = i;
    }
    wr = NULL;
    plx_ctx_lock(ctx);
    ids_set(ctx, c->id, 1);
    live_link(ctx, c);
    plx_ctx_unlock(ctx);
    *newcomm = c;
    c = NULL;
    st = PLX_SUCCESS;
    plx_debug("%s: new comm id %u, rank %d of %d", fn, (*newcomm)->id, (*newcomm)->rank, (*newcomm)->size);
out:
    free(c);
    free(wr);
    free(mine);
    free(all);
    free(members);
    return st;
}

/* ---- ids agreed among the members only (plx_comm_create_group) --------------
 * A group creation cannot take a union over a parent that is not there, so
 * each member *claims* the proposed id before it is final: the bit is set
 * at once, which keeps every other agreement of this rank (another thread's
 * create_group, a split) off it, and cleared again if the group retries. */
void plx_comm_ids_snapshot(plx_context_t ctx, uint64_t ids[PLX_COMM_ID_LIMIT / 64], uint64_t *hwm)
{
    plx_ctx_lock(ctx);
    memcpy(ids, ctx->comm_ids_used, sizeof ctx->comm_ids_used);
    *hwm = ctx->slots_seq_hwm;
    plx_ctx_unlock(ctx);
}

int plx_comm_id_claim(plx_context_t ctx, uint32_t id)
{
    if (id >= PLX_COMM_ID_LIMIT) return 0;
    plx_ctx_lock(ctx);
    int was_free = !(ctx->comm_ids_used[id / 64] & (1ull << (id % 64)));
    if (was_free) ids_set(ctx, id, 1);
    plx_ctx_unlock(ctx);
    return was_free;
}

void plx_comm_id_unclaim(plx_context_t ctx, uint32_t id)
{
    plx_ctx_lock(ctx);
    ids_set(ctx, id, 0);
    plx_ctx_unlock(ctx);
}

plx_status_t plx_comm_install(plx_context_t ctx, uint32_t id, int n, const int *world_ranks, int rank,
                              uint64_t slots_base, plx_comm_t *newcomm)
{
    int *wr = malloc((size_t)n * sizeof(int));
    plx_ctx_lock(ctx);
    plx_comm_t c = wr ? comm_obj_get(ctx) : NULL;
    if (!c) {
        plx_ctx_unlock(ctx);
        free(wr);
        return PLX_ERR_NO_MEMORY;
    }
    memcpy(wr, world_ranks, (size_t)n * sizeof(int));
    c->magic = PLX_COMM_MAGIC;
    c->ctx = ctx;
    c->id = id;
    c->size = n;
    c->rank = rank;
    c->world_rank = wr;
    c->slots_seq_base = slots_base;
    live_link(ctx, c);
    plx_ctx_unlock(ctx);
    *newcomm = c;
    return PLX_SUCCESS;
}

plx_status_t plx_comm_split(plx_comm_t comm, int color, int key, plx_comm_t *newcomm)
{
    if (newcomm) *newcomm = NULL;
    if (!plx_comm_ok(comm)) return plx_bad_arg("plx_comm_split", "invalid or freed communicator");
    if (!newcomm) return plx_bad_arg("plx_comm_split", "newcomm is NULL");
    if (color < 0 && color != PLX_UNDEFINED)
        return plx_bad_arg("plx_comm_split", "color %d is negative (use >= 0 or PLX_UNDEFINED)", color);
    return do_split("plx_comm_split", comm, color, key, newcomm);
}

plx_status_t plx_comm_dup(plx_comm_t comm, plx_comm_t *newcomm)
{
    if (newcomm) *newcomm = NULL;
    if (!plx_comm_ok(comm)) return plx_bad_arg("plx_comm_dup", "invalid or freed communicator");
    if (!newcomm) return plx_bad_arg("plx_comm_dup", "newcomm is NULL");
    return do_split("plx_comm_dup", comm, 0, comm->rank, newcomm);
}

/* ---- free ------------------------------------------------------------------ */
/* Does a request in flight still use c? (lock held) */
static int comm_busy(plx_context_t ctx, plx_comm_t c)
{
    for (struct plx_request *r = ctx->active_head; r; r = r->next) {
        if (r->done) continue;
        if (((r->kind == REQ_SEND || r->kind == REQ_RECV) && r->comm == c) ||
            (r->kind == REQ_SLOTS && r->slots.comm == c) ||
            (r->kind == REQ_SCHED && r->sched && sched_comm(r->sched) == c))
            return 1;
    }
    return 0;
}

plx_status_t plx_comm_free(plx_comm_t *comm)
{
    if (!comm || !plx_comm_ok(*comm)) return plx_bad_arg("plx_comm_free", "invalid or freed communicator");
    plx_comm_t c = *comm;
    plx_context_t ctx = c->ctx;
    if (c == ctx->world) return plx_bad_arg("plx_comm_free", "the world communicator belongs to the context");
    plx_ctx_lock(ctx);
    if (comm_busy(ctx, c)) {
        plx_ctx_unlock(ctx);
        return plx_bad_arg("plx_comm_free", "communicator %u still has operations in flight "
                           "(wait for them first)", c->id);
    }
    c->magic = PLX_DEAD_MAGIC;   /* from here on the handle is refused */
    live_unlink(ctx, c);
    plx_ctx_unlock(ctx);

    /* the id returns to the pool only once nobody reads our slot window */
    int drained = plx_slots_drain(c, ctx->cfg.timeout_s) == 0 && plx_direct_drained(c, ctx->cfg.timeout_s);
    plx_ctx_lock(ctx);
    uint64_t last = plx_slots_last_seq(c), dlast = plx_direct_last_seq(c);
    if (dlast > last) last = dlast;
    if (plx_callrec_last(c) > last) last = plx_callrec_last(c);   /* call numbers too */
    if (last > ctx->slots_seq_hwm) ctx->slots_seq_hwm = last;
    if (drained) ids_set(ctx, c->id, 0);
    else plx_warn("plx_comm_free: comm %u: a member never finished its last node-local collective; "
                  "its id is not reused", c->id);
    comm_release_state(c);
    c->next = NULL;
    if (ctx->dead_tail) ctx->dead_tail->next = c;
    else ctx->dead_head = c;
    ctx->dead_tail = c;
    ctx->ndead++;
    plx_ctx_unlock(ctx);
    *comm = NULL;
    return PLX_SUCCESS;
}
