/*
 * lib/bootstrap/oob_tcp.c — the tcp out-of-band backend: adapts the authenticated
 * rendezvous of lib/bootstrap/ (served by plexusrun, or by rank 0 with the
 * env interface) to lib/bootstrap/oob.h.
 */
#include "plx_internal.h"
#include "bootstrap/oob.h"
#include "bootstrap/bootstrap.h"

#include <stdio.h>

static plx_status_t tcp_allgather(void *st, const void *mine, void *all, size_t len)
{
    return plx_boot_allgather(st, mine, all, len);
}
static plx_status_t tcp_barrier(void *st) { return plx_boot_barrier(st); }
static void tcp_close(void *st) { plx_boot_close(st); }

static const plx_oob_ops_t tcp_ops = { "tcp", tcp_allgather, tcp_barrier, tcp_close };

plx_status_t plx_oob_tcp_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                              void **state)
{
    char err[512] = "";
    plx_boot_params_t bp;
    plx_status_t st = plx_boot_params_from_env(&bp, err, sizeof err);
    if (st != PLX_SUCCESS) {
        plx_error("plx_init: %s", err);
        return st == PLX_ERR_NOT_SUPPORTED ? PLX_ERR_BOOTSTRAP : st;
    }
    if (bp.singleton) return PLX_ERR_NOT_SUPPORTED;   /* no env interface: next backend */
    bp.timeout_s = timeout_s;
    info->rank = bp.rank;
    info->size = bp.size;
    snprintf(info->job_id, sizeof info->job_id, "%s", bp.job_id);
    plx_log_set_rank(bp.rank);
    plx_boot_t *b = NULL;
    st = plx_boot_connect(&bp, &b);
    if (st != PLX_SUCCESS) {
        plx_error("plx_init: rank %d could not join the job through %s:%d: %s", bp.rank, bp.host,
                  bp.port, plx_strerror(st));
        return st;
    }
    *ops = &tcp_ops;
    *state = b;
    return PLX_SUCCESS;
}
