/*
 * lib/coll/select.c — the selector table and the PLX_TUNE parser (syntax in
 * select.h).  The defaults are a PLX_TUNE string so they print, parse and
 * override exactly like the user's rules.
 */
#include "coll/select.h"
#include "core/config.h"

#include <stdlib.h>
#include <string.h>

/* The default rules, one per line, each with why it is there.  Every row
 * was set from perf/tune_sweep runs or interleaved A/Bs of the algorithms
 * it chooses between, on 2 cores (2 ranks: a core each; 3-5 ranks: more
 * ranks than cores); the figures and the runs are in perf/RESULTS.md,
 * section "Selector defaults: the evidence for each row", which names the
 * section of every measurement.  Rows are tried in order: the first whose
 * range holds the size and whose algorithm can run wins, so a node-local
 * row (shm_slots, direct) that cannot run, e.g. a communicator across
 * nodes, passes the call on to hier and then to the p2p schedules.
 * "slot": shm_slots' per-rank window holds the payload (32 KiB with a core
 * per rank and at 6-8 ranks, 256 KiB where 3-5 ranks outnumber cores). */
static const char DEFAULT_TUNE[] =
    "barrier:"
        "0-inf@shm_slots,"                 /* every size, 2, 4, 6 and 8 ranks */
        "0-inf@hier,"                      /* across nodes */
        "0-inf@dissemination;"
    "bcast:"
        "0-33K/2-2@shm_slots,"             /* slot holds it: 1.1 us at 32 KiB, binomial 144 */
        "256K-inf/3-3@direct,"             /* 256 KiB itself: direct (shm_slots to 128 KiB) */
        "64K-513K/3-5@shm_slots,"          /* root copies into its slot and returns */
        "256K-inf/2-2@direct,"
        "128K-inf/4-4@direct,"             /* once direct's waits sleep on a futex */
        "256K-inf/3-5@direct,"
        "32K-33K/6-inf@shm_slots,"         /* 6-8 ranks: 32 KiB fills the 32 KiB slot */
        "64K-inf/6-inf@direct,"            /* 6-8 ranks: binomial / scatter_allgather 1.2-3x */
        "0-inf@hier,"
        "0-128K@binomial,"
        "128K-inf@scatter_allgather;"
    "reduce:"
        "0-33K/2-2@shm_slots,"             /* slot: 3.8 us, binomial 3.9-9.7 */
        "16K-257K/4-4@shm_slots,"          /* non-roots copy into a slot and leave */
        "34K-257K/3-3@shm_slots,"          /* ... (from 34 KiB: the 256 KiB slots) */
        "34K-257K/5-5@shm_slots,"
        "256K-inf/2-2@direct,"
        "128K-inf/4-4@direct,"
        "256K-inf/3-5@direct,"
        "16K-33K/6-6@shm_slots,"           /* non-roots copy into a slot and leave */
        "32K-33K/8-8@shm_slots,"           /* (8 ranks, 16 KiB: binomial, even) */
        "128K-inf/6-inf@direct,"           /* 6-8 ranks (64 KiB: binomial, even) */
        "0-inf@hier,"
        "0-128K@binomial,"
        "128K-inf@reduce_scatter_gather,"
        "0-inf@ordered;"                   /* rank order for a non-commutative user op */
    "allreduce:"
        "0-32K@shm_slots,"
        "32K-33K/6-inf@shm_slots,"         /* 32 KiB at 6-8 ranks: the ring 1.8x */
        "64K-128K/1-1@direct,"             /* 64-128 KiB direct except at 2 ranks */
        "64K-128K/3-3@direct,"             /* ... and 4 (the ring: 54 us against 107) */
        "64K-128K/5-inf@direct,"
        "128K-inf@direct,"
        "0-inf@hier,"
        "65537-128K/2-2@recursive_doubling," /* the ring's halves would go through CMA */
        "0-16K@recursive_doubling,"
        "16K-inf@ring,"                    /* 2 ranks to 64 KiB: halves go eager */
        "0-inf@recursive_doubling;"        /* rank order for a non-commutative user op */
    "allgather:"
        "0-32K@shm_slots,"
        "32K-64K/3-5@direct,"              /* staged input (3 and 5 ranks: the ring 1.4-3.7x) */
        "32K-64K/6-inf@direct,"            /* 6-8 ranks: the ring 2x */
        "64K-inf@direct,"
        "0-inf@hier,"
        "0-32K@bruck,"
        "32K-inf@ring;"
    "reduce_scatter:"
        "0-16K/2-2@shm_slots,"
        "0-64K/3-5@shm_slots,"
        "32K-inf/2-2@direct,"
        "64K-inf/3-inf@direct,"
        "0-64K/6-inf@shm_slots,"           /* 6-8 ranks, totals the 32 KiB slot holds */
        "32K-64K/6-6@direct,"              /* 6 ranks (8: even with the ring) */
        "0-16K@recursive_halving,"
        "16K-inf@ring,"
        "0-inf@ordered;"                   /* rank order for a non-commutative user op */
    "alltoall:"
        "0-16K/2-2@shm_slots,"
        "0-85K/3-3@shm_slots,"             /* pairwise's p-1 steps each wait for a peer */
        "4K-32K/4-4@shm_slots,"            /* ... (< 4 KiB at 4-5 ranks: linear, even) */
        "33K-65K/4-4@shm_slots,"           /* the 256 KiB slot holds all four blocks */
        "4K-64K/5-5@shm_slots,"
        "64K-inf/2-2@direct,"
        "32K-inf/4-4@direct,"              /* staged input */
        "64K-inf/5-5@direct,"
        "85K-inf/3-3@direct,"
        "4K-32K/6-6@linear,"               /* 6 ranks: pairwise's 5 steps each wait */
        "32K-inf/6-6@direct,"
        "2K-inf/8-8@direct,"               /* 8 ranks: direct from 2 KiB */
        "4K-inf/7-7@linear,"               /* 7 ranks: pairwise 1.04-2.4x (direct bimodal) */
        "0-4K@linear,"
        "4K-inf@pairwise;"
    "gather:"
        "4097-64K/2-2@shm_slots,"          /* binomial faster up to 4 KiB blocks */
        "8K-129K/3-5@shm_slots,"           /* non-roots copy into a slot and leave */
        "129K-257K/3-3@shm_slots,"         /* (4 ranks: direct from 64 KiB blocks) */
        "129K-257K/5-5@shm_slots,"
        "256K-inf/2-2@direct,"
        "64K-inf/4-5@direct,"              /* a star once direct's waits yield, then sleep */
        "85K-inf/3-3@direct,"
        "16K-inf/6-inf@direct,"            /* 6-8 ranks: a star, 0.4-0.6x binomial / linear */
        "0-32K@binomial,"
        "32K-inf@linear;"
    "scatter:"
        "1K-32K/2-2@shm_slots,"
        "256K-inf/2-2@direct,"
        "33K-inf/3-5@direct,"              /* a star: non-roots read their own blocks */
        "4K-32K/4-5@linear,"               /* binomial forwards through waiting ranks */
        "2K-32K/6-inf@linear,"             /* ... at 6-8 ranks from 2 KiB blocks */
        "0-32K@binomial,"
        "32K-inf@linear;"
    /* The v-forms (issue 14).  alltoallv, gatherv and scatterv choose by
     * each rank's own counts, so their node-local rules span 0-inf (every
     * rank of the node takes the same one; shm_slots reads what does not
     * fit the slot with one copy).  At 4 ranks neither node-local
     * algorithm was clearly faster, so the p2p ones stay there. */
    "allgatherv:"
        "0-32K/2-2@shm_slots,"
        "64K-inf/2-2@direct,"
        "0-64K@linear,"
        "64K-inf@ring;"
    "alltoallv:"
        "0-inf/2-2@shm_slots,"
        "0-4K@linear,"
        "4K-inf@pairwise;"
    "gatherv:"
        "0-inf/2-2@shm_slots,"
        "0-inf@linear;"
    "scatterv:"
        "0-inf/2-2@shm_slots,"
        "0-inf@linear;"
    "reduce_scatterv:"
        "0-4K/2-2@shm_slots,"
        "0-inf@ring,"
        "0-inf@ordered;"
    "scan:"
        "0-inf@recursive_doubling;"
    "exscan:"
        "0-inf@recursive_doubling";

