/*
 * lib/coll/hier.c — hierarchical collectives for communicators that span
 * several nodes ("hier" in the selector): a node-local phase among the
 * ranks of each node (shared memory), an inter-node phase among one leader
 * per node (the network transport, UCX), and a node-local phase back.
 * Only leaders put bytes on the network, once per node instead of once per
 * rank.
 *
 *   allreduce  local reduce to the leader; recursive doubling among leaders
 *              (non-powers of two folded in first); local bcast
 *   bcast      root -> its leader; binomial tree among leaders; local bcast
 *   reduce     local reduce to the leader; binomial reduce among leaders to
 *              root's leader; -> root
 *   allgather  local gather to the leader; leaders exchange their nodes'
 *              blocks; local bcast of the whole result
 *   barrier    local arrive; dissemination among leaders; local release
 *
 * From HIER_DIRECT_MIN bytes the node-local phases (the reduce to the
 * leader, the final bcast) can run as single-copy collectives among the
 * node's ranks (lib/coll/node_direct.c) instead of whole-vector messages to
 * and from the leader.
 *
 * The leader of a node is its lowest communicator rank; nodes are numbered
 * in order of their first rank.  Everything is a schedule on the parent
 * communicator (one tag), so no sub-communicator has to be agreed on.
 * Recursive doubling combines equal groups on both sides, so every rank
 * ends with bitwise the same allreduce result.
 */
#include "coll.h"
#include "hier.h"
#include "node_direct.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hier_map {
    int nnodes;              /* nodes this communicator spans */
    int my_node;
    int *node;               /* [size] node index of each comm rank */
    int *start;              /* [nnodes + 1] members[start[i] .. start[i+1]) are node i */
    int *members;            /* [size] comm ranks grouped by node, increasing */
};

static struct hier_map *map_of(plx_comm_t comm)
{
    if (comm->hier) return comm->hier;
    plx_context_t ctx = comm->ctx;
    int p = comm->size;
    struct hier_map *h = calloc(1, sizeof *h);
    int *node = malloc((size_t)p * sizeof *node), *first = malloc((size_t)p * sizeof *first);
    int *start = calloc((size_t)p + 1, sizeof *start), *members = malloc((size_t)p * sizeof *members);
    if (!h || !node || !first || !start || !members) {
        free(h); free(node); free(first); free(start); free(members);
        return NULL;
    }
    /* node index by first appearance: first[i] = world node id of node i */
    int nn = 0;
    for (int r = 0; r < p; r++) {
        int wn = ctx->node_of[comm->world_rank[r]], i = 0;
        while (i < nn && first[i] != wn) i++;
        if (i == nn) first[nn++] = wn;
        node[r] = i;
    }
    for (int r = 0; r < p; r++) start[node[r] + 1]++;
    for (int i = 0; i < nn; i++) start[i + 1] += start[i];
    int *fill = first;   /* reuse as fill pointers */
    for (int i = 0; i < nn; i++) fill[i] = start[i];
    for (int r = 0; r < p; r++) members[fill[node[r]]++] = r;
    free(first);
    h->nnodes = nn;
    h->my_node = node[comm->rank];
    h->node = node;
    h->start = start;
    h->members = members;
    comm->hier = h;
    return h;
}

void plx_hier_release(plx_comm_t comm)
{
    struct hier_map *h = comm->hier;
    if (!h) return;
    free(h->node);
    free(h->start);
    free(h->members);
    free(h);
    comm->hier = NULL;
}

int plx_hier_can_run(plx_comm_t comm, size_t bytes)
{
    (void)bytes;
    if (!comm) return 1;   /* printing the table */
    const struct hier_map *h = map_of(comm);
    return h && h->nnodes > 1 && h->nnodes < comm->size;   /* several nodes, one of them shared */
}

static int leader(const struct hier_map *h, int node) { return h->members[h->start[node]]; }
static int nlocal(const struct hier_map *h, int node) { return h->start[node + 1] - h->start[node]; }
static int local(const struct hier_map *h, int node, int k) { return h->members[h->start[node] + k]; }

/* Node-local phases from this many bytes run single-copy (direct), where
 * the node's ranks allow it: the measured crossover.  When the schedule
 * fails before a phase starts (a mismatch seen by the signature ring, a
 * dead leader), the phase's cancel closes its node-local number with the
 * schedule's status (lib/coll/node_direct.c, "Closed numbers"): node-mates
 * waiting in that phase end with the same status, and later collectives
 * on the communicator still run direct. */
