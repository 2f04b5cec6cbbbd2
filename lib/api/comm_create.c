/*
 * lib/api/comm_create.c — communicators by node (plx_comm_split_type) and
 * from a list of ranks (plx_comm_create).
 *
 * Both are plx_comm_split underneath, so communicator ids are agreed in
 * one place (lib/api/comm.c): split_type uses the node index the transports
 * use (ctx->node_of, from hostname + boot id or PLX_NODE_ID) as colour;
 * create uses colour 0 for the listed ranks (key: position in the list)
 * and PLX_UNDEFINED for the others.  create first checks that every rank
 * passed the same list: one allgather of (n, hash of the list), so a
 * disagreement is PLX_ERR_MISMATCH on every rank, not a hang or two
 * different communicators.
 *
 * plx_comm_create_group is collective over the listed ranks only, so it
 * cannot use a collective of comm.  The members agree over point-to-point
 * messages on comm, under a tag of their own (the user's tag with the
 * collective flag and the internal kind 2 in the low byte: no user
 * message, probe or collective of comm can match it), in a star around
 * the leader (the lowest rank of comm in the list, so two lists with the
 * same ranks in another order still meet at one leader and see the
 * mismatch):
 *   member -> leader  HELLO   n, list hash, its used ids, slot high-water
 *   leader -> member  PROPOSE the lowest id none of them uses (or MISMATCH)
 *   member -> leader  ACK / NACK: the id claimed here, or taken meanwhile
 *   leader -> member  COMMIT, or RETRY (claims given back, next round)
 * Claiming before committing is what keeps the id unique at each member
 * although agreements on other ranks, and on this rank in other threads,
 * run at the same time: a claimed id is marked used (lib/api/comm.c), so no
 * concurrent split or group creation of this rank can pick it; one that
 * had already proposed it gets a NACK and retries.  Groups with no member
 * in common may pick the same id, as the colours of a split do: ids are
 * unique per member, which is what tags and slot windows need.
 */
#include "plx_internal.h"
#include "engine/request.h"

#include <stdlib.h>
#include <string.h>

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

/* ---- plx_comm_create_group -------------------------------------------------- */
#define ID_WORDS (PLX_COMM_ID_LIMIT / 64)
#define GROUP_TAG_KIND 2u      /* low byte of the agreement's match keys (plx_internal.h) */
#define GROUP_MAX_ROUNDS 1000  /* retries only when threads of one rank compete; never in practice */

enum { GM_HELLO = 1, GM_PROPOSE, GM_ACK, GM_NACK, GM_COMMIT, GM_RETRY, GM_MISMATCH, GM_NOIDS };

/* Every message of the agreement (one size, so any receive fits any). */
typedef struct group_msg {
    uint32_t kind;
    int32_t n;
    uint64_t hash;
    uint64_t hwm;              /* HELLO: the member's; PROPOSE: the agreed slot base */
    uint32_t id;
    uint32_t pad;
    uint64_t ids[ID_WORDS];    /* HELLO: the ids the member uses */
} group_msg_t;

static uint64_t group_tag(plx_comm_t comm, int tag)
{
    return ((uint64_t)(comm->id & 0xffffffu) << 40) | (1ull << 39) |
           ((uint64_t)((uint32_t)tag & 0x7fffffffu) << 8) | GROUP_TAG_KIND;
}

/* Send msgs[i] to (send) or receive it from (!send) each of the np ranks
 * peers[] of comm, all in flight at once; waits for all (each wait is
 * bounded by PLX_TIMEOUT and ends early when the peer died). */
static plx_status_t group_xfer(plx_comm_t comm, uint64_t tag, int np, const int *peers, group_msg_t *msgs,
                               int send)
{
    plx_context_t ctx = comm->ctx;
    plx_request_t *reqs = calloc((size_t)(np > 0 ? np : 1), sizeof *reqs);
    if (!reqs) return PLX_ERR_NO_MEMORY;
    plx_status_t st = PLX_SUCCESS;
    plx_ctx_lock(ctx);
    for (int i = 0; i < np && st == PLX_SUCCESS; i++) {
        struct plx_request *r = plx_req_alloc(ctx);
        if (!r) {
            st = PLX_ERR_NO_MEMORY;
            break;
        }
        r->kind = send ? REQ_SEND : REQ_RECV;
        r->comm = comm;
        r->peer = peers[i];
        r->tag = (int)((tag >> 8) & 0x7fffffffu);   /* the caller's tag, in a timeout's message */
        r->elem_size = 1;
        r->received = NULL;
        memset(&r->treq, 0, sizeof r->treq);
        st = send ? plx_p2p_isend(comm, peers[i], tag, &msgs[i], sizeof msgs[i], &r->treq)
                  : plx_p2p_irecv(comm, peers[i], tag, &msgs[i], sizeof msgs[i], &r->treq);
        if (st == PLX_SUCCESS) {
            plx_req_activate(r);
            reqs[i] = r;
        } else {
            plx_req_release(r);
        }
    }
    for (int i = 0; i < np; i++) {
        if (!reqs[i]) continue;
        plx_status_t s = plx_req_wait_locked(&reqs[i]);
        if (st == PLX_SUCCESS) st = s;
    }
    plx_ctx_unlock(ctx);
    free(reqs);
    return st;
}