typedef struct range_rule {
    size_t lo, hi;                /* [lo, hi) bytes */
    int pmin, pmax;               /* communicator sizes [pmin, pmax] (default 1-inf) */
    const coll_algo_t *algo;
} range_rule_t;

typedef struct coll_rules {
    int n;
    range_rule_t r[PLX_SELECT_MAX_RULES];
} coll_rules_t;

struct plx_select {
    coll_rules_t user[PLX_COLL_COUNT];
    coll_rules_t def[PLX_COLL_COUNT];
    /* first use already logged: bit per algorithm index, per combination
     * of transports (bit t: ctx->tl[t] carries some of the traffic) */
    uint64_t logged[PLX_COLL_COUNT][16];
};

const char *plx_select_defaults(void) { return DEFAULT_TUNE; }

/* Strip blanks at both ends, in place. */
static char *trim(char *t)
{
    while (*t == ' ' || *t == '\t') t++;
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t')) t[--n] = '\0';
    return t;
}

/* Parse "rule;rule;..." into rules[]. */
static plx_status_t parse_tune(const char *text, coll_rules_t rules[PLX_COLL_COUNT],
                               char *err, size_t errlen)
{
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    if (!buf) return PLX_ERR_NO_MEMORY;
    memcpy(buf, text, len + 1);
    plx_status_t st = PLX_SUCCESS;
    int named[PLX_COLL_COUNT] = { 0 };   /* a second rule for one collective is refused */
    char *save_rule = NULL;
    for (char *rule = strtok_r(buf, ";", &save_rule); rule; rule = strtok_r(NULL, ";", &save_rule)) {
        rule = trim(rule);
        if (!*rule) continue;
        char *colon = strchr(rule, ':');
        if (!colon) {
            snprintf(err, errlen, "PLX_TUNE: '%s' has no ':' (want collective:range@algorithm,...)", rule);
            st = PLX_ERR_INVALID_ARG;
            break;
        }
        *colon = '\0';
        rule = trim(rule);
        int coll = plx_coll_from_name(rule);
        if (coll < 0) {
            snprintf(err, errlen, "PLX_TUNE: unknown collective '%s'", rule);
            st = PLX_ERR_INVALID_ARG;
            break;
        }
        if (named[coll]++) {
            snprintf(err, errlen, "PLX_TUNE: a second rule for %s (put all its ranges in one rule, "
                     "separated by ',')", rule);
            st = PLX_ERR_INVALID_ARG;
            break;
        }
        coll_rules_t *cr = &rules[coll];
        cr->n = 0;
        char *save_r = NULL;
        for (char *item = strtok_r(colon + 1, ",", &save_r); item; item = strtok_r(NULL, ",", &save_r)) {
            char *at = strchr(item, '@');
            /* the byte range ends at the optional "/pmin-pmax" (communicator
             * sizes the range applies to): its dash must come before both */
            char *slash = at ? memchr(item, '/', (size_t)(at - item)) : NULL;
            char *dash = strchr(item, '-');
            if (!at || !dash || dash > at || (slash && dash > slash)) {
                snprintf(err, errlen, "PLX_TUNE: '%s' in %s is not lo-hi[/ranks-ranks]@algorithm", item, rule);
                st = PLX_ERR_INVALID_ARG;
                break;
            }
            *at = '\0';
            int pmin = 1, pmax = INT32_MAX;
            if (slash) {
                *slash = '\0';
                char *pdash = strchr(slash + 1, '-');
                size_t a, b;
                if (!pdash) {
                    snprintf(err, errlen, "PLX_TUNE: '%s' in %s is not ranks-ranks", slash + 1, rule);
                    st = PLX_ERR_INVALID_ARG;
                    break;
                }
                *pdash = '\0';
                char *pa = trim(slash + 1), *pb = trim(pdash + 1);
                if (plx_parse_size(pa, &a) != 0 || plx_parse_size(pb, &b) != 0 || a < 1 || a > b ||
                    a > INT32_MAX) {
                    snprintf(err, errlen, "PLX_TUNE: bad rank range '%s-%s' in %s", pa, pb, rule);
                    st = PLX_ERR_INVALID_ARG;
                    break;
                }
                pmin = (int)a;
                pmax = b > INT32_MAX ? INT32_MAX : (int)b;
            }
            *dash = '\0';
            char *lo_s = trim(item), *hi_s = trim(dash + 1), *name = trim(at + 1);
            size_t lo, hi;
            if (plx_parse_size(lo_s, &lo) != 0 || plx_parse_size(hi_s, &hi) != 0 || lo >= hi) {
                snprintf(err, errlen, "PLX_TUNE: bad size range '%s-%s' in %s", lo_s, hi_s, rule);
                st = PLX_ERR_INVALID_ARG;
                break;
            }
            const coll_algo_t *algo = coll_algo_find((plx_coll_t)coll, name);
            if (!algo) {
                snprintf(err, errlen, "PLX_TUNE: unknown algorithm '%s' for %s", name, rule);
                st = PLX_ERR_INVALID_ARG;
                break;
            }
            if (cr->n == PLX_SELECT_MAX_RULES) {
                snprintf(err, errlen, "PLX_TUNE: more than %d ranges for %s", PLX_SELECT_MAX_RULES, rule);
                st = PLX_ERR_INVALID_ARG;
                break;
            }
            cr->r[cr->n++] = (range_rule_t){ lo, hi, pmin, pmax, algo };
        }
        if (st != PLX_SUCCESS) break;
    }
    free(buf);
    return st;
}