#define HIER_DIRECT_MIN ((size_t)64 << 10)

static int node_direct(plx_comm_t comm, const struct hier_map *h, size_t bytes)
{
    int nl = nlocal(h, h->my_node);
    return bytes >= HIER_DIRECT_MIN && nl > 1 &&
           plx_direct_node_can_run(comm, &h->members[h->start[h->my_node]], nl);
}

/* A direct node-local phase of collective c among my node's ranks, rooted
 * at the leader (member 0), as a round of its own: never in round 0 with
 * the signature messages, so a mismatch the ring sees ends the schedule
 * before the phase publishes anything (its cancel then closes it cleanly,
 * with no node-mate reading this rank's buffers). */
static void direct_phase(plx_sched_t *s, plx_comm_t comm, plx_coll_t c, const void *sbuf, void *rbuf,
                         size_t count, plx_dtype_t dt, plx_op_t op)
{
    coll_args_t a = { .coll = c, .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt, .op = op,
                      .root = 0 };
    sched_round(s);
    plx_direct_sched_phase(s, comm, &a);
    sched_round(s);
}

/* Recursive doubling allreduce of buf among the leaders (this rank is the
 * leader of node me); tmp holds bytes.  Non-powers of two: the first 2*rem
 * leaders pair up, the even one lends its vector to the odd one and gets
 * the result back at the end. */
static void leaders_allreduce(plx_sched_t *s, const struct hier_map *h, void *buf, void *tmp,
                              size_t count, plx_dtype_t dt, plx_op_t op)
{
    int L = h->nnodes, me = h->my_node;
    size_t bytes = count * plx_dtype_size(dt);
    int pof2 = 1;
    while (pof2 * 2 <= L) pof2 *= 2;
    int rem = L - pof2, newrank;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            sched_send(s, leader(h, me + 1), buf, bytes);
            newrank = -1;
        } else {
            sched_recv(s, leader(h, me - 1), tmp, bytes);
            sched_reduce(s, buf, tmp, count, dt, op);
            newrank = me / 2;
        }
        sched_round(s);
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int nd = newrank ^ mask;
            int dst = nd < rem ? nd * 2 + 1 : nd + rem;
            sched_send(s, leader(h, dst), buf, bytes);
            sched_recv(s, leader(h, dst), tmp, bytes);
            sched_reduce(s, buf, tmp, count, dt, op);
            sched_round(s);
        }
    }
    if (me < 2 * rem) {
        if (me % 2 == 0) sched_recv(s, leader(h, me + 1), buf, bytes);
        else sched_send(s, leader(h, me - 1), buf, bytes);
        sched_round(s);
    }
}

/* Leader: acc = my input op every local member's input. */
static void local_reduce_to_leader(plx_sched_t *s, const struct hier_map *h, void *acc, const void *in,
                                   size_t count, plx_dtype_t dt, plx_op_t op)
{
    size_t bytes = count * plx_dtype_size(dt);
    int nl = nlocal(h, h->my_node);
    char *tmp = nl > 1 ? sched_alloc(s, (size_t)(nl - 1) * bytes) : NULL;
    for (int k = 1; k < nl; k++) sched_recv(s, local(h, h->my_node, k), tmp + (size_t)(k - 1) * bytes, bytes);
    if (acc != in) sched_copy(s, acc, in, bytes);
    for (int k = 1; k < nl; k++) sched_reduce(s, acc, tmp + (size_t)(k - 1) * bytes, count, dt, op);
    sched_round(s);
}

