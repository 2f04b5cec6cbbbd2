/*
 * lib/mpi/policy.c — which collective calls libplexus-mpi sends to Plexus,
 * and the counters behind the PLX_LOG=info summary.
 *
 * By default a call goes to Plexus where the measurements of perf/RESULTS.md
 * show Plexus at least as fast as this MPI (the table below, one per MPI:
 * the layer is compiled once for each); everything else stays with MPI.
 * The table is deliberately conservative and is the one place to change
 * when new measurements come in (perf/compare --mpi-layer).
 *
 *   PLX_MPI=0                      the layer passes every call to MPI and
 *                                  does not start Plexus
 *   PLX_MPI_COLLS=allreduce,bcast  exactly these collectives go to Plexus,
 *                                  at every size ("all": every collective,
 *                                  "none": none; unset: the table)
 *
 * Every decision must come out the same on every rank of the communicator
 * (or ranks would wait in different libraries): it depends only on the
 * collective, the communicator size and the byte size, which MPI requires
 * to agree across ranks.
 */
#include "layer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[PM_NCOLL] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "reduce_scatter", "alltoall",
    "gather", "scatter", "allgatherv", "alltoallv", "gatherv", "scatterv", "reduce_scatterv",
    "scan", "exscan"
};
static const char *const why_names[PM_NWHY] = {
    "plexus", "PLX_MPI_COLLS", "communicator", "no twin yet", "type", "op", "size rule", "not measured",
    "arguments"
};

const char *pm_coll_name(pm_coll_t coll)
{
    return coll < PM_NCOLL ? coll_names[coll] : "?";
}

/* ---- the default routing table ------------------------------------------
 * A row routes `coll` to Plexus on min_ranks..max_ranks ranks for byte
 * sizes in [min_bytes, max_bytes).  Sizes are counted like perf/plx_perf:
 * the whole result of allgather/gather, the whole send buffer of
 * scatter/reduce_scatter, the whole exchanged buffer of alltoall, the
 * message otherwise (the v-forms: the sum of all blocks).  A row is here
 * only where Plexus measured faster than this MPI through the layer in
 * every launch (perf/RESULTS.md, issue 15: "the routing table from
 * measurements", branch s7m, 2026-12-02: perf/compare --mpi-layer
 * --layer-only with PLX_MPI_COLLS=all, 3 launches per cell, 2 and 4 ranks;
 * rows marked "earlier" or "directly" are from the quiet window of
 * 2026-12-01 and the direct runs, not remeasured); everything unmeasured
 * or mixed stays with MPI (the v-forms, scan, exscan, and the cells named
 * above each table) unless PLX_MPI_COLLS names it.  The comments give
 * Plexus' time over the MPI's: the range over the launches and sizes. */
typedef struct route_row {
    pm_coll_t coll;
    int min_ranks, max_ranks;
    size_t min_bytes, max_bytes;
} route_row_t;

#define KB ((size_t)1 << 10)
#define MB ((size_t)1 << 20)
#define ANY SIZE_MAX
#define MANY (1 << 30)
#if defined(OPEN_MPI)
/* against Open MPI 4.1 (vader).  Remade 2026-12-02 (branch s7m) from
 * in-process A/B with every collective routed (perf/results/s7m/all-*.txt:
 * 3 launches per cell, 8 B-16 MiB x8): a size range is routed only where
 * every launch had Plexus faster (ratio below 1), from the first such
 * measured size to twice the last one (to ANY when 16 MiB won).  Left with
 * MPI, measured slower or mixed on 2 ranks: bcast 8-64 B (0.97-1.88) and
 * 32K (0.98-3.57), allgather from 32K (0.78-1.95 at 32K, 0.95-0.99 above:
 * noise), alltoall except 4K (0.91-2.14; 256K-16M 0.90-1.00), reduce 8-64 B
 * (0.80-1.18), gather and scatter below 4K (1.1-2.5) and 32K-256K (0.92-1.77,
 * 1.00-1.04).  On 4 ranks: alltoall (1.03-2.50 at most sizes; 32K and 2M
 * won alone between losses), barrier (not measured), and the sizes named
 * in the rows' comments.  The rows made from 4-rank runs start at 4 ranks;
 * 3 ranks keep the rows of the earlier measurements (not rerun at 3). */