plx_status_t plx_select_create(const char *tune, plx_select_t **out, char *err, size_t errlen)
{
    plx_select_t *sel = calloc(1, sizeof *sel);
    if (!sel) return PLX_ERR_NO_MEMORY;
    plx_status_t st = parse_tune(DEFAULT_TUNE, sel->def, err, errlen);
    if (st == PLX_SUCCESS && tune && *tune) st = parse_tune(tune, sel->user, err, errlen);
    if (st != PLX_SUCCESS) {
        free(sel);
        return st;
    }
    *out = sel;
    return PLX_SUCCESS;
}

void plx_select_free(plx_select_t *sel) { free(sel); }

/* The first rule whose range holds bytes and whose algorithm can run on
 * comm (node-local algorithms only where every member shares this node). */
static const coll_algo_t *lookup(const coll_rules_t *cr, size_t bytes, plx_comm_t comm,
                                 int need_order)
{
    int p = comm ? comm->size : 0;
    for (int i = 0; i < cr->n; i++)
        if (bytes >= cr->r[i].lo && (bytes < cr->r[i].hi || cr->r[i].hi == SIZE_MAX) &&
            (!need_order || cr->r[i].algo->rank_ordered) &&
            (!comm || (p >= cr->r[i].pmin && p <= cr->r[i].pmax)) &&
            (!cr->r[i].algo->can_run || cr->r[i].algo->can_run(comm, bytes)))
            return cr->r[i].algo;
    return NULL;
}

