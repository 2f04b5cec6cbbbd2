/*
 * lib/coll/hier.h — hierarchical collectives (lib/coll/hier.c): when they
 * can run, and the per-communicator node map they keep.
 */
#ifndef PLX_HIER_H
#define PLX_HIER_H

#include "coll.h"

struct hier_map;   /* per communicator, built at first use from the nodes of its ranks */

/* The communicator spans several nodes and at least one node holds more
 * than one of its ranks (otherwise a flat algorithm is the same thing). */
int plx_hier_can_run(plx_comm_t comm, size_t bytes);
/* Free comm's node map (finalize). */
void plx_hier_release(plx_comm_t comm);

#endif /* PLX_HIER_H */