static const route_row_t default_rows[] = {
    { PM_BARRIER, 2, 2, 0, ANY },                   /* 0.70-0.76 (s7m) */
    { PM_ALLREDUCE, 2, 2, 0, ANY },                 /* 0.43-0.87 (s7m) */
    { PM_ALLREDUCE, 3, 3, 4 * KB, 16 * KB },        /* 0.22-0.71 (earlier; 3 ranks not rerun) */
    { PM_ALLREDUCE, 4, MANY, 512, ANY },            /* 0.41-0.96 (s7m; 8-64 B 1.64-1.79) */
    { PM_BCAST, 2, 2, 512, 8 * KB },                /* 0.13-0.32 (s7m) */
    { PM_BCAST, 2, 2, 256 * KB, ANY },              /* 0.52-0.83 (s7m) */
    { PM_BCAST, 4, MANY, 512, 8 * KB },             /* 0.13-0.26 (s7m; 8-64 B 0.97-1.48) */
    { PM_BCAST, 4, MANY, 2 * MB, ANY },             /* 0.58-0.93 (s7m; 32K 0.59-1.10, 256K 1.00-1.42) */
    /* 0.81-0.99 (s7m); 8 B left to MPI: 1.02-1.04 median over 20 launches (0.92-1.11) in s8l's A/B */
    { PM_ALLGATHER, 2, 2, 64, 8 * KB },
    { PM_ALLGATHER, 3, 3, 16 * KB, 64 * KB },       /* 0.30 at 32K (earlier; 3 ranks not rerun) */
    { PM_ALLGATHER, 4, MANY, 4 * KB, 64 * KB },     /* 0.44-0.89 (s7m; 64-512 B 1.17-1.71; 256K-16M 0.48-0.99, then 0.50-1.18 in the check) */
    { PM_ALLTOALL, 2, 2, 4 * KB, 8 * KB },          /* 0.78-0.84 (s7m; 512 B 0.99-1.10, 32K 0.94-2.14) */
    /* 0.15-0.86 (s7m); 256 KiB left to MPI: 1.04 [0.80-1.09] through the layer on the
     * machine of 2026-12-02 12:18 (perf/results/layer-1202e); 1 MiB 0.68 in that day's window */
    { PM_REDUCE, 2, 2, 512, 64 * KB },
    { PM_REDUCE, 2, 2, 1 * MB, ANY },
    { PM_REDUCE, 4, MANY, 512, 8 * KB },            /* 0.13-0.29 (s7m; 8-64 B 0.68-1.45) */
    { PM_REDUCE, 4, MANY, 2 * MB, ANY },            /* 0.48-0.82 (s7m; 32K 0.73-1.27, 256K 0.93-1.44) */
    /* 0.10-0.98 (s7m; 8-512 B 0.67-0.98); 8-64 B left to MPI: s8l's A/B, 20 launches,
     * 8 B 0.99-1.02 median (0.81-1.08), 64 B 1.14-1.18 (0.87-1.29); 512 B 0.92-0.95 */
    { PM_REDUCE_SCATTER, 2, 2, 512, ANY },
    { PM_REDUCE_SCATTER, 3, 3, 256 * KB, ANY },     /* 0.15-0.44 (directly; 3 ranks not rerun) */
    { PM_REDUCE_SCATTER, 4, MANY, 32 * KB, ANY },   /* 0.16-0.87 (s7m; 4K 0.94-1.04, 64-512 B 1.17-2.29) */
    { PM_GATHER, 2, 2, 4 * KB, 8 * KB },            /* 0.56-0.65 (s7m) */
    { PM_GATHER, 2, 2, 2 * MB, ANY },               /* 0.50-0.85 (s7m) */
    { PM_GATHER, 4, MANY, 4 * KB, 64 * KB },        /* 0.36-0.86 (s7m; 512 B 0.76-0.97, 256K 1.00-1.13) */
    { PM_GATHER, 4, MANY, 2 * MB, ANY },            /* 0.59-0.70 (s7m) */
    { PM_SCATTER, 2, 2, 4 * KB, 8 * KB },           /* 0.55-0.59 (s7m) */
    { PM_SCATTER, 2, 2, 2 * MB, ANY },              /* 0.59-0.75 (s7m) */
    /* 0.12-0.95 (s7m); 64 B left to MPI: one launch of three at 1.29 in the quiet check */
    { PM_SCATTER, 4, MANY, 512, 64 * KB },
    { PM_SCATTER, 4, MANY, 2 * MB, ANY },           /* 0.60-0.98 (s7m; 256K 1.17-1.45) */
};
#else
/* against MPICH 4.0 (ch4:ucx; it polls busily, so oversubscribed it is
 * many times slower than Plexus at most sizes).  Remade 2026-12-02 (branch
 * s7m) like the Open MPI table above.  Left with MPI, measured slower or
 * mixed on 2 ranks: bcast 8 B (0.54-1.12) and 32K (0.80-2.83), alltoall
 * 32K (1.16-1.19), 256K (0.90-0.94, but 512K 1.02-1.05 in h15g's runs: a
 * row for one size was not worth it) and 2M (0.94-0.96: noise), gather
 * 8-64 B (1.08-1.16), 512 B-4K (0.67-1.36 over two runs) and 256K
 * (0.93-1.02), scatter 8-512 B (0.83-1.29) and 256K (1.00-1.02).  On 4
 * ranks (4 spinning ranks on 2 cores) a call takes whole 4 ms scheduler
 * ticks, so ratios come in steps (0.50, 0.25); left with MPI there:
 * bcast 4K (0.35-25.8), gather 4K-32K (0.50-0.99). */