const coll_algo_t *plx_select_algo(plx_select_t *sel, plx_coll_t coll, size_t bytes, plx_comm_t comm)
{
    return plx_select_algo_for(sel, coll, bytes, comm, 0);
}

const coll_algo_t *plx_select_algo_for(plx_select_t *sel, plx_coll_t coll, size_t bytes,
                                       plx_comm_t comm, int need_order)
{
    int comm_size = comm ? comm->size : 0;
    const coll_algo_t *a = lookup(&sel->user[coll], bytes, comm, need_order);
    if (!a) a = lookup(&sel->def[coll], bytes, comm, need_order);
    if (!a) {
        /* defaults cover 0-inf for every collective; keep a safe answer anyway */
        for (const coll_algo_t *p = plx_coll_algos; p->name; p++)
            if (p->coll == coll && !p->can_run && (!need_order || p->rank_ordered)) return p;
        return NULL;
    }
    unsigned idx = (unsigned)(a - plx_coll_algos);
    /* (a communicator without a context: the unit test's stand-in);
     * the transports' names are built once per comm (that sets tmask) and
     * read only to log a first use: no call on every collective */
    int real = comm && comm->ctx;
    if (real && !comm->transports[0]) plx_comm_transports(comm);
    unsigned tm = real ? comm->tmask & 15u : 0;
    if (idx < 64 && !(sel->logged[coll][tm] & (1ull << idx))) {
        const char *tn = real ? plx_comm_transports(comm) : "-";
        sel->logged[coll][tm] |= 1ull << idx;
        plx_info("%s of %zu bytes on %d ranks: algorithm %s over %s (first use)", plx_coll_name(coll),
                 bytes, comm_size, a->name, tn);
    }
    return a;
}

