/*
 * lib/engine/probe.h — looking at messages that arrived and were not yet
 * received (plx_iprobe / plx_probe), through the transports' probe op.
 */
#ifndef PLX_PROBE_H
#define PLX_PROBE_H

#include "plx_internal.h"

/* source: a rank of comm or PLX_ANY_SOURCE; tag: >= 0 or PLX_ANY_TAG
 * (checked by the caller).  block = 0: look once (after moving every
 * request, as plx_test) and set *found; block = 1: until found (then
 * *found = 1), bounded by PLX_TIMEOUT, PLX_ERR_PEER_FAILED when the
 * source (any source: every other rank) died.  info may be NULL.
 * Takes the context lock. */
plx_status_t plx_engine_probe(plx_comm_t comm, int source, int tag, int block, int *found,
                              plx_msg_info_t *info);

#endif /* PLX_PROBE_H */