static const route_row_t default_rows[] = {
    { PM_BARRIER, 2, 2, 0, ANY },                   /* 0.20-0.22 (s7m) */
    { PM_ALLREDUCE, 2, MANY, 0, ANY },              /* 0.18-0.71 (s7m, 2 ranks); 0.12-0.99 (4 ranks) */
    { PM_BCAST, 2, 2, 64, 8 * KB },                 /* 0.40-0.79 (s7m; 8 B 0.54-1.12 in the check) */
    { PM_BCAST, 2, 2, 256 * KB, ANY },              /* 0.49-0.68 (s7m) */
    { PM_BCAST, 3, 3, 32 * KB, 1 * MB },            /* 0.00-1.02 (earlier; 3 ranks not rerun) */
    { PM_BCAST, 4, MANY, 0, 1 * KB },               /* 0.00-0.03 (s7m; 4K 0.35-25.8) */
    { PM_BCAST, 4, MANY, 32 * KB, ANY },            /* 0.00-0.82 (s7m) */
    { PM_ALLGATHER, 2, 2, 0, ANY },                 /* 0.39-0.95 (s7m) */
    { PM_ALLGATHER, 3, MANY, 0, ANY },              /* 0.00-0.46 */
    { PM_ALLTOALL, 2, 2, 0, 32 * KB },              /* 0.42-0.64 (s7m; 8K 0.81-0.90 in h15g) */
    { PM_ALLTOALL, 2, 2, 16 * MB, ANY },            /* 0.85-0.89 (s7m) */
    { PM_ALLTOALL, 3, MANY, 0, ANY },               /* 0.01-0.69 */
    { PM_REDUCE, 2, 2, 0, ANY },                    /* 0.07-0.62 (s7m) */
    /* 0.01-0.31 (earlier); s7m at 4 ranks: 4K-16M 0.18-1.00; below 4K
     * 0.50-0.86 with every collective routed but launches at 1.00 (a tick)
     * in the check of the new table: left to MPI */
    { PM_REDUCE, 3, MANY, 4 * KB, ANY },
    { PM_REDUCE_SCATTER, 2, 2, 0, ANY },            /* 0.07-0.76 (s7m) */
    { PM_REDUCE_SCATTER, 3, 3, 256 * KB, ANY },     /* 0.02-0.16 (directly; 3 ranks not rerun) */
    { PM_REDUCE_SCATTER, 4, MANY, 0, ANY },         /* 0.15-0.69 (s7m) */
    { PM_GATHER, 2, 2, 32 * KB, 64 * KB },          /* 0.41-0.47 (s7m) */
    { PM_GATHER, 2, 2, 2 * MB, ANY },               /* 0.53-0.77 (s7m) */
    { PM_GATHER, 3, 3, 256 * KB, ANY },             /* 0.01-0.03 (directly; 3 ranks not rerun) */
    { PM_GATHER, 4, MANY, 0, 1 * KB },              /* 0.50-0.60 (s7m) */
    { PM_GATHER, 4, MANY, 256 * KB, ANY },          /* 0.06-0.59 (s7m; 4K-32K 0.50-0.99: one 4 ms tick) */
    /* 0.53-0.94 (s7m); 4 KiB left to MPI: 1.16 [1.14-1.24] on the machine of 2026-12-02
     * 12:18 (perf/results/layer-1202e); 32 KiB 0.28 */
    { PM_SCATTER, 2, 2, 32 * KB, 64 * KB },
    { PM_SCATTER, 2, 2, 2 * MB, ANY },              /* 0.61-0.66 (s7m) */
    /* 0.00-0.04 (directly); kept: s7m at 4 ranks 0.50-1.00 (2M: one
     * launch at 1.00, a 4 ms tick), the old table's run 0.50-0.98 */
    { PM_SCATTER, 3, MANY, 256 * KB, ANY },
    { PM_SCATTER, 4, MANY, 0, 64 * KB },            /* 0.00-0.24 (s7m) */
};
#endif

/* PLX_MPI_COLLS: -1 = unset (use the table), else a bit per collective */
static long forced = -1;

