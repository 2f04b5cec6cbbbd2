/*
 * lib/bootstrap/oob_user.c — the application's own out-of-band allgather
 * (plx_init_oob): an MPI code bootstraps Plexus over its communicator, a
 * framework over its own rendezvous.  The barrier is an allgather of one
 * byte; the job id comes from rank 0 through the first allgather.
 */
#include "plx_internal.h"
#include "bootstrap/oob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

typedef struct user_oob {
    plx_oob_t u;
} user_oob_t;

static plx_status_t user_allgather(void *st, const void *mine, void *all, size_t len)
{
    user_oob_t *o = st;
    int rc = o->u.allgather(mine, all, len, o->u.user);
    if (rc != 0) {
        plx_error("plx_init_oob: the application's allgather returned %d", rc);
        return PLX_ERR_BOOTSTRAP;
    }
    return PLX_SUCCESS;
}

static plx_status_t user_barrier(void *st)
{
    user_oob_t *o = st;
    unsigned char one = 1;
    unsigned char *all = malloc((size_t)o->u.size);
    if (!all) return PLX_ERR_NO_MEMORY;
    plx_status_t s = user_allgather(st, &one, all, 1);
    free(all);
    return s;
}

static void user_close(void *st) { free(st); }

static const plx_oob_ops_t user_ops = { "user", user_allgather, user_barrier, user_close };

plx_status_t plx_oob_user_open(const plx_oob_t *u, plx_oob_info_t *info,
                               const plx_oob_ops_t **ops, void **state)
{
    user_oob_t *o = calloc(1, sizeof *o);
    if (!o) return PLX_ERR_NO_MEMORY;
    o->u = *u;
    /* rank 0's random id names this job's shared segments */
    char mine[16] = "";
    unsigned char r[4];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        unsigned x = (unsigned)getpid() * 2654435761u;
        memcpy(r, &x, sizeof r);
    }
    snprintf(mine, sizeof mine, "u%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
    char *all = malloc((size_t)u->size * sizeof mine);
    if (!all) {
        free(o);
        return PLX_ERR_NO_MEMORY;
    }
    plx_status_t st = user_allgather(o, mine, all, sizeof mine);
    if (st == PLX_SUCCESS) {
        info->rank = u->rank;
        info->size = u->size;
        snprintf(info->job_id, sizeof info->job_id, "%.15s", all);
        *ops = &user_ops;
        *state = o;
    } else {
        free(o);
    }
    free(all);
    return st;
}
