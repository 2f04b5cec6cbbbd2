/*
 * lib/bootstrap/pmix.c — the pmix out-of-band backend (lib/bootstrap/oob.h): a
 * Plexus program started by a PMIx launcher (mpirun of Open MPI, Slurm's
 * srun --mpi=pmix) learns its rank, the job size and everybody's addresses
 * from the launcher's PMIx server, with no Plexus environment at all.
 *
 * allgather = every rank Puts its bytes under a fresh key, Commit, a Fence
 * that collects the data, then a Get of that key from each rank.  It runs a
 * handful of times during plx_init only, so its O(size) Gets do not matter.
 * Tried only when the environment shows a PMIx launcher (PMIX_RANK or
 * PMIX_NAMESPACE): PMIx_Init without a server is slow to fail.
 */
#include "plx_internal.h"
#include "bootstrap/oob.h"

#if PLX_HAVE_PMIX

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pmix_oob {
    pmix_proc_t me;
    int size;
    unsigned next_key;       /* allgathers so far: each uses its own key */
    double timeout_s;
} pmix_oob_t;

/* A fence over the whole namespace, bounded by PLX_TIMEOUT. */
static plx_status_t fence(pmix_oob_t *o, int collect)
{
    pmix_proc_t all;
    PMIX_PROC_CONSTRUCT(&all);
    PMIX_LOAD_PROCID(&all, o->me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    bool yes = true;
    int tmo = (int)(o->timeout_s + 0.999);
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &tmo, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&all, 1, info, collect ? 2 : 1);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        plx_error("bootstrap (pmix): PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return rc == PMIX_ERR_TIMEOUT ? PLX_ERR_TIMEOUT : PLX_ERR_BOOTSTRAP;
    }
    return PLX_SUCCESS;
}

static plx_status_t pmix_allgather(void *st, const void *mine, void *all, size_t len)
{
    pmix_oob_t *o = st;
    char key[PMIX_MAX_KEYLEN];
    snprintf(key, sizeof key, "plx.ag.%u", o->next_key++);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)(uintptr_t)mine;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        plx_error("bootstrap (pmix): PMIx_Put/Commit failed: %s", PMIx_Error_string(rc));
        return PLX_ERR_BOOTSTRAP;
    }
    PLX_CHECK(fence(o, 1));
    for (int r = 0; r < o->size; r++) {
        pmix_proc_t p;
        PMIX_PROC_CONSTRUCT(&p);
        PMIX_LOAD_PROCID(&p, o->me.nspace, (pmix_rank_t)r);
        pmix_value_t *got = NULL;
        rc = PMIx_Get(&p, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
            plx_error("bootstrap (pmix): PMIx_Get(%s) from rank %d failed: %s", key, r,
                      PMIx_Error_string(rc));
            if (got) PMIX_VALUE_RELEASE(got);
            return PLX_ERR_BOOTSTRAP;
        }
        memcpy((char *)all + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    return PLX_SUCCESS;
}

static plx_status_t pmix_barrier(void *st) { return fence(st, 0); }

static void pmix_close(void *st)
{
    PMIx_Finalize(NULL, 0);
    free(st);
}

static const plx_oob_ops_t pmix_ops = { "pmix", pmix_allgather, pmix_barrier, pmix_close };

plx_status_t plx_oob_pmix_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                               void **state)
{
    if (!getenv("PMIX_RANK") && !getenv("PMIX_NAMESPACE")) return PLX_ERR_NOT_SUPPORTED;
    pmix_oob_t *o = calloc(1, sizeof *o);
    if (!o) return PLX_ERR_NO_MEMORY;
    o->timeout_s = timeout_s;
    pmix_status_t rc = PMIx_Init(&o->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        plx_debug("bootstrap (pmix): PMIx_Init: %s; not under a PMIx launcher", PMIx_Error_string(rc));
        free(o);
        return PLX_ERR_NOT_SUPPORTED;
    }
    pmix_proc_t job;
    PMIX_PROC_CONSTRUCT(&job);
    PMIX_LOAD_PROCID(&job, o->me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        plx_error("bootstrap (pmix): cannot read the job size: %s", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        free(o);
        return PLX_ERR_BOOTSTRAP;
    }
    uint32_t size = 0;
    switch (v->type) {
    case PMIX_UINT32: size = v->data.uint32; break;
    case PMIX_INT: size = (uint32_t)v->data.integer; break;
    case PMIX_UINT64: size = (uint32_t)v->data.uint64; break;
    default: break;
    }
    PMIX_VALUE_RELEASE(v);
    if (size < 1 || o->me.rank >= size) {
        plx_error("bootstrap (pmix): bad job size %u for rank %u", size, o->me.rank);
        PMIx_Finalize(NULL, 0);
        free(o);
        return PLX_ERR_BOOTSTRAP;
    }
    o->size = (int)size;
    info->rank = (int)o->me.rank;
    info->size = (int)size;
    /* a short printable id from the namespace (it names shm segments) */
    uint32_t h = 2166136261u;
    for (const char *c = o->me.nspace; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
    snprintf(info->job_id, sizeof info->job_id, "p%08x", h);
    plx_log_set_rank(info->rank);
    *ops = &pmix_ops;
    *state = o;
    return PLX_SUCCESS;
}

#else /* !PLX_HAVE_PMIX */

plx_status_t plx_oob_pmix_open(double timeout_s, plx_oob_info_t *info, const plx_oob_ops_t **ops,
                               void **state)
{
    (void)timeout_s;
    (void)info;
    (void)ops;
    (void)state;
    return PLX_ERR_NOT_SUPPORTED;
}

#endif
