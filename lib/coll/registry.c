/*
 * lib/coll/registry.c — the table of every collective algorithm, by
 * collective and name: what the selector (lib/coll/select.c) chooses from, what
 * PLX_TUNE names and what plexus_info prints.
 */
#include "coll.h"
#include "hier.h"
#include "node_slots.h"
#include "node_direct.h"

#include <string.h>

static const char *const coll_names[PLX_COLL_COUNT] = {
    [PLX_COLL_BARRIER] = "barrier",     [PLX_COLL_BCAST] = "bcast",
    [PLX_COLL_REDUCE] = "reduce",       [PLX_COLL_ALLREDUCE] = "allreduce",
    [PLX_COLL_ALLGATHER] = "allgather", [PLX_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [PLX_COLL_ALLTOALL] = "alltoall",   [PLX_COLL_GATHER] = "gather",
    [PLX_COLL_SCATTER] = "scatter",
    [PLX_COLL_ALLGATHERV] = "allgatherv", [PLX_COLL_ALLTOALLV] = "alltoallv",
    [PLX_COLL_GATHERV] = "gatherv",       [PLX_COLL_SCATTERV] = "scatterv",
    [PLX_COLL_REDUCE_SCATTERV] = "reduce_scatterv",
    [PLX_COLL_SCAN] = "scan",             [PLX_COLL_EXSCAN] = "exscan",
};

const coll_algo_t plx_coll_algos[] = {
    { PLX_COLL_BARRIER, "dissemination", coll_barrier_dissemination,
      "ceil(log2 p) rounds of empty messages to rank+2^k", 0, NULL, 0 },
    { PLX_COLL_BCAST, "binomial", coll_bcast_binomial,
      "binomial tree from root, whole buffer per step; small buffers", 0, NULL, 0 },
    { PLX_COLL_BCAST, "scatter_allgather", coll_bcast_scatter_allgather,
      "binomial scatter of p blocks + ring allgather (van de Geijn); large buffers", 0, NULL, 0 },
    { PLX_COLL_REDUCE, "binomial", coll_reduce_binomial,
      "binomial tree toward root, whole vector per step; small vectors", 0, NULL, 0 },
    { PLX_COLL_REDUCE, "reduce_scatter_gather", coll_reduce_scatter_gather,
      "recursive-halving reduce-scatter + binomial gather (Rabenseifner); large vectors", 0, NULL, 0 },
    { PLX_COLL_ALLREDUCE, "recursive_doubling", coll_allreduce_recursive_doubling,
      "log2 p whole-vector exchanges with rank^2^k; small vectors", 0, NULL, 1 },
    { PLX_COLL_ALLREDUCE, "ring", coll_allreduce_ring,
      "ring reduce-scatter + ring allgather, 2(p-1) steps of 1/p; large vectors", 0, NULL, 0 },
    { PLX_COLL_ALLREDUCE, "rabenseifner", coll_allreduce_rabenseifner,
      "recursive-halving reduce-scatter + recursive-doubling allgather; medium-large vectors", 0, NULL, 0 },
    { PLX_COLL_ALLGATHER, "ring", coll_allgather_ring,
      "p-1 steps passing one block to the right; large blocks", 0, NULL, 0 },
    { PLX_COLL_ALLGATHER, "bruck", coll_allgather_bruck,
      "ceil(log2 p) steps at doubling distance, any p; small blocks", 0, NULL, 0 },
    { PLX_COLL_REDUCE_SCATTER, "ring", coll_reduce_scatter_ring,
      "p-1 steps adding one block from the left; large blocks", 0, NULL, 0 },
    { PLX_COLL_REDUCE_SCATTER, "recursive_halving", coll_reduce_scatter_recursive_halving,
      "log2 p exchanges of halves with rank^2^k; small blocks", 0, NULL, 0 },
    { PLX_COLL_ALLTOALL, "pairwise", coll_alltoall_pairwise,
      "p-1 rounds, each a sendrecv with rank+k / rank-k; large blocks", 0, NULL, 0 },
    { PLX_COLL_ALLTOALL, "linear", coll_alltoall_linear,
      "all sends and receives posted at once; small blocks", 0, NULL, 0 },
    { PLX_COLL_GATHER, "linear", coll_gather_linear,
      "every rank sends straight to root; large blocks", 0, NULL, 0 },
    { PLX_COLL_GATHER, "binomial", coll_gather_binomial,
      "binomial tree toward root forwarding whole subtrees; small blocks", 0, NULL, 0 },
    { PLX_COLL_SCATTER, "linear", coll_scatter_linear,
      "root sends straight to every rank; large blocks", 0, NULL, 0 },
    { PLX_COLL_SCATTER, "binomial", coll_scatter_binomial,
      "binomial tree from root forwarding whole subtrees; small blocks", 0, NULL, 0 },
    { PLX_COLL_BARRIER, "shm_slots", NULL,
      "node-local: every rank flags its shared slot and reads the others' flags", 1, plx_slots_can_run, 0 },
    { PLX_COLL_BCAST, "shm_slots", NULL,
      "node-local: root writes its shared slot, the others copy from it", 1, plx_slots_can_run, 0 },
    { PLX_COLL_REDUCE, "shm_slots", NULL,
      "node-local: every rank writes its shared slot, root reduces them in place", 1, plx_slots_can_run,
      1 },
    { PLX_COLL_ALLREDUCE, "shm_slots", NULL,
      "node-local: every rank writes its shared slot and reduces all of them in place", 1, plx_slots_can_run,
      1 },
    { PLX_COLL_ALLGATHER, "shm_slots", NULL,
      "node-local: every rank writes its shared slot and copies all of them", 1, plx_slots_can_run, 0 },
    { PLX_COLL_BARRIER, "hier", coll_barrier_hier,
      "several nodes: arrive at the node leader, dissemination among leaders, release", 0,
      plx_hier_can_run, 0 },
    { PLX_COLL_BCAST, "hier", coll_bcast_hier,
      "several nodes: root's leader, binomial among node leaders, then each node", 0,
      plx_hier_can_run, 0 },
    { PLX_COLL_REDUCE, "hier", coll_reduce_hier,
      "several nodes: reduce to each node leader, binomial among leaders, to root", 0,
      plx_hier_can_run, 0 },
    { PLX_COLL_ALLREDUCE, "hier", coll_allreduce_hier,
      "several nodes: reduce to node leaders, recursive doubling among them, bcast", 0,
      plx_hier_can_run, 0 },
    { PLX_COLL_ALLGATHER, "hier", coll_allgather_hier,
      "several nodes: gather at node leaders, leaders swap blocks, bcast", 0,
      plx_hier_can_run, 0 },
    { PLX_COLL_ALLREDUCE, "direct", NULL,
      "node-local single copy: each rank reduces its slice reading all inputs, then copies the others'",
      COLL_NODE_DIRECT, plx_direct_can_run, 0 },
    { PLX_COLL_REDUCE_SCATTER, "direct", NULL,
      "node-local single copy: each rank reduces its block reading it from every input",
      COLL_NODE_DIRECT, plx_direct_can_run, 0 },
    { PLX_COLL_REDUCE, "direct", NULL,
      "node-local single copy: each rank reduces a slice of all inputs, root copies the slices",
      COLL_NODE_DIRECT, plx_direct_can_run, 0 },
    { PLX_COLL_BCAST, "direct", NULL,
      "node-local single copy: every rank reads the root's buffer", COLL_NODE_DIRECT,
      plx_direct_can_run, 0 },
    { PLX_COLL_ALLGATHER, "direct", NULL,
      "node-local single copy: every rank reads every other rank's block", COLL_NODE_DIRECT,
      plx_direct_can_run, 0 },
    { PLX_COLL_ALLTOALL, "direct", NULL,
      "node-local single copy: every rank reads its block of every input", COLL_NODE_DIRECT,
      plx_direct_can_run, 0 },
    { PLX_COLL_GATHER, "direct", NULL,
      "node-local single copy: root reads every rank's block", COLL_NODE_DIRECT, plx_direct_can_run, 0 },
    { PLX_COLL_SCATTER, "direct", NULL,
      "node-local single copy: every rank reads its block of the root's buffer", COLL_NODE_DIRECT,
      plx_direct_can_run, 0 },
    /* issue 14: per-rank counts, prefix reductions, rank-ordered reductions */
    { PLX_COLL_ALLGATHERV, "linear", coll_allgatherv_linear,
      "every rank sends its block straight to every other, one round; small totals", 0, NULL, 0 },
    { PLX_COLL_ALLGATHERV, "ring", coll_allgatherv_ring,
      "p-1 steps passing one block to the right; large totals", 0, NULL, 0 },
    { PLX_COLL_ALLTOALLV, "linear", coll_alltoallv_linear,
      "all sends and receives posted at once; small blocks", 0, NULL, 0 },
    { PLX_COLL_ALLTOALLV, "pairwise", coll_alltoallv_pairwise,
      "p-1 rounds, each a sendrecv with rank+k / rank-k; large blocks", 0, NULL, 0 },
    { PLX_COLL_GATHERV, "linear", coll_gatherv_linear,
      "every rank sends its block straight to root", 0, NULL, 0 },
    { PLX_COLL_SCATTERV, "linear", coll_scatterv_linear,
      "root sends straight to every rank", 0, NULL, 0 },
    { PLX_COLL_REDUCE_SCATTERV, "ring", coll_reduce_scatterv_ring,
      "p-1 steps adding one block from the left", 0, NULL, 0 },
    { PLX_COLL_REDUCE_SCATTERV, "ordered", coll_reduce_scatterv_ordered,
      "rank-order binomial reduce to rank 0, then linear scatterv", 0, NULL, 1 },
    { PLX_COLL_SCAN, "recursive_doubling", coll_scan_recursive_doubling,
      "log2 p exchanges of partial prefixes with rank^2^k", 0, NULL, 1 },
    { PLX_COLL_SCAN, "linear", coll_scan_linear,
      "a chain: rank r adds its input to r-1's prefix and passes it on", 0, NULL, 1 },
    { PLX_COLL_EXSCAN, "recursive_doubling", coll_exscan_recursive_doubling,
      "log2 p exchanges of partial prefixes with rank^2^k", 0, NULL, 1 },
    { PLX_COLL_EXSCAN, "linear", coll_exscan_linear,
      "a chain: rank r passes r-1's prefix op its input on", 0, NULL, 1 },
    { PLX_COLL_REDUCE, "ordered", coll_reduce_ordered,
      "binomial tree to rank 0 combining in rank order, then to root", 0, NULL, 1 },
    { PLX_COLL_REDUCE_SCATTER, "ordered", coll_reduce_scatter_ordered,
      "rank-order binomial reduce to rank 0, then linear scatter", 0,
      NULL, 1 },
    /* issue 14: node-local v-forms (node_slots_v.c, node_direct_v.c) */
    { PLX_COLL_ALLGATHERV, "shm_slots", NULL,
      "node-local: every rank writes its block in its shared slot and copies the others'", 1,
      plx_slots_v_total_can_run, 0 },
    { PLX_COLL_ALLTOALLV, "shm_slots", NULL,
      "node-local: every rank writes its blocks in its shared slot (too large: single-copy reads)", 1,
      plx_slots_v_spill_can_run, 0 },
    { PLX_COLL_GATHERV, "shm_slots", NULL,
      "node-local: every rank writes its block in its shared slot, root copies (too large: single copy)",
      1, plx_slots_v_spill_can_run, 0 },
    { PLX_COLL_SCATTERV, "shm_slots", NULL,
      "node-local: root writes the blocks in its shared slot, each copies its own (too large: single copy)",
      1, plx_slots_v_spill_can_run, 0 },
    { PLX_COLL_REDUCE_SCATTERV, "shm_slots", NULL,
      "node-local: every rank writes its input in its shared slot and reduces its block of all", 1,
      plx_slots_v_total_can_run, 1 },
    /* issue 11: the non-v forms on the v-forms' slots, equal counts (node_slots_v.c) */
    { PLX_COLL_ALLTOALL, "shm_slots", NULL,
      "node-local: every rank writes its blocks in its shared slot, each copies its own", 1,
      plx_slots_u_table_can_run, 0 },
    { PLX_COLL_GATHER, "shm_slots", NULL,
      "node-local: every rank writes its block in its shared slot, root copies them", 1,
      plx_slots_u_block_can_run, 0 },
    { PLX_COLL_SCATTER, "shm_slots", NULL,
      "node-local: root writes the blocks in its shared slot, each copies its own", 1,
      plx_slots_u_table_can_run, 0 },
    { PLX_COLL_REDUCE_SCATTER, "shm_slots", NULL,
      "node-local: every rank writes its input in its shared slot and reduces its block of all", 1,
      plx_slots_u_input_can_run, 1 },
    { PLX_COLL_ALLGATHERV, "direct", NULL,
      "node-local single copy: every rank reads every other rank's block", COLL_NODE_DIRECT,
      plx_direct_v_can_run, 0 },
    { PLX_COLL_ALLTOALLV, "direct", NULL,
      "node-local single copy: every rank reads its block of every input", COLL_NODE_DIRECT,
      plx_direct_v_can_run, 0 },
    { PLX_COLL_GATHERV, "direct", NULL,
      "node-local single copy: root reads every rank's block", COLL_NODE_DIRECT, plx_direct_v_can_run, 0 },
    { PLX_COLL_SCATTERV, "direct", NULL,
      "node-local single copy: every rank reads its block of the root's buffer", COLL_NODE_DIRECT,
      plx_direct_v_can_run, 0 },
    { PLX_COLL_COUNT, NULL, NULL, NULL, 0, NULL, 0 },
};

const coll_algo_t *coll_algo_find(plx_coll_t coll, const char *name)
{
    if (!name) return NULL;
    for (const coll_algo_t *a = plx_coll_algos; a->name; a++)
        if (a->coll == coll && strcmp(a->name, name) == 0) return a;
    return NULL;
}

const char *plx_coll_name(plx_coll_t c)
{
    return (unsigned)c < PLX_COLL_COUNT ? coll_names[c] : NULL;
}

int plx_coll_from_name(const char *name)
{
    if (!name) return -1;
    for (int c = 0; c < PLX_COLL_COUNT; c++)
        if (strcmp(coll_names[c], name) == 0) return c;
    return -1;
}
