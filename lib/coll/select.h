/*
 * lib/coll/select.h — the selector: which algorithm runs a collective.
 *
 * One table per context maps (collective, message bytes, communicator size)
 * to an algorithm of lib/coll/coll.h.  The defaults are themselves written
 * in PLX_TUNE syntax (DEFAULT_TUNE in select.c) so there is one parser and
 * one printed form; the user's PLX_TUNE replaces the rules of each
 * collective it names.
 *
 * PLX_TUNE syntax:  rule (';' rule)*
 *   rule  := collective ':' range '@' algorithm (',' range '@' algorithm)*
 *   range := size '-' size ['/' ranks '-' ranks]
 *            (bytes, K/M/G suffixes, 'inf'; lower bound inclusive, upper
 *            exclusive; the optional ranks range, both ends inclusive,
 *            limits the rule to communicators of that many ranks)
 * Ranges are tried left to right; the first whose range holds the size
 * and whose algorithm can run on the communicator wins (ranges may
 * overlap: "0-32K@shm_slots,0-16K@recursive_doubling,..." runs shm_slots
 * where every rank shares one node and falls through elsewhere).
 * "bytes" is count x datatype size as passed to the call (the per-rank
 * contribution for allgather/gather, the per-peer block for alltoall and
 * scatter, the result block for reduce_scatter; for allgatherv and
 * reduce_scatterv the total over all ranks, which every rank knows; for
 * alltoallv the larger of this rank's send and receive totals, for gatherv
 * and scatterv this rank's own block: those three only choose among
 * algorithms that match on the wire whatever each rank picks).  Sizes not covered by any
 * range fall back to the default rule.
 */
#ifndef PLX_SELECT_H
#define PLX_SELECT_H

#include <stdio.h>
#include "coll/coll.h"

typedef struct plx_select plx_select_t;

/* Rules per collective, in the defaults and in PLX_TUNE alike: the default
 * alltoall table has 15 (one row per measured rank count), so room for the
 * next measured ones; a longer list is refused by name. */
#define PLX_SELECT_MAX_RULES 32

/* Build the table from the defaults plus user overrides (tune may be NULL
 * or ""); on a bad string returns PLX_ERR_INVALID_ARG and a message naming
 * the bad token in err. */
plx_status_t plx_select_create(const char *tune, plx_select_t **sel, char *err, size_t errlen);
void plx_select_free(plx_select_t *sel);

/* The algorithm for this call on comm; never NULL for a valid collective.
 * Logs at PLX_LOG=info the first time each (collective, algorithm) runs. */
const coll_algo_t *plx_select_algo(plx_select_t *sel, plx_coll_t coll, size_t bytes, plx_comm_t comm);
/* The same; need_order = 1 (a non-commutative user op) skips every
 * algorithm that is not rank_ordered, in PLX_TUNE's rules and the
 * defaults alike. */
const coll_algo_t *plx_select_algo_for(plx_select_t *sel, plx_coll_t coll, size_t bytes,
                                       plx_comm_t comm, int need_order);

/* Print the effective table for a communicator of comm_size ranks. */
void plx_select_print(const plx_select_t *sel, FILE *out, int comm_size);

/* The built-in default rules in PLX_TUNE syntax. */
const char *plx_select_defaults(void);

#endif /* PLX_SELECT_H */