plx_status_t coll_allreduce_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    const struct hier_map *h = map_of(comm);
    if (!h) return PLX_ERR_NO_MEMORY;
    size_t n = a->count, bytes = n * plx_dtype_size(a->dt);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    int lead = leader(h, h->my_node);
    plx_op_t op = coll_reduce_op(a->op);
    if (node_direct(comm, h, bytes)) {
        int is_lead = comm->rank == lead;
        direct_phase(s, comm, PLX_COLL_REDUCE, is_lead && in == a->rbuf ? PLX_IN_PLACE : in, a->rbuf, n,
                     a->dt, op);
        if (is_lead) {
            leaders_allreduce(s, h, a->rbuf, sched_alloc(s, bytes), n, a->dt, op);
            if (a->op == PLX_AVG) {
                sched_avg(s, a->rbuf, n, a->dt, comm->size);
                sched_round(s);
            }
        }
        direct_phase(s, comm, PLX_COLL_BCAST, a->rbuf, a->rbuf, n, a->dt, PLX_SUM);
        return PLX_SUCCESS;
    }
    if (comm->rank != lead) {
        sched_send(s, lead, in, bytes);
        sched_round(s);
        sched_recv(s, lead, a->rbuf, bytes);
        sched_round(s);
        return PLX_SUCCESS;
    }
    local_reduce_to_leader(s, h, a->rbuf, in, n, a->dt, op);
    leaders_allreduce(s, h, a->rbuf, sched_alloc(s, bytes), n, a->dt, op);
    if (a->op == PLX_AVG) {
        sched_avg(s, a->rbuf, n, a->dt, comm->size);
        sched_round(s);
    }
    for (int k = 1; k < nlocal(h, h->my_node); k++) sched_send(s, local(h, h->my_node, k), a->rbuf, bytes);
    sched_round(s);
    return PLX_SUCCESS;
}

plx_status_t coll_bcast_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    const struct hier_map *h = map_of(comm);
    if (!h) return PLX_ERR_NO_MEMORY;
    size_t bytes = a->count * plx_dtype_size(a->dt);
    void *buf = a->rbuf;
    int root = a->root, rnode = h->node[root], rlead = leader(h, rnode);
    int me = comm->rank, lead = leader(h, h->my_node);
    int direct = node_direct(comm, h, bytes);
    if (me != lead) {
        if (me == root) sched_send(s, rlead, buf, bytes);
        else if (!direct) sched_recv(s, lead, buf, bytes);
        sched_round(s);
        /* (the root takes part too: it is one of the node's ranks) */
        if (direct) direct_phase(s, comm, PLX_COLL_BCAST, buf, buf, a->count, a->dt, PLX_SUM);
        return PLX_SUCCESS;
    }
    if (me == rlead && root != me) {
        sched_recv(s, root, buf, bytes);
        sched_round(s);
    }
    /* binomial tree among leaders, relative to root's node */
    int L = h->nnodes, vr = (h->my_node - rnode + L) % L;
    int low = coll_lowbit(vr, L);
    if (vr) {
        sched_recv(s, leader(h, (vr - low + rnode) % L), buf, bytes);
        sched_round(s);
    }
    for (int m = low >> 1; m > 0; m >>= 1)
        if (vr + m < L) sched_send(s, leader(h, (vr + m + rnode) % L), buf, bytes);
    sched_round(s);
    if (direct) {
        direct_phase(s, comm, PLX_COLL_BCAST, buf, buf, a->count, a->dt, PLX_SUM);
        return PLX_SUCCESS;
    }
    for (int k = 1; k < nlocal(h, h->my_node); k++)
        if (local(h, h->my_node, k) != root) sched_send(s, local(h, h->my_node, k), buf, bytes);
    sched_round(s);
    return PLX_SUCCESS;
}

plx_status_t coll_reduce_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    const struct hier_map *h = map_of(comm);
    if (!h) return PLX_ERR_NO_MEMORY;
    size_t n = a->count, bytes = n * plx_dtype_size(a->dt);
    int root = a->root, me = comm->rank, lead = leader(h, h->my_node);
    int rnode = h->node[root], rlead = leader(h, rnode);
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    plx_op_t op = coll_reduce_op(a->op);
    int direct = node_direct(comm, h, bytes);
    if (me != lead) {
        if (direct) direct_phase(s, comm, PLX_COLL_REDUCE, in, NULL, n, a->dt, op);
        else sched_send(s, lead, in, bytes);
        sched_round(s);
        if (me == root) {
            sched_recv(s, rlead, a->rbuf, bytes);
            if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, comm->size);
            sched_round(s);
        }
        return PLX_SUCCESS;
    }
    void *acc = me == root ? a->rbuf : sched_alloc(s, bytes);
    if (direct) direct_phase(s, comm, PLX_COLL_REDUCE, in == acc ? PLX_IN_PLACE : in, acc, n, a->dt, op);
    else local_reduce_to_leader(s, h, acc, in, n, a->dt, op);
    /* binomial reduce among leaders toward root's node */
    int L = h->nnodes, vr = (h->my_node - rnode + L) % L;
    void *tmp = sched_alloc(s, bytes);
    for (int mask = 1; mask < L; mask <<= 1) {
        if (vr & mask) {
            sched_send(s, leader(h, (vr - mask + rnode) % L), acc, bytes);
            sched_round(s);
            break;
        }
        if (vr + mask < L) {
            sched_recv(s, leader(h, (vr + mask + rnode) % L), tmp, bytes);
            sched_reduce(s, acc, tmp, n, a->dt, op);
            sched_round(s);
        }
    }
    if (me == rlead) {
        if (root == me) {
            if (a->op == PLX_AVG) sched_avg(s, a->rbuf, n, a->dt, comm->size);
        } else {
            sched_send(s, root, acc, bytes);
        }
        sched_round(s);
    }
    return PLX_SUCCESS;
}