int pm_policy_load(int *enabled, char *err, size_t errlen)
{
    const char *s = getenv("PLX_MPI");
    *enabled = 1;
    if (s) {
        if (!strcmp(s, "0")) *enabled = 0;
        else if (strcmp(s, "1") != 0) {
            snprintf(err, errlen, "PLX_MPI='%s' is not 0 (plain MPI) or 1 (route collectives "
                     "to Plexus, the default)", s);
            return -1;
        }
    }
    forced = -1;
    s = getenv("PLX_MPI_COLLS");
    if (!s) return 0;
    if (!strcmp(s, "all")) {
        forced = (1L << PM_NCOLL) - 1;
        return 0;
    }
    forced = 0;
    if (!strcmp(s, "none")) return 0;
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        snprintf(err, errlen, "PLX_MPI_COLLS is longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    strcpy(buf, s);
    char *save = NULL;
    for (char *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        int found = -1;
        for (int c = 0; c < PM_NCOLL; c++)
            if (!strcasecmp(w, coll_names[c])) found = c;
        if (found < 0) {
            int len = snprintf(err, errlen, "PLX_MPI_COLLS='%s': '%s' is not one of all, none",
                               s, w);
            for (int c = 0; c < PM_NCOLL && len > 0 && (size_t)len < errlen; c++)
                len += snprintf(err + len, errlen - (size_t)len, ", %s", coll_names[c]);
            return -1;
        }
        forced |= 1L << found;
    }
    return 0;
}

void pm_policy_fill(pm_route_t *route, int ranks)
{
    for (int c = 0; c < PM_NCOLL; c++) {
        pm_route_t *r = &route[c];
        r->n = 0;
        if (forced >= 0) {
            if ((forced >> c) & 1) {
                r->lo[0] = 0;
                r->hi[0] = ANY;
                r->n = 1;
            }
            r->why = PM_WHY_COLL;
            continue;
        }
        r->why = PM_WHY_UNMEASURED;
        for (size_t i = 0; i < sizeof default_rows / sizeof default_rows[0]; i++) {
            const route_row_t *w = &default_rows[i];
            if (w->coll != (pm_coll_t)c) continue;
            r->why = PM_WHY_SIZE;
            if (ranks < w->min_ranks || ranks > w->max_ranks || r->n == PM_ROUTE_MAX) continue;
            r->lo[r->n] = w->min_bytes;
            r->hi[r->n] = w->max_bytes;     /* ANY (SIZE_MAX): no byte count reaches it */
            r->n++;
        }
    }
}

/* ---- counters ------------------------------------------------------------ */
_Atomic unsigned long pm_n_calls[PM_NCOLL][PM_NWHY];
_Atomic unsigned long long pm_n_bytes[PM_NCOLL][PM_NWHY];

static int log_level(void)
{
    const char *s = getenv("PLX_LOG");
    if (!s) return 2;
    static const char *const lv[] = { "none", "error", "warn", "info", "debug", "trace" };
    for (int i = 0; i < 6; i++)
        if (!strcasecmp(s, lv[i])) return i;
    return 2;
}

int pm_log_info(void) { return log_level() >= 3; }

void pm_summary_print(void)
{
    int lv = log_level();
    if (lv < 3 || (lv == 3 && pm.world_rank != 0)) return;
    char line[1024];
    fprintf(stderr, "plexus-mpi: rank %d: calls and bytes per collective, to Plexus and to MPI "
            "(why)%s\n", pm.world_rank, forced >= 0 ? " [PLX_MPI_COLLS set]" : "");
    for (int c = 0; c < PM_NCOLL; c++) {
        unsigned long total = 0, mpi_calls = 0;
        unsigned long long mpi_bytes = 0;
        for (int w = 0; w < PM_NWHY; w++) total += pm_n_calls[c][w];
        if (!total) continue;
        for (int w = 1; w < PM_NWHY; w++) {
            mpi_calls += pm_n_calls[c][w];
            mpi_bytes += pm_n_bytes[c][w];
        }
        int len = snprintf(line, sizeof line, "plexus-mpi: %-14s plexus %lu calls %llu B, mpi %lu calls %llu B",
                           coll_names[c], (unsigned long)pm_n_calls[c][0],
                           (unsigned long long)pm_n_bytes[c][0], mpi_calls, mpi_bytes);
        const char *sep = " (";
        for (int w = 1; w < PM_NWHY && len < (int)sizeof line - 64; w++) {
            if (!pm_n_calls[c][w]) continue;
            len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %lu", sep, why_names[w],
                            (unsigned long)pm_n_calls[c][w]);
            sep = ", ";
        }
        if (mpi_calls) snprintf(line + len, sizeof line - (size_t)len, ")");
        fprintf(stderr, "%s\n", line);
    }
    fprintf(stderr, "plexus-mpi: rank %d: %lu Plexus communicators made at a first routed collective\n",
            pm.world_rank, pm_mirror_made());
}
