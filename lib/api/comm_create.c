/*
 * lib/api/comm_create.c — communicators by node (plx_comm_split_type) and
 * from a list of ranks (plx_comm_create).
 *
 * Both are plx_comm_split underneath, so communicator ids are agreed in
 * one place (lib/comm.c): split_type uses the node index the transports
 * use (ctx->node_of, from hostname + boot id or PLX_NODE_ID) as colour;
 * create uses colour 0 for the listed ranks (key: position in the list)
 * and PLX_UNDEFINED for the others.  create first checks that every rank
 * passed the same list: one allgather of (n, hash of the list), so a
 * disagreement is PLX_ERR_MISMATCH on every rank, not a hang or two
 * different communicators.
 */
#include "plx_internal.h"

#include <stdlib.h>

plx_status_t plx_comm_split_type(plx_comm_t comm, int type, int key, plx_comm_t *newcomm)
{
    const char *fn = "plx_comm_split_type";
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if (!newcomm) return plx_bad_arg(fn, "newcomm is NULL");
    if (type != PLX_COMM_TYPE_NODE && type != PLX_UNDEFINED)
        return plx_bad_arg(fn, "type %d is not PLX_COMM_TYPE_NODE or PLX_UNDEFINED", type);
    int color = type == PLX_UNDEFINED ? PLX_UNDEFINED : comm->ctx->node_of[comm->world_rank[comm->rank]];
    return plx_comm_split(comm, color, key, newcomm);
}

/* What each rank tells the others before a create. */
typedef struct create_entry {
    int32_t n;
    uint32_t pad;
    uint64_t hash;
} create_entry_t;

/* FNV-1a over the list. */
static uint64_t hash_list(int n, const int *ranks)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        uint32_t v = (uint32_t)ranks[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

plx_status_t plx_comm_create(plx_comm_t comm, int n, const int ranks[], plx_comm_t *newcomm)
{
    const char *fn = "plx_comm_create";
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if (!newcomm) return plx_bad_arg(fn, "newcomm is NULL");
    if (n < 0 || n > comm->size)
        return plx_bad_arg(fn, "n = %d ranks (0..%d, the communicator's size)", n, comm->size);
    if (n > 0 && !ranks) return plx_bad_arg(fn, "ranks is NULL with n = %d", n);
    unsigned char *seen = calloc((size_t)comm->size, 1);
    if (!seen) return PLX_ERR_NO_MEMORY;
    int pos = -1;
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= comm->size) {
            free(seen);
            return plx_bad_arg(fn, "ranks[%d] = %d is not a rank of this communicator (size %d)", i, r,
                               comm->size);
        }
        if (seen[r]) {
            free(seen);
            return plx_bad_arg(fn, "rank %d is listed twice (ranks[%d])", r, i);
        }
        seen[r] = 1;
        if (r == comm->rank) pos = i;
    }
    free(seen);

    create_entry_t mine = { n, 0, hash_list(n, ranks) };
    create_entry_t *all = malloc((size_t)comm->size * sizeof *all);
    if (!all) return PLX_ERR_NO_MEMORY;
    plx_status_t st = plx_coll_allgather_bytes(comm, &mine, all, sizeof mine);
    if (st == PLX_SUCCESS) {
        for (int r = 0; r < comm->size; r++) {
            if (all[r].n == mine.n && all[r].hash == mine.hash) continue;
            /* every rank sees the same table: all report the first disagreement */
            int d = 0;
            while (d < comm->size && all[d].n == all[0].n && all[d].hash == all[0].hash) d++;
            plx_error("%s on comm %u: the ranks passed different lists (rank 0: %d ranks, rank %d: "
                      "%d ranks%s)", fn, comm->id, all[0].n, d, all[d].n,
                      all[0].n == all[d].n ? ", different entries" : "");
            st = PLX_ERR_MISMATCH;
            break;
        }
    }
    free(all);
    if (st != PLX_SUCCESS) return st;
    return plx_comm_split(comm, pos >= 0 ? 0 : PLX_UNDEFINED, pos >= 0 ? pos : 0, newcomm);
}
