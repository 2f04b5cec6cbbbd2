/*
 * lib/api/vcoll.h — argument handling shared by the v-collectives
 * (allgatherv, alltoallv, gatherv, scatterv, reduce_scatterv): their
 * checks, the copies a graph node keeps, the start path they share with
 * the prefix reductions, and the packing of their arguments into a
 * coll_args_t, shared by the plain, i- and persistent forms.
 */
#ifndef PLX_API_VCOLL_H
#define PLX_API_VCOLL_H

#include "plx_internal.h"
#include "coll/coll.h"

/* The checks of one v-form call (datatype and op already checked):
 * PLX_ERR_INVALID_ARG with a message naming fn. */
plx_status_t plx_vcoll_check_args(const char *fn, plx_comm_t comm, const coll_args_t *a);

/* Replace a's count/displacement pointers by copies in one block
 * (a->owned, which the caller frees); nothing for the other collectives. */
plx_status_t plx_coll_args_own_arrays(coll_args_t *a, int size);

/* Check, set the count, start (i-form) or start and wait (blocking). */
plx_status_t plx_vcoll_icall(const char *fn, plx_comm_t comm, coll_args_t *a, plx_request_t *req);
plx_status_t plx_vcoll_call(const char *fn, plx_comm_t comm, coll_args_t *a);

/* ---- packing: one macro per call, so every form fills coll_args_t alike ---- */
#define AGV_ARGS(sb, sc, rb, rc, dp, dt)                                                       \
    { .coll = PLX_COLL_ALLGATHERV, .sbuf = (sb), .rbuf = (rb), .count = (sc), .dt = (dt),     \
      .rcounts = (rc), .rdispls = (dp) }

/* in place the send counts and displacements are ignored: not kept */
#define A2AV_ARGS(sb, sc, sd, rb, rc, rd, dt)                                                   \
    { .coll = PLX_COLL_ALLTOALLV, .sbuf = (sb), .rbuf = (rb), .dt = (dt),                      \
      .scounts = coll_in_place(sb) ? NULL : (sc), .sdispls = coll_in_place(sb) ? NULL : (sd),   \
      .rcounts = (rc), .rdispls = (rd) }

#define GV_ARGS(sb, sc, rb, rc, dp, dt, root)                                                   \
    { .coll = PLX_COLL_GATHERV, .sbuf = (sb), .rbuf = (rb), .count = (sc), .dt = (dt),          \
      .root = (root), .rcounts = (rc), .rdispls = (dp) }

#define SV_ARGS(sb, sc, dp, rb, rc, dt, root)                                                   \
    { .coll = PLX_COLL_SCATTERV, .sbuf = (sb), .rbuf = (rb), .count = (rc), .dt = (dt),         \
      .root = (root), .scounts = (sc), .sdispls = (dp) }

#define RSV_ARGS(sb, rb, rc, dt, op)                                                            \
    { .coll = PLX_COLL_REDUCE_SCATTERV, .sbuf = (sb), .rbuf = (rb), .dt = (dt), .op = (op),     \
      .rcounts = (rc) }

/* c: PLX_COLL_SCAN or PLX_COLL_EXSCAN */
#define SCAN_ARGS(c, sb, rb, n, dt, op)                                                         \
    { .coll = (c), .sbuf = (sb), .rbuf = (rb), .count = (n), .dt = (dt), .op = (op) }

#endif /* PLX_API_VCOLL_H */