/* The same message to every peer. */
static plx_status_t group_tell(plx_comm_t comm, uint64_t tag, int np, const int *peers, uint32_t kind,
                               uint32_t id, uint64_t base)
{
    group_msg_t *m = calloc((size_t)(np > 0 ? np : 1), sizeof *m);
    if (!m) return PLX_ERR_NO_MEMORY;
    for (int i = 0; i < np; i++) m[i] = (group_msg_t){ .kind = kind, .id = id, .hwm = base };
    plx_status_t st = group_xfer(comm, tag, np, peers, m, 1);
    free(m);
    return st;
}

static int lowest_free(const uint64_t *ids)
{
    for (int w = 0; w < ID_WORDS; w++)
        if (~ids[w]) return w * 64 + __builtin_ctzll(~ids[w]);
    return -1;
}

/* The leader: gather, check, propose, collect the claims, decide. */
static plx_status_t group_lead(const char *fn, plx_comm_t comm, uint64_t tag, int n, uint64_t hash,
                               int np, const int *peers, uint32_t *id_out, uint64_t *base_out)
{
    plx_context_t ctx = comm->ctx;
    group_msg_t *in = calloc((size_t)(np > 0 ? np : 1), sizeof *in);
    if (!in) return PLX_ERR_NO_MEMORY;
    plx_status_t st = PLX_SUCCESS;
    for (int round = 0;; round++) {
        uint64_t ids[ID_WORDS], base;
        plx_comm_ids_snapshot(ctx, ids, &base);
        if ((st = group_xfer(comm, tag, np, peers, in, 0)) != PLX_SUCCESS) break;
        for (int i = 0; i < np; i++) {
            if (in[i].kind != GM_HELLO || in[i].n != n || in[i].hash != hash) {
                plx_error("%s on comm %u, tag %d: the ranks passed different lists (rank %d: %d ranks, "
                          "rank %d: %d ranks%s)", fn, comm->id, (int)((tag >> 8) & 0x7fffffff), comm->rank,
                          n, peers[i], in[i].n, in[i].n == n ? ", different entries or order" : "");
                group_tell(comm, tag, np, peers, GM_MISMATCH, 0, 0);
                free(in);
                return PLX_ERR_MISMATCH;
            }
            for (int w = 0; w < ID_WORDS; w++) ids[w] |= in[i].ids[w];
            if (in[i].hwm > base) base = in[i].hwm;
        }
        int id = lowest_free(ids);
        if (id < 0 || round >= GROUP_MAX_ROUNDS) {
            if (id < 0)
                plx_error("%s: out of communicator ids: some listed rank belongs to %d communicators at "
                          "once (free unused ones)", fn, PLX_COMM_ID_LIMIT);
            else
                plx_error("%s: no id agreed after %d rounds (threads keep creating communicators over "
                          "the same ranks)", fn, round);
            group_tell(comm, tag, np, peers, GM_NOIDS, 0, 0);
            st = PLX_ERR_NO_MEMORY;
            break;
        }
        int mine = plx_comm_id_claim(ctx, (uint32_t)id);
        if ((st = group_tell(comm, tag, np, peers, GM_PROPOSE, (uint32_t)id, base)) != PLX_SUCCESS ||
            (st = group_xfer(comm, tag, np, peers, in, 0)) != PLX_SUCCESS) {
            if (mine) plx_comm_id_unclaim(ctx, (uint32_t)id);
            break;
        }
        int all = mine;
        for (int i = 0; i < np; i++) all = all && in[i].kind == GM_ACK;
        if ((st = group_tell(comm, tag, np, peers, all ? GM_COMMIT : GM_RETRY, (uint32_t)id, base)) !=
                PLX_SUCCESS || !all) {
            if (mine) plx_comm_id_unclaim(ctx, (uint32_t)id);
            if (st != PLX_SUCCESS) break;
            plx_debug("%s: id %d taken meanwhile at some member: round %d", fn, id, round + 1);
            continue;
        }
        *id_out = (uint32_t)id;
        *base_out = base;
        break;
    }
    free(in);
    return st;
}

