/*
 * lib/core/config.c — the PLX_* environment table and the one parser of their
 * values (sizes, durations, integers, choices), used by plx_init, the
 * transports, the graph executor and plexus_info (see config.h).
 */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Rows may stop after the meaning (listed, not checked): no warning for
 * the fields left out. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const plx_env_var_t plx_env_vars[] = {
    { "PLX_RANK", "", "this process's rank (0..PLX_SIZE-1); set by plexusrun, or by hand for the env bootstrap",
      PLX_ENV_BOOT },
    { "PLX_SIZE", "", "number of ranks in the job; without PLX_RANK/PLX_SIZE/PLX_BOOTSTRAP a process runs alone as a 1-rank job",
      PLX_ENV_BOOT },
    { "PLX_BOOTSTRAP", "", "host:port of the rendezvous server (plexusrun's, or rank 0's when PLX_BOOTSTRAP_SERVE is not 0)",
      PLX_ENV_BOOT },
    { "PLX_JOB_KEY", "", "per-job secret, 64 hex digits; every bootstrap connection proves it by HMAC-SHA256 challenge-response",
      PLX_ENV_BOOT },
    { "PLX_JOB_ID", "hash of the key", "short printable job id used in shared-memory segment names",
      PLX_ENV_BOOT },
    { "PLX_BOOTSTRAP_SERVE", "1 (0 under plexusrun)", "rank 0 serves the rendezvous on PLX_BOOTSTRAP's port in a background thread",
      PLX_ENV_BOOT },
    { "PLX_LAUNCHER", "", "set to 'plexusrun' by plexusrun (informational)",
      PLX_ENV_UNCHECKED },
    { "PLX_ABORT_FD", "", "set by plexusrun: file descriptor of the pipe on which plx_abort tells plexusrun which rank aborted with which code",
      PLX_ENV_INT, 0, 1 << 20 },
    { "PLX_LOCAL_RANK", "", "this rank's index among the ranks of its node (0..PLX_LOCAL_SIZE-1), e.g. to pick a GPU; set by plexusrun, else by plx_init from the ranks it found on the node (unless already set); plx_local_rank() reads it first, then MPI_LOCALRANKID (hydra), OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), SLURM_LOCALID (srun)",
      PLX_ENV_INT, 0, 1 << 20 },
    { "PLX_LOCAL_SIZE", "", "the number of ranks on this rank's node (simulated nodes with plexusrun --nodes count separately); set with PLX_LOCAL_RANK by plexusrun or plx_init; plx_local_rank() reads it, then MPI_LOCALNRANKS, OMPI_COMM_WORLD_LOCAL_SIZE, Slurm's tasks per node",
      PLX_ENV_INT, 1, 1 << 20 },
    { "PLX_BIND_TO", "auto", "auto|core|none - plexusrun: the default of --bind-to (auto: one core per rank when the ranks fit on the cores, else none); make check sets none (pinned ranks cannot leave a core that other processes keep busy)",
      PLX_ENV_CHOICE, 0, 0, "auto|core|none" },
    { "PLX_ALLOW_SINGLETON", "0", "0|1 - 1: plx_init runs a process alone (a 1-rank job) even when the environment shows it is one of several started by a launcher Plexus cannot join (PMI_SIZE, OMPI_COMM_WORLD_SIZE, SLURM_STEP_NUM_TASKS > 1); 0: plx_init fails with PLX_ERR_BOOTSTRAP naming the fix",
      PLX_ENV_CHOICE, 0, 0, "0|1" },
    { "PLX_TIMEOUT", "300", "seconds any wait may last before PLX_ERR_TIMEOUT (naming the collective and the missing ranks)",
      PLX_ENV_SECONDS, 0, PLX_TIMEOUT_MAX_S, NULL, PLX_CFG(timeout_s) },
    { "PLX_LOG", "warn", "none|error|warn|info|debug|trace: what Plexus prints on stderr (info: each first use of an algorithm)",
      PLX_ENV_LOGLEVEL, 0, 0, NULL, PLX_CFG(log_level) },
    { "PLX_LOG_FILE", "", "write this rank's log lines to this file (appended) instead of stderr; %h = hostname, %p = pid, %r = rank, %% = %, e.g. /tmp/plexus-%h-%r.log",
      PLX_ENV_LOGFILE, 0, 1023 },
    { "PLX_TUNE", "", "selector overrides, e.g. 'allreduce:0-8K@recursive_doubling,8K-inf@ring;bcast:0-inf@binomial' (see plexus_info --tune)",
      PLX_ENV_TEXT, 0, 1023, NULL, PLX_CFG(tune) },
    { "PLX_PROGRESS", "caller", "caller|thread - who drives communication: the calls of the application (test/wait), or also a background progress thread that moves collectives while the application computes",
      PLX_ENV_CHOICE, 0, 0, "caller|thread", PLX_CFG(progress_thread) },
    { "PLX_GRAPH_THREADS", "cores / ranks on the node (at least 1)", "task graphs: worker threads per context that run compute nodes (1-1024); started at the first plx_graph_compile, ended with the last graph",
      PLX_ENV_INT, 1, 1024 },
    { "PLX_GRAPH_WORKER_SLICE_US", "100", "task graphs: the scheduler slice (Linux 6.12+ EEVDF: sched_setattr's sched_runtime, 100-100000 us) asked for each worker thread: shorter than the engine thread's, so a worker whose sleep or wait ended takes its core at once instead of after the rest of the engine thread's slice; 0 = the kernel's default",
      PLX_ENV_REAL, 0, 1e5 },
    { "PLX_GRAPH_POLICY", "comm_first", "comm_first|compute_first|fifo - task graphs: the order of nodes that become ready together (communication first, compute first, or one node at a time in ready order, for measuring)",
      PLX_ENV_CHOICE, 0, 0, "comm_first|compute_first|fifo" },
    { "PLX_GRAPH_INLINE_US", "10", "task graphs: a compute node measured under this many microseconds (first run on a worker, then one launch in 16) executes inline in the thread driving the engine instead of on a worker; 0 = always on a worker",
      PLX_ENV_REAL, 0, 1e6 },
    { "PLX_GRAPH_COMM_WINDOW", "2", "task graphs: collectives of one graph posted but not complete on one communicator at once; later ones wait their turn (many large ones in flight thrash the caches)",
      PLX_ENV_INT, 1, 1e6 },
    { "PLX_TRANSPORTS", "shm,ucx (those built)", "comma list of transports allowed: same-node peers use shm, others ucx; 'ucx' alone forces UCX even on one node (for comparison)",
      PLX_ENV_TEXT, 0, 63, NULL, PLX_CFG(transports) },
    { "PLX_NODE_ID", "hostname+boot id", "name of this rank's node; ranks with equal ids share memory",
      PLX_ENV_TEXT, 0, 120 },
    { "PLX_SHM_EAGER_MAX", "32K (<=8 local ranks; 16K <=32, 8K <=128, else 4K)", "shm: largest message sent through the per-pair ring; larger ones go single-copy (CMA) or staged",
      PLX_ENV_SIZE, 0, 32 << 20 },
    { "PLX_SHM_CMA", "auto", "shm: auto|0|1 - process_vm_readv single copy for large messages (auto probes and falls back to staging; 0 always stages; 1 fails init if refused)",
      PLX_ENV_CHOICE, 0, 0, "auto|0|1|off|on|no|yes" },
    { "PLX_SHM_RING_BYTES", "128K (<=8 local ranks; 64K <=32, 32K <=128, else 16K)", "shm: data bytes of each ordered pair's ring (power of two, 4K-64M)",
      PLX_ENV_SIZE, 4 << 10, 64 << 20 },
    { "PLX_SHM_COLL_BYTES", "32K (<=8 local ranks; 256K for 3-5 ranks outnumbering the cores; 8K <=32, else 2K)", "shm: data bytes per rank of a node-local collective window (two per rank and communicator, 16 such windows per rank reserved in /dev/shm); collectives up to this size per rank may run as shm_slots. The 256K default falls back to 32K where /dev/shm lacks the room",
      PLX_ENV_SIZE, 0, 16 << 20 },
    { "PLX_SHM_STAGE_BYTES", "512K", "shm: one staging chunk (two per ordered pair) for large messages when CMA is refused (4K-256M)",
      PLX_ENV_SIZE, 4 << 10, 256 << 20 },
    { "PLX_SHM_DIRECT_STAGE", "2M (halved while all local ranks would need more than 64M)", "shm: each local rank's direct staging area: a direct allgather whose block fits (alltoall: whose peers' blocks fit half of it; 2-rank reduce_scatter: the peer's block, see PLX_DIRECT_STAGE_RS) is copied there in 256K pieces and the peers memcpy it instead of reading it with CMA (which pins its pages), except where its input is on huge pages (see PLX_DIRECT_THP); larger ones, and with a progress thread those above 256K, are read with CMA; 0 = never (0-256M)",
      PLX_ENV_SIZE, 0, 256 << 20 },
    { "PLX_CUDA", "auto", "auto|0|1 - device (GPU) buffers: auto uses a CUDA device when one is usable; 0 never (no CUDA call at all); 1 makes plx_init fail without one",
      PLX_ENV_CHOICE, 0, 0, "auto|0|1" },
    { "PLX_NCCL", "auto", "auto|0|p2p - collectives on device buffers: auto through NCCL where every rank has a GPU of its own (else staged through pinned host memory); 0 always staged; p2p composes alltoall/gather/scatter from NCCL send/recv (testing)",
      PLX_ENV_CHOICE, 0, 0, "auto|0|p2p" },
    { "PLX_DIRECT_PIECE", "128K", "node-local single-copy collectives ('direct' in the selector): bytes read from a peer and reduced in one step (4K-64M); small enough to stay in L2 and to keep one progress pass short. Unset and no progress thread: with more ranks on the node than cores, 1M pieces; with a core per rank, a copy of up to 2M moves in one call (larger ones at 2 ranks: 2M pieces, shared with the peer) and 2-rank reductions use 512K pieces (a 2-rank allreduce of 32M or more: 1M pieces), except while task-graph compute nodes run on the graph's worker threads (then this size: a long system call would keep a waking compute thread off its core)",
      PLX_ENV_SIZE, 4 << 10, 64 << 20, NULL, PLX_CFG(direct_piece) },
    { "PLX_DIRECT_THP", "4", "direct allreduce, reduce, reduce_scatter, bcast, allgather, alltoall: a buffer of 512K or more, on its Nth such call, goes on transparent huge pages (madvise MADV_COLLAPSE of the 2 MiB pages it touches; one reaching past its ends if all mapped and what of it is not yet in memory is at most half the buffer or at most what khugepaged may fill (its max_ptes_none); once per buffer; an input collapsed whole of a 2-rank allgather, alltoall or reduce_scatter, of allgather at 3-4 ranks or of alltoall at 3-5 ranks is then read with CMA, not staged): the peers' CMA copies then pin 2 MiB pages, not 4 KiB ones; 0 = never",
      PLX_ENV_INT, 0, 1 << 20, NULL, PLX_CFG(direct_thp) },
    { "PLX_DIRECT_STAGE_RS", "512K", "direct reduce_scatter at 2 ranks: a block of this many bytes or more that fits PLX_SHM_DIRECT_STAGE is staged (each rank copies the peer's block of its input there in 256K pieces, the peer reduces from it instead of reading it with CMA), unless its input is on huge pages (see PLX_DIRECT_THP); smaller blocks are read with CMA (0-256M; 0 = every size)",
      PLX_ENV_SIZE, 0, 256 << 20 },
    { "PLX_SLOTS_STREAM", "auto", "shm_slots reduce of 64-256K (over 64K, ranks outnumbering cores) and gather / gatherv blocks of 64-256K: how a non-root writes its input into its window: auto = plain copies, and streaming stores for the next 63 calls after two plain copies in a row slower than 0.3 ns a byte (the host running the vCPUs on different dies); 0 = always plain copies; 1 = always streaming stores (then the root reads the windows from memory)",
      PLX_ENV_CHOICE, 0, 0, "auto|0|1" },
    { "PLX_DIRECT_STREAM", "auto", "direct allgather at 3-4 ranks, blocks of 64K or more that are staged (see PLX_SHM_DIRECT_STAGE): how a rank copies each 64-256K piece into its staging area: auto = plain copies, and streaming stores for the next 63 pieces after two plain copies in a row slower than 0.3 ns a byte (the host running the vCPUs on different dies); 0 = always plain copies; 1 = always streaming stores (then the peers read the area from memory)",
      PLX_ENV_CHOICE, 0, 0, "auto|0|1" },
    { "PLX_MPI", "1", "libplexus-mpi (the MPI drop-in layer): 0 passes every MPI call to the MPI unchanged and does not start Plexus; 1 routes collectives to Plexus",
      PLX_ENV_CHOICE, 0, 0, "0|1" },
    { "PLX_MPI_COLLS", "(the table)", "libplexus-mpi: comma list of collectives sent to Plexus at every size (barrier,bcast,reduce,allreduce,allgather,reduce_scatter,alltoall,gather,scatter), or all, or none; unset: the measured table of lib/mpi/policy.c (checked by the layer at MPI_Init)",
      PLX_ENV_TEXT, 0, 1023 },
    { NULL, NULL, NULL }
};
#pragma GCC diagnostic pop

