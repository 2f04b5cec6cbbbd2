/*
 * lib/engine/persist.h — persistent requests: a collective (or a send or
 * receive) set up once by a plx_*_init call and run any number of times by
 * plx_start / plx_startall, as MPI-4's MPI_Allreduce_init + MPI_Start.
 *
 * The init call checks the arguments, selects the algorithm and builds its
 * schedule (or node-local slot operation) once; each start re-arms what was
 * built (the communicator's next sequence number, the steps reset) and puts
 * the request back on the engine's active list: no allocation, no
 * selection.  Every collective's _init is one thin wrapper around
 * plx_persist_coll_init (lib/api/coll_init.c), so a new collective gets its
 * persistent form with a few lines.
 */
#ifndef PLX_PERSIST_H
#define PLX_PERSIST_H

#include "engine/request.h"

/* Check a (the arguments of collective a->coll, as the i-form checks
 * them, with fn naming the public call in messages) and make an inactive
 * persistent request for it.  Takes the context lock. */
plx_status_t plx_persist_coll_init(const char *fn, plx_comm_t comm, const coll_args_t *a,
                                   plx_request_t *req);

/* The same for a send (kind REQ_SEND) or a receive (REQ_RECV). */
plx_status_t plx_persist_p2p_init(const char *fn, int kind, void *buf, size_t count,
                                  plx_dtype_t dt, int peer, int tag, plx_comm_t comm,
                                  size_t *received, plx_request_t *req);

#endif /* PLX_PERSIST_H */
