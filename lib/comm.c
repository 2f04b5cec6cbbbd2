/*
 * lib/comm.c — communicators: world, rank/size, split, dup, free.
 *
 * A communicator is an ordered list of world ranks plus an id that every
 * member agrees on.  Ids are chosen like MPI context ids: each rank keeps
 * the lowest id not used by any of its communicators (ctx->next_comm_id);
 * a split takes the maximum of that value over the parent's members, so the
 * new id is unused by every member, and everyone in the parent moves past
 * it.  Message tags carry the id, so traffic of different communicators
 * never matches.
 *
 * Freed communicators keep their memory, marked dead, until plx_finalize:
 * a stale handle is then reported as PLX_ERR_INVALID_ARG instead of being
 * read after free.
 */
#include "plx_internal.h"

#include <stdlib.h>
#include <string.h>

#define PLX_COMM_ID_MAX 0xffffffu   /* 24 bits in the tag */

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

/* What each parent member tells the others in a split. */
typedef struct split_entry {
    int32_t color, key, rank;
    uint32_t next_id;
} split_entry_t;

static int cmp_split(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : (x->rank > y->rank);
}

static plx_status_t do_split(const char *fn, plx_comm_t comm, int color, int key, plx_comm_t *newcomm)
{
    plx_context_t ctx = comm->ctx;
    split_entry_t mine = { color, key, comm->rank, ctx->next_comm_id };
    split_entry_t *all = malloc((size_t)comm->size * sizeof *all);
    if (!all) return PLX_ERR_NO_MEMORY;
    plx_status_t st = plx_coll_allgather_bytes(comm, &mine, all, sizeof mine);
    if (st != PLX_SUCCESS) {
        free(all);
        return st;
    }
    uint32_t id = 0;
    for (int r = 0; r < comm->size; r++)
        if (all[r].next_id > id) id = all[r].next_id;
    if (id > PLX_COMM_ID_MAX) {
        free(all);
        plx_error("%s: out of communicator ids (%u used)", fn, PLX_COMM_ID_MAX);
        return PLX_ERR_NO_MEMORY;
    }
    ctx->next_comm_id = id + 1;

    if (color == PLX_UNDEFINED) {
        free(all);
        *newcomm = NULL;
        return PLX_SUCCESS;
    }
    /* members of my colour, ordered by (key, parent rank) */
    int n = 0;
    for (int r = 0; r < comm->size; r++)
        if (all[r].color == color) all[n++] = all[r];
    qsort(all, (size_t)n, sizeof *all, cmp_split);

    plx_comm_t c = calloc(1, sizeof *c);
    int *wr = malloc((size_t)n * sizeof(int));
    if (!c || !wr) {
        free(c);
        free(wr);
        free(all);
        return PLX_ERR_NO_MEMORY;
    }
    c->magic = PLX_COMM_MAGIC;
    c->ctx = ctx;
    c->id = id;
    c->size = n;
    c->world_rank = wr;
    for (int i = 0; i < n; i++) {
        wr[i] = comm->world_rank[all[i].rank];
        if (all[i].rank == comm->rank) c->rank = i;
    }
    free(all);
    c->next = ctx->comms;
    ctx->comms = c;
    *newcomm = c;
    plx_debug("%s: new comm id %u, rank %d of %d", fn, c->id, c->rank, c->size);
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

plx_status_t plx_comm_free(plx_comm_t *comm)
{
    if (!comm || !plx_comm_ok(*comm)) return plx_bad_arg("plx_comm_free", "invalid or freed communicator");
    plx_comm_t c = *comm;
    if (c == c->ctx->world) return plx_bad_arg("plx_comm_free", "the world communicator belongs to the context");
    c->magic = PLX_DEAD_MAGIC;      /* memory stays listed in ctx->comms until finalize */
    free(c->world_rank);
    c->world_rank = NULL;
    *comm = NULL;
    return PLX_SUCCESS;
}
