/*
 * lib/api/vcoll.h — argument handling shared by the v-collectives
 * (allgatherv, alltoallv, gatherv, scatterv, reduce_scatterv): their
 * checks, the copies a graph node keeps, and the start path they share
 * with the prefix reductions.
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

#endif /* PLX_API_VCOLL_H */
