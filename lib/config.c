/*
 * lib/config.c — the PLX_* environment table and the parsers for sizes and
 * durations used by the core, plexusrun and plexus_info.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const plx_env_var_t plx_env_vars[] = {
    { "PLX_RANK", "", "this process's rank (0..PLX_SIZE-1); set by plexusrun, or by hand for the env bootstrap" },
    { "PLX_SIZE", "", "number of ranks in the job; without PLX_RANK/PLX_SIZE/PLX_BOOTSTRAP a process runs alone as a 1-rank job" },
    { "PLX_BOOTSTRAP", "", "host:port of the rendezvous server (plexusrun's, or rank 0's when PLX_BOOTSTRAP_SERVE is not 0)" },
    { "PLX_JOB_KEY", "", "per-job secret, 64 hex digits; every bootstrap connection proves it by HMAC-SHA256 challenge-response" },
    { "PLX_JOB_ID", "hash of the key", "short printable job id used in shared-memory segment names" },
    { "PLX_BOOTSTRAP_SERVE", "1 (0 under plexusrun)", "rank 0 serves the rendezvous on PLX_BOOTSTRAP's port in a background thread" },
    { "PLX_LAUNCHER", "", "set to 'plexusrun' by plexusrun (informational)" },
    { "PLX_TIMEOUT", "300", "seconds any wait may last before PLX_ERR_TIMEOUT (naming the collective and the missing ranks)" },
    { "PLX_LOG", "warn", "none|error|warn|info|debug|trace: what Plexus prints on stderr (info: each first use of an algorithm)" },
    { "PLX_TUNE", "", "selector overrides, e.g. 'allreduce:0-8K@recursive_doubling,8K-inf@ring;bcast:0-inf@binomial' (see plexus_info --tune)" },
    { "PLX_PROGRESS", "caller", "caller|thread - who drives communication: the calls of the application (test/wait), or also a background progress thread that moves collectives while the application computes" },
    { "PLX_GRAPH_THREADS", "cores / ranks on the node (at least 1)", "task graphs: worker threads per context that run compute nodes (1-1024); started at the first plx_graph_compile, ended with the last graph" },
    { "PLX_GRAPH_POLICY", "comm_first", "comm_first|compute_first|fifo - task graphs: the order of nodes that become ready together (communication first, compute first, or one node at a time in ready order, for measuring)" },
    { "PLX_GRAPH_INLINE_US", "10", "task graphs: a compute node measured under this many microseconds (first run on a worker, then one launch in 16) executes inline in the thread driving the engine instead of on a worker; 0 = always on a worker" },
    { "PLX_GRAPH_COMM_WINDOW", "2", "task graphs: collectives of one graph posted but not complete on one communicator at once; later ones wait their turn (many large ones in flight thrash the caches)" },
    { "PLX_TRANSPORTS", "shm,ucx (those built)", "comma list of transports allowed: same-node peers use shm, others ucx; 'ucx' alone forces UCX even on one node (for comparison)" },
    { "PLX_NODE_ID", "hostname+boot id", "name of this rank's node; ranks with equal ids share memory" },
    { "PLX_SHM_EAGER_MAX", "32K (<=8 local ranks; 16K <=32, 8K <=128, else 4K)", "shm: largest message sent through the per-pair ring; larger ones go single-copy (CMA) or staged" },
    { "PLX_SHM_CMA", "auto", "shm: auto|0|1 - process_vm_readv single copy for large messages (auto probes and falls back to staging; 0 always stages; 1 fails init if refused)" },
    { "PLX_SHM_RING_BYTES", "128K (<=8 local ranks; 64K <=32, 32K <=128, else 16K)", "shm: data bytes of each ordered pair's ring (power of two, 4K-64M)" },
    { "PLX_SHM_COLL_BYTES", "32K (<=8 local ranks; 8K <=32, else 2K)", "shm: data bytes per rank of a node-local collective window (two per rank and communicator); collectives up to this size per rank may run as shm_slots" },
    { "PLX_SHM_STAGE_BYTES", "512K", "shm: one staging chunk (two per ordered pair) for large messages when CMA is refused (4K-256M)" },
    { "PLX_CUDA", "auto", "auto|0|1 - device (GPU) buffers: auto uses a CUDA device when one is usable; 0 never (no CUDA call at all); 1 makes plx_init fail without one" },
    { "PLX_NCCL", "auto", "auto|0|p2p - collectives on device buffers: auto through NCCL where every rank has a GPU of its own (else staged through pinned host memory); 0 always staged; p2p composes alltoall/gather/scatter from NCCL send/recv (testing)" },
    { "PLX_MPI", "1", "libplexus-mpi (the MPI drop-in layer): 0 passes every MPI call to the MPI unchanged and does not start Plexus; 1 routes collectives to Plexus" },
    { "PLX_MPI_COLLS", "(the table)", "libplexus-mpi: comma list of collectives sent to Plexus at every size (barrier,bcast,reduce,allreduce,allgather,reduce_scatter,alltoall,gather,scatter), or all, or none; unset: the measured table of lib/mpi/policy.c" },
    { NULL, NULL, NULL }
};

int plx_parse_size(const char *s, size_t *out)
{
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    if (strcasecmp(s, "inf") == 0) { *out = SIZE_MAX; return 0; }
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end != '\0') return -1;
    if (shift && v > (ULLONG_MAX >> shift)) return -1;
    v <<= shift;
    if (v > SIZE_MAX) return -1;
    *out = (size_t)v;
    return 0;
}

int plx_parse_seconds(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v > 0) || !isfinite(v) || v > 1e9) return -1;
    *out = v;
    return 0;
}

plx_status_t plx_config_load(plx_config_t *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->timeout_s = 300;
    cfg->log_level = plx_log_level;

    const char *s = getenv("PLX_TIMEOUT");
    if (s && plx_parse_seconds(s, &cfg->timeout_s) != 0) {
        snprintf(err, errlen, "PLX_TIMEOUT='%s' is not a positive number of seconds", s);
        return PLX_ERR_INVALID_ARG;
    }
    s = getenv("PLX_LOG");
    if (s) {
        int lv = plx_log_parse(s);
        if (lv < 0) {
            snprintf(err, errlen, "PLX_LOG='%s' is not one of none|error|warn|info|debug|trace", s);
            return PLX_ERR_INVALID_ARG;
        }
        cfg->log_level = lv;
    }
    s = getenv("PLX_TRANSPORTS");
    if (s) {
        size_t j = 0;
        for (const char *c = s; *c; c++)
            if (*c != ' ' && j < sizeof cfg->transports - 1) cfg->transports[j++] = *c;
        cfg->transports[j] = '\0';
        if (strlen(s) >= sizeof cfg->transports) {
            snprintf(err, errlen, "PLX_TRANSPORTS='%s' is too long", s);
            return PLX_ERR_INVALID_ARG;
        }
    }
    s = getenv("PLX_PROGRESS");
    if (s) {
        if (strcmp(s, "thread") == 0) cfg->progress_thread = 1;
        else if (strcmp(s, "caller") == 0) cfg->progress_thread = 0;
        else {
            snprintf(err, errlen, "PLX_PROGRESS='%s' is not one of caller|thread", s);
            return PLX_ERR_INVALID_ARG;
        }
    }
    s = getenv("PLX_TUNE");
    if (s) {
        if (strlen(s) >= sizeof cfg->tune) {
            snprintf(err, errlen, "PLX_TUNE is longer than %zu characters", sizeof cfg->tune - 1);
            return PLX_ERR_INVALID_ARG;
        }
        strcpy(cfg->tune, s);
    }
    return PLX_SUCCESS;
}