const plx_env_var_t *plx_env_find(const char *name)
{
    for (const plx_env_var_t *v = plx_env_vars; v->name; v++)
        if (strcmp(v->name, name) == 0) return v;
    return NULL;
}

/* A size bound as text: 4K, 64M, 0. */
static void size_text(double v, char *buf, size_t len)
{
    unsigned long long u = (unsigned long long)v;
    if (u && u % (1ull << 30) == 0) snprintf(buf, len, "%lluG", u >> 30);
    else if (u && u % (1ull << 20) == 0) snprintf(buf, len, "%lluM", u >> 20);
    else if (u && u % (1ull << 10) == 0) snprintf(buf, len, "%lluK", u >> 10);
    else snprintf(buf, len, "%llu", u);
}

/* Does word [w, w+n) appear in the '|' list?  Its index, or -1. */
static int choice_index(const char *choices, const char *word)
{
    int i = 0;
    size_t n = strlen(word);
    for (const char *p = choices; *p; i++) {
        size_t len = strcspn(p, "|");
        if (len == n && n && strncasecmp(p, word, n) == 0) return i;
        p += len + (p[len] == '|');
    }
    return -1;
}

/* The parsed value of any kind. */
typedef union env_value {
    size_t size;
    double real;
    int i;
} env_value_t;