plx_status_t coll_allgather_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    const struct hier_map *h = map_of(comm);
    if (!h) return PLX_ERR_NO_MEMORY;
    size_t blk = a->count * plx_dtype_size(a->dt);
    char *out = a->rbuf;
    int me = comm->rank, lead = leader(h, h->my_node), p = comm->size;
    const void *in = coll_in_place(a->sbuf) ? out + (size_t)me * blk : a->sbuf;
    /* the final node-local bcast of the whole result, single copy when large */
    int direct = node_direct(comm, h, (size_t)p * blk);
    if (me != lead) {
        sched_send(s, lead, in, blk);
        sched_round(s);
        if (direct) direct_phase(s, comm, PLX_COLL_BCAST, out, out, (size_t)p * blk, PLX_UINT8, PLX_SUM);
        else sched_recv(s, lead, out, (size_t)p * blk);
        sched_round(s);
        return PLX_SUCCESS;
    }
    int mn = h->my_node;
    for (int k = 1; k < nlocal(h, mn); k++) {
        int r = local(h, mn, k);
        sched_recv(s, r, out + (size_t)r * blk, blk);
    }
    if (!coll_in_place(a->sbuf)) sched_copy(s, out + (size_t)me * blk, in, blk);
    sched_round(s);
    /* leaders swap their nodes' blocks, one message per block, in member order */
    for (int j = 0; j < h->nnodes; j++) {
        if (j == mn) continue;
        for (int k = 0; k < nlocal(h, mn); k++) {
            int r = local(h, mn, k);
            sched_send(s, leader(h, j), out + (size_t)r * blk, blk);
        }
        for (int k = 0; k < nlocal(h, j); k++) {
            int r = local(h, j, k);
            sched_recv(s, leader(h, j), out + (size_t)r * blk, blk);
        }
    }
    sched_round(s);
    if (direct) {
        direct_phase(s, comm, PLX_COLL_BCAST, out, out, (size_t)p * blk, PLX_UINT8, PLX_SUM);
        return PLX_SUCCESS;
    }
    for (int k = 1; k < nlocal(h, mn); k++) sched_send(s, local(h, mn, k), out, (size_t)p * blk);
    sched_round(s);
    return PLX_SUCCESS;
}

plx_status_t coll_barrier_hier(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    (void)a;
    const struct hier_map *h = map_of(comm);
    if (!h) return PLX_ERR_NO_MEMORY;
    int me = comm->rank, mn = h->my_node, lead = leader(h, mn);
    if (me != lead) {
        sched_send(s, lead, NULL, 0);
        sched_round(s);
        sched_recv(s, lead, NULL, 0);
        sched_round(s);
        return PLX_SUCCESS;
    }
    for (int k = 1; k < nlocal(h, mn); k++) sched_recv(s, local(h, mn, k), NULL, 0);
    sched_round(s);
    int L = h->nnodes;
    for (int d = 1; d < L; d <<= 1) {
        sched_send(s, leader(h, (mn + d) % L), NULL, 0);
        sched_recv(s, leader(h, (mn - d + L) % L), NULL, 0);
        sched_round(s);
    }
    for (int k = 1; k < nlocal(h, mn); k++) sched_send(s, local(h, mn, k), NULL, 0);
    sched_round(s);
    return PLX_SUCCESS;
}