/* A member: tell, claim what the leader proposes, follow its decision. */
static plx_status_t group_follow(const char *fn, plx_comm_t comm, uint64_t tag, int n, uint64_t hash,
                                 int leader, uint32_t *id_out, uint64_t *base_out)
{
    plx_context_t ctx = comm->ctx;
    group_msg_t *m = malloc(sizeof *m);
    if (!m) return PLX_ERR_NO_MEMORY;
    plx_status_t st;
    for (;;) {
        memset(m, 0, sizeof *m);
        m->kind = GM_HELLO;
        m->n = n;
        m->hash = hash;
        plx_comm_ids_snapshot(ctx, m->ids, &m->hwm);
        if ((st = group_xfer(comm, tag, 1, &leader, m, 1)) != PLX_SUCCESS ||
            (st = group_xfer(comm, tag, 1, &leader, m, 0)) != PLX_SUCCESS)
            break;
        if (m->kind == GM_MISMATCH) {
            plx_error("%s on comm %u: rank %d (the leader) saw different lists; this rank passed %d ranks",
                      fn, comm->id, leader, n);
            st = PLX_ERR_MISMATCH;
            break;
        }
        if (m->kind != GM_PROPOSE) {
            st = m->kind == GM_NOIDS ? PLX_ERR_NO_MEMORY : PLX_ERR_INTERNAL;
            break;
        }
        uint32_t id = m->id;
        uint64_t base = m->hwm;
        int mine = plx_comm_id_claim(ctx, id);
        *m = (group_msg_t){ .kind = mine ? GM_ACK : GM_NACK, .id = id };
        if ((st = group_xfer(comm, tag, 1, &leader, m, 1)) != PLX_SUCCESS ||
            (st = group_xfer(comm, tag, 1, &leader, m, 0)) != PLX_SUCCESS) {
            if (mine) plx_comm_id_unclaim(ctx, id);
            break;
        }
        if (m->kind == GM_COMMIT && mine) {
            *id_out = id;
            *base_out = base;
            break;
        }
        if (mine) plx_comm_id_unclaim(ctx, id);
        if (m->kind != GM_RETRY) {
            st = PLX_ERR_INTERNAL;
            break;
        }
    }
    free(m);
    return st;
}

plx_status_t plx_comm_create_group(plx_comm_t comm, int n, const int ranks[], int tag, plx_comm_t *newcomm)
{
    const char *fn = "plx_comm_create_group";
    if (newcomm) *newcomm = NULL;
    if (!plx_comm_ok(comm)) return plx_bad_arg(fn, "invalid or freed communicator");
    if (!newcomm) return plx_bad_arg(fn, "newcomm is NULL");
    if (n < 1 || n > comm->size)
        return plx_bad_arg(fn, "n = %d ranks (1..%d, the communicator's size; the caller is one of them)", n,
                           comm->size);
    if (!ranks) return plx_bad_arg(fn, "ranks is NULL with n = %d", n);
    if (tag < 0) return plx_bad_arg(fn, "tag %d is negative (0..PLX_TAG_MAX)", tag);
    unsigned char *seen = calloc((size_t)comm->size, 1);
    int *peers = malloc((size_t)n * sizeof *peers);
    int *wr = malloc((size_t)n * sizeof *wr);
    if (!seen || !peers || !wr) {
        free(seen);
        free(peers);
        free(wr);
        return PLX_ERR_NO_MEMORY;
    }
    plx_status_t st = PLX_SUCCESS;
    int pos = -1, leader = comm->size;
    for (int i = 0; i < n && st == PLX_SUCCESS; i++) {
        int r = ranks[i];
        if (r < 0 || r >= comm->size)
            st = plx_bad_arg(fn, "ranks[%d] = %d is not a rank of this communicator (size %d)", i, r,
                             comm->size);
        else if (seen[r])
            st = plx_bad_arg(fn, "rank %d is listed twice (ranks[%d])", r, i);
        else {
            seen[r] = 1;
            if (r == comm->rank) pos = i;
            if (r < leader) leader = r;
            wr[i] = comm->world_rank[r];
        }
    }
    if (st == PLX_SUCCESS && pos < 0)
        st = plx_bad_arg(fn, "this rank (%d) is not in ranks[]: only the listed ranks call it", comm->rank);
    if (st == PLX_SUCCESS) {
        uint64_t t = group_tag(comm, tag), hash = hash_list(n, ranks), base = 0;
        uint32_t id = 0;
        if (leader == comm->rank) {
            int np = 0;
            for (int i = 0; i < n; i++)
                if (ranks[i] != comm->rank) peers[np++] = ranks[i];
            st = group_lead(fn, comm, t, n, hash, np, peers, &id, &base);
        } else {
            st = group_follow(fn, comm, t, n, hash, leader, &id, &base);
        }
        /* the id is claimed here (and at every member): the comm owns it now */
        if (st == PLX_SUCCESS && (st = plx_comm_install(comm->ctx, id, n, wr, pos, base, newcomm)) != PLX_SUCCESS)
            plx_comm_id_unclaim(comm->ctx, id);
        if (st == PLX_SUCCESS)
            plx_debug("%s: new comm id %u, rank %d of %d", fn, id, pos, n);
        else if (st == PLX_ERR_TIMEOUT || st == PLX_ERR_PEER_FAILED)
            plx_error("%s on comm %u, tag %d: the %d listed ranks did not all take part (%s): a listed "
                      "rank that does not call it, or one that passed another list, leaves the others "
                      "waiting", fn, comm->id, tag, n, plx_strerror(st));
    }
    free(seen);
    free(peers);
    free(wr);
    return st;
}