/* Parse s by row v: 0 and *val if accepted, else -1 and a message. */
static int env_parse(const plx_env_var_t *v, const char *s, env_value_t *val, char *err, size_t errlen)
{
    char lo[32], hi[32];
    char *end;
    switch (v->kind) {
    case PLX_ENV_UNCHECKED:
    case PLX_ENV_BOOT:
        return 0;
    case PLX_ENV_TEXT:
        if (strlen(s) <= (size_t)v->hi) return 0;
        snprintf(err, errlen, "%s='%.60s...' is longer than %.0f characters", v->name, s, v->hi);
        return -1;
    case PLX_ENV_SIZE:
        if (plx_parse_size(s, &val->size) == 0 && val->size != SIZE_MAX && (double)val->size >= v->lo &&
            (double)val->size <= v->hi)
            return 0;
        size_text(v->lo, lo, sizeof lo);
        size_text(v->hi, hi, sizeof hi);
        snprintf(err, errlen, "%s='%.80s' is not a byte count in [%s, %s] (a number with an optional "
                 "K/M/G suffix, powers of 1024)", v->name, s, lo, hi);
        return -1;
    case PLX_ENV_SECONDS:
        if (plx_parse_seconds(s, &val->real) == 0 && val->real > v->lo && val->real <= v->hi) return 0;
        snprintf(err, errlen, "%s='%.80s' is not a number of seconds in (%g, %g]", v->name, s, v->lo, v->hi);
        return -1;
    case PLX_ENV_INT: {
        errno = 0;
        long long x = isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))
                          ? strtoll(s, &end, 10) : (end = (char *)s, 0);
        if (!errno && end != s && *end == '\0' && (double)x >= v->lo && (double)x <= v->hi) {
            val->i = (int)x;
            return 0;
        }
        snprintf(err, errlen, "%s='%.80s' is not an integer in [%.0f, %.0f]", v->name, s, v->lo, v->hi);
        return -1;
    }
    case PLX_ENV_REAL:
        errno = 0;
        val->real = isspace((unsigned char)*s) ? NAN : strtod(s, &end);
        if (!errno && !isspace((unsigned char)*s) && end != s && *end == '\0' && isfinite(val->real) &&
            val->real >= v->lo && val->real <= v->hi)
            return 0;
        snprintf(err, errlen, "%s='%.80s' is not a number in [%g, %g]", v->name, s, v->lo, v->hi);
        return -1;
    case PLX_ENV_CHOICE:
        if ((val->i = choice_index(v->choices, s)) >= 0) return 0;
        snprintf(err, errlen, "%s='%.80s' is not one of %s", v->name, s, v->choices);
        return -1;
    case PLX_ENV_LOGFILE: {
        char path[4096];
        if (strlen(s) > (size_t)v->hi) {
            snprintf(err, errlen, "%s='%.60s...' is longer than %.0f characters", v->name, s, v->hi);
            return -1;
        }
        if (!*s || plx_log_file_expand(s, 0, path, sizeof path) == 0) return 0;
        snprintf(err, errlen, "%s='%.80s' is not a file name using only %%h (hostname), %%p (pid), "
                 "%%r (rank) and %%%% as %% sequences", v->name, s);
        return -1;
    }
    case PLX_ENV_LOGLEVEL:
        if ((val->i = plx_log_parse(s)) >= 0) return 0;
        snprintf(err, errlen, "%s='%.80s' is not one of none|error|warn|info|debug|trace (or 0-5)",
                 v->name, s);
        return -1;
    }
    snprintf(err, errlen, "%s: row of unknown kind %d in plx_env_vars", v->name, (int)v->kind);
    return -1;
}