static void print_size(FILE *out, size_t v)
{
    if (v == SIZE_MAX) fprintf(out, "inf");
    else if (v && v % (1u << 30) == 0) fprintf(out, "%zuG", v >> 30);
    else if (v && v % (1u << 20) == 0) fprintf(out, "%zuM", v >> 20);
    else if (v && v % (1u << 10) == 0) fprintf(out, "%zuK", v >> 10);
    else fprintf(out, "%zu", v);
}

/* Whether rule i of sets[k] can never decide at comm_size: an earlier rule
 * for that size runs the same algorithm over all of its range, so it took
 * every size of it already, or can_run (which sees only the communicator and
 * the size) refused them for both.  (The 3-rank bcast row before the
 * 3-5-rank shm_slots row makes the 3-5-rank direct row dead at 3 ranks.) */
static int shadowed(const coll_rules_t *const sets[2], int k, int i, int comm_size)
{
    const range_rule_t *r = &sets[k]->r[i];
    for (int kk = 0; kk <= k; kk++)
        for (int j = 0; j < (kk < k ? sets[kk]->n : i); j++) {
            const range_rule_t *e = &sets[kk]->r[j];
            if (comm_size >= e->pmin && comm_size <= e->pmax && e->algo == r->algo && e->lo <= r->lo &&
                (e->hi == SIZE_MAX || (r->hi != SIZE_MAX && e->hi >= r->hi)))
                return 1;
        }
    return 0;
}

void plx_select_print(const plx_select_t *sel, FILE *out, int comm_size)
{
    fprintf(out, "# selector table for %d ranks (bytes = count x datatype size per call)\n", comm_size);
    fprintf(out, "# %-15s %-14s %s\n", "collective", "bytes", "algorithm (source)");
    for (int c = 0; c < PLX_COLL_COUNT; c++) {
        const coll_rules_t *const sets[2] = { &sel->user[c], &sel->def[c] };
        const char *src[2] = { "PLX_TUNE", "default" };
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < sets[k]->n; i++) {
                const range_rule_t *r = &sets[k]->r[i];
                if (comm_size < r->pmin || comm_size > r->pmax) continue;   /* not for this size */
                if (shadowed(sets, k, i, comm_size)) continue;                 /* never decides here */
                fprintf(out, "  %-15s ", plx_coll_name((plx_coll_t)c));
                char buf[64];
                FILE *m = fmemopen(buf, sizeof buf, "w");
                if (m) {
                    print_size(m, r->lo);
                    fputc('-', m);
                    print_size(m, r->hi);
                    fclose(m);
                    fprintf(out, "%-14s ", buf);
                }
                fprintf(out, "%s (%s%s)\n", r->algo->name, src[k],
                        !r->algo->can_run ? ""
                        : r->algo->node_slots ? "; only if every rank shares this node and it fits"
                                              : "; only if the ranks span several nodes");
            }
        }
    }
}