int plx_env_check(const plx_env_var_t *v, const char *value, char *err, size_t errlen)
{
    env_value_t val;
    return env_parse(v, value, &val, err, errlen);
}

/* Look up, parse and check one variable for the typed getters. */
static int env_get(const char *name, plx_env_kind_t want, env_value_t *val)
{
    const plx_env_var_t *v = plx_env_find(name);
    const char *s = getenv(name);
    if (!v || v->kind != want) {
        plx_error("internal: %s is not a variable of kind %d in plx_env_vars", name, (int)want);
        return -1;
    }
    if (!s) return 0;
    char err[256];
    if (env_parse(v, s, val, err, sizeof err) < 0) {
        plx_warn("%s", err);
        return -1;
    }
    return 1;
}

int plx_env_size(const char *name, size_t *out)
{
    env_value_t v;
    int r = env_get(name, PLX_ENV_SIZE, &v);
    if (r > 0) *out = v.size;
    return r;
}

int plx_env_int(const char *name, int *out)
{
    env_value_t v;
    int r = env_get(name, PLX_ENV_INT, &v);
    if (r > 0) *out = v.i;
    return r;
}

int plx_env_real(const char *name, double *out)
{
    env_value_t v;
    int r = env_get(name, PLX_ENV_REAL, &v);
    if (r > 0) *out = v.real;
    return r;
}

int plx_env_choice(const char *name, int *out)
{
    env_value_t v;
    int r = env_get(name, PLX_ENV_CHOICE, &v);
    if (r > 0) *out = v.i;
    return r;
}

plx_status_t plx_config_load(plx_config_t *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->timeout_s = 300;
    cfg->direct_thp = 4;   /* PLX_DIRECT_THP's default (lib/coll/direct_thp.c) */
    cfg->log_level = plx_log_level;

    for (const plx_env_var_t *v = plx_env_vars; v->name; v++) {
        const char *s = getenv(v->name);
        if (!s) continue;
        env_value_t val;
        if (env_parse(v, s, &val, err, errlen) < 0) return PLX_ERR_INVALID_ARG;
        if (!v->dest) continue;
        char *dst = (char *)cfg + v->dest - 1;
        switch (v->kind) {
        case PLX_ENV_TEXT: memcpy(dst, s, strlen(s) + 1); break;   /* fits: checked against hi */
        case PLX_ENV_SIZE: memcpy(dst, &val.size, sizeof val.size); break;
        case PLX_ENV_SECONDS:
        case PLX_ENV_REAL: memcpy(dst, &val.real, sizeof val.real); break;
        case PLX_ENV_INT:
        case PLX_ENV_CHOICE:
        case PLX_ENV_LOGLEVEL: memcpy(dst, &val.i, sizeof val.i); break;
        default: break;
        }
    }
    /* PLX_TRANSPORTS: blanks do not count ("shm, ucx") */
    size_t j = 0;
    for (const char *c = cfg->transports; *c; c++)
        if (*c != ' ') cfg->transports[j++] = *c;
    cfg->transports[j] = '\0';
    return PLX_SUCCESS;
}
