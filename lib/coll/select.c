/*
 * lib/coll/select.c — the selector table and the PLX_TUNE parser (syntax in
 * select.h).  The defaults are a PLX_TUNE string so they print, parse and
 * override exactly like the user's rules.
 */
#include "coll/select.h"
#include "core/config.h"

#include <stdlib.h>
#include <string.h>

/* Set from perf/tune_sweep runs recorded in perf/RESULTS.md ("Selector
 * defaults"): shm_slots wins every size it can carry for allreduce,
 * allgather and barrier at 2 and 4 ranks; for bcast and reduce only at 2
 * ranks (with more ranks than cores its two-deep slot pipeline stalls the
 * root while p2p eager rings let it run ahead, so binomial wins), but for
 * reduce at 4 ranks from 16 KiB: there binomial's copies through the
 * rings (in, out, then reduce, with a forwarding rank between) cost more
 * than the stall, 10.6-12 us against 12-32 at 16 KiB and 12-16 against
 * 21-52 at 32 KiB, 8 interleaved launches each, while at 2-8 KiB binomial
 * stays faster (slots 8.5 us at 8 KiB, binomial 5.4-8.1; perf/RESULTS.md
 * "Issue 11: reduce <= 64 KiB", session s7s).  Reduce at 2 ranks through
 * 32 KiB (the default slot holds 34496 bytes): 3.8 us against binomial's
 * 3.9-9.7.  The
 * schedule thresholds come from the same sweeps at 2 ranks.  The
 * single-copy collectives (direct, issue 11) run where the sweeps of
 * perf/RESULTS.md ("Issue 11") measured them fastest: allreduce and
 * allgather from 64 KiB at any size; reduce_scatter from 64 KiB on 3+ ranks
 * and from 32 KiB blocks on 2 (8 interleaved launches against the ring:
 * 64 KiB-4 MiB totals 0.65-0.95x its time by first quartile, a 16 KiB
 * block 1.19x; perf/RESULTS.md "Issue 11, 2 ranks: reduce_scatter direct
 * from 32 KiB blocks"); bcast, gather, scatter from 256 KiB on 2 ranks
 * (with more ranks than cores and yielding waits binomial/linear won); reduce from 256 KiB
 * and alltoall from 64 KiB (one block) on 2 ranks (perf/RESULTS.md
 * "Issue 11, 2-rank data path": direct reduce beat reduce_scatter_gather
 * at 256 KiB-16 MiB, median 0.91x the time at 64 MiB; direct alltoall was
 * 0.92-1.0x pairwise's time in the medians, on loaded runs).  At 4 ranks
 * on 2 cores, once direct's waits sleep on a futex instead of yielding
 * (issue 11, "4 ranks on 2 cores: sleeping waits" in RESULTS.md), direct
 * won bcast and reduce from 128 KiB, alltoall from 64 KiB, gather from
 * 128 KiB and scatter from 256 KiB per block (plx_perf's sizes are the
 * totals, 4x that) in interleaved default/direct runs (only 4 ranks
 * measured, so only 4 ranks use it).  Allreduce on 2 ranks (perf/tune_sweep
 * on the kernel 6.18 machine, 6-7 interleaved launches per algorithm,
 * RESULTS "Issue 11: 2-rank allreduce 8-256 KiB"): direct costs ~11 us even
 * at 8 KiB (two waits and two CMA calls), so the ring up to 64 KiB, while
 * each half fits the shm eager limit (32 KiB; 5.6 / 9.1 us at 32 / 64 KiB
 * against direct's 13.4 / 15.7), then recursive doubling below 128 KiB
 * (11.6-18.2 us at 80-125 KiB against direct's 13.9-18.9; the ring's
 * halves go through CMA there, 25-37 us), direct from 128 KiB (the old
 * machine had direct from 32 KiB: its ring was slower).  Gather at 4 ranks from 64 KiB per block
 * once direct's waits yield before sleeping (256 KiB total: 24-26 us
 * against linear's 33-44, RESULTS issue 11 "yield, then sleep").  3 and 5
 * ranks on 2 cores, the same sweeps (256 KiB-4 MiB totals, 3 alternating
 * rounds): direct faster for bcast, reduce, alltoall and gather at both
 * (bcast 256 KiB 0.6x / 0.5x the time), scatter at 3 ranks only (85 KiB
 * blocks are 256 KiB at 3 ranks: the smallest measured).  Allreduce of
 * 64 KiB at 4 ranks: the ring (54 us) and not direct (107 us), 8
 * interleaved rounds in RESULTS "Issue 11: sizes <= 64 KiB against before"
 * (only 4 ranks measured there, so the other sizes keep direct from 64 KiB).
 * alltoall, reduce_scatter, gather, scatter at 2 ranks: shm_slots (the
 * v-forms' slots with equal counts, node_slots_v.c) where 12 interleaved
 * rounds against before issues 11-15 and the p2p default measured it
 * faster by minimum and first quartile (RESULTS "Issue 11: sizes <= 64 KiB",
 * session h11t): alltoall and reduce_scatter blocks up to 8 KiB (0.5-0.9x
 * before's time), gather from 512 B blocks, scatter from 1 KiB blocks (below
 * those, equal or slower than binomial); the slot caps them (can_run).
 * Gather at 2 ranks on the kernel 6.18 machine: binomial 0.28 us against
 * shm_slots' 0.54 at 512 B blocks, shm_slots faster from 1 KiB blocks
 * (0.55 us against binomial's bimodal 0.65-3.0; perf/tune_sweep, 6
 * alternating rounds, RESULTS issue 11 "sizes <= 64 KiB against before",
 * s9s), so shm_slots from 1 KiB blocks.  Measured again at main bb8c722
 * (perf/RESULTS.md, issue 11, "<= 64 KiB: the flagged cells again",
 * 12 alternating launches): binomial 0.31-0.35 / 0.46-0.50 / 0.60-0.74 /
 * 0.59-0.64 us at 512 B-4 KiB blocks (one launch in four slow at 1-2 KiB,
 * up to 3.1), shm_slots 0.53-0.57 / 0.66-0.75 / 0.66-0.90 / 0.81-0.88;
 * binomial's 8 KiB blocks take 20 us: so shm_slots above 4 KiB blocks,
 * as before issue 11 did below.  Bcast at 2 ranks through
 * 32 KiB like reduce (the slot holds 34496 bytes): shm_slots 1.09 us at
 * 32 KiB against binomial's 144 (6 alternating rounds, same section).
 * Scatter at 4 ranks from 64 KiB per block once direct's scatter and
 * gather run as stars with more ranks than cores (node_direct.c): 256 KiB
 * total, 10 alternating launches, median / first quartile 25.7 / 22.4 us
 * against linear's 32.2 / 28.3 and Open MPI's 25.1-26.2 / 22.2-23.3
 * (perf/RESULTS.md "Issue 11: 4-rank scatter and gather as stars").
 * Scatter at 3-5 ranks from 33 KiB blocks: direct (star), in place of
 * s12b's shm_slots rows (below) and linear at 5 ranks: on 2 cores, 38-85
 * KiB blocks 0.68-0.89x shm_slots' time and 5-rank 80-820 KiB blocks
 * 0.72-0.94x linear's by q1 and median, interleaved A/Bs of 10-16
 * launches per arm (perf/RESULTS.md "Issue 11: scatter at 3-5 ranks",
 * session s15a; a core per rank not measured).  s12b had shm_slots
 * 0.70x direct's time at 4 ranks 256 KiB, before direct's lone waits slept
 * (s13b); 19-32 KiB blocks at 5 ranks stay linear (direct 1.0-1.7x).
 * shm_slots bcast and gather at 3-5 ranks on 2 cores (perf/RESULTS.md,
 * issue 11, session s10f; 6 alternating rounds each): where the slot holds
 * the payload (a node whose 3-5 ranks outnumber its cores gets 256 KiB
 * slots, transports/shm/shm_seg.c), the bcast root copies into its slot and
 * returns, the gather non-roots copy into theirs and return, nobody waits
 * for a rank that is not running: bcast from 64 KiB 0.2-0.8x the time of
 * binomial / direct / scatter_allgather at 3, 4 and 5 ranks by first
 * quartile (16-32 KiB: 5 ranks no faster), up to 512 KiB with a 1 MiB slot
 * (1 MiB at 4 ranks: 1.25x direct's); gather from 8 KiB blocks 0.1-0.85x
 * binomial / linear / direct (smaller blocks slower or mixed: the root
 * waits for every non-root's slot, ~10 us at 3-4 ranks, ~20 at 5), up to
 * 256 KiB blocks at 3 and 5 ranks, 128 KiB at 4 (256 KiB blocks there:
 * q1 / median 0.97 / 0.73 and 1.19 / 1.17 of direct in two windows).  Reduce at 4 ranks keeps shm_slots
 * below 33 KiB only (what the 32 KiB slot held when it was measured).
 * Allgather 32-64 KiB blocks and alltoall from 32 KiB blocks at 4 ranks:
 * direct, once its inputs are staged (node_direct.c "Staged input"):
 * 128 KiB totals 0.50-0.67x the time of ring / pairwise by first quartile
 * and median, 8 interleaved launches (1.2-1.33x with CMA reads instead;
 * perf/RESULTS.md "Issue 11: staged input for direct allgather and
 * alltoall", session s10g; 5 ranks not measured, so they keep 64 KiB).
 * Alltoall of 33-64 KiB blocks at 4 ranks: shm_slots again (the 256 KiB
 * windows of 4 ranks on 2 cores hold the four blocks; elsewhere can_run
 * passes the row on to direct): 256 KiB totals 0.68-0.72x direct's time
 * by q1 and median, interleaved A/Bs of 12 launches per arm; 32 and 128 KiB
 * blocks no faster (perf/RESULTS.md "Issue 11: 4-rank alltoall 256 KiB",
 * lead of session 15).
 * Alltoall below those rows at 3-5 ranks: shm_slots (the 256 KiB windows
 * where ranks outnumber cores hold every block; elsewhere can_run passes
 * the row on), not pairwise, whose p-1 dependent steps each wait for a
 * peer to be scheduled: 0.33-0.65x its time by q1 and median over 8
 * interleaved launches (perf/RESULTS.md "alltoall at 3-5 ranks below
 * direct", lead of session 11).  At 3 ranks shm_slots also beats linear
 * (0.82-0.94x); at 4 and 5 ranks blocks under 4 KiB stay on linear
 * (shm_slots 0.93-1.10x there, no clear gain).  Reduce_scatter below
 * direct at 3-5 ranks: shm_slots too (0.32-0.96x recursive halving's / ring's
 * time by q1, 6 interleaved launches; 5 ranks 52 KiB blocks 0.32x).
 * Scatter of 4-32 KiB blocks at 4-5 ranks: linear, not binomial (0.19-0.64x;
 * binomial forwards each subtree's blocks through ranks that wait their
 * turn for a core; 1-3 KiB blocks were mixed, so they keep binomial).
 * Reduce up to 256 KiB at 3-5 ranks: shm_slots where the 256 KiB windows of
 * 3-5 ranks outnumbering the cores hold it (the non-roots copy their input
 * into a slot and leave, nobody waits for a descheduled rank; direct and
 * binomial / reduce_scatter_gather wait for every member): 64-256 KiB
 * 0.45-0.65x the time at 4 ranks, 0.37-0.67x at 3 and 0.32-0.58x at 5, by
 * q1 and median over 8 interleaved launches (perf/RESULTS.md "Issue 11:
 * 4 ranks on 2 cores, the thin cells", session s12b).  The 3- and 5-rank
 * rows start at 34 KiB, above what the 32 KiB windows of a node with a
 * core per rank hold, where they are not measured.  (s12b's shm_slots
 * scatter rows for 33-85 KiB blocks gave way to direct in s15a, above;
 * 5-rank scatter of 13-26 KiB blocks was 1.8-2.8x slower through shm_slots
 * than linear, and 19-32 KiB blocks 1.0-1.7x through direct, so linear
 * keeps them.)
 * Bcast from 128 KiB at 3 ranks: direct before the shm_slots row above.
 * On this boot shm_slots there runs in one of two modes per launch, 23-39
 * us or 107-138 us at 256 KiB, the slow one in most launches of some
 * periods; direct holds 19-33 us at 64-256 KiB either way: 0.26-0.40x the
 * time at 128-256 KiB by median in two interleaved A/Bs (8 and 10 launches),
 * by q1 0.23-0.34x in one and 1.07 / 0.69 in the other (even with the fast
 * mode), 512 KiB even; 64 KiB mixed (faster than shm_slots' slow mode,
 * slower than its fast one), so it keeps shm_slots; 5 ranks showed no slow
 * mode and keep it (direct 1.3-2.0x there) (perf/RESULTS.md, "3 and 5
 * ranks", lead of session 16). */
static const char DEFAULT_TUNE[] =
    "barrier:0-inf@shm_slots,0-inf@hier,0-inf@dissemination;"
    "bcast:0-33K/2-2@shm_slots,128K-inf/3-3@direct,64K-513K/3-5@shm_slots,256K-inf/2-2@direct,128K-inf/4-4@direct,256K-inf/3-5@direct,0-inf@hier,0-128K@binomial,128K-inf@scatter_allgather;"
    "reduce:0-33K/2-2@shm_slots,16K-257K/4-4@shm_slots,34K-257K/3-3@shm_slots,34K-257K/5-5@shm_slots,256K-inf/2-2@direct,128K-inf/4-4@direct,256K-inf/3-5@direct,0-inf@hier,0-128K@binomial,128K-inf@reduce_scatter_gather,0-inf@ordered;"
    "allreduce:0-32K@shm_slots,64K-128K/1-1@direct,64K-128K/3-3@direct,64K-128K/5-inf@direct,128K-inf@direct,"
    "0-inf@hier,65537-128K/2-2@recursive_doubling,0-16K@recursive_doubling,16K-inf@ring,0-inf@recursive_doubling;"
    "allgather:0-32K@shm_slots,32K-64K/4-4@direct,64K-inf@direct,0-inf@hier,0-32K@bruck,32K-inf@ring;"
    "reduce_scatter:0-16K/2-2@shm_slots,0-64K/3-5@shm_slots,32K-inf/2-2@direct,64K-inf/3-inf@direct,0-16K@recursive_halving,16K-inf@ring,0-inf@ordered;"
    "alltoall:0-16K/2-2@shm_slots,0-85K/3-3@shm_slots,4K-32K/4-4@shm_slots,33K-65K/4-4@shm_slots,4K-64K/5-5@shm_slots,64K-inf/2-2@direct,32K-inf/4-4@direct,64K-inf/5-5@direct,85K-inf/3-3@direct,0-4K@linear,4K-inf@pairwise;"
    "gather:4097-64K/2-2@shm_slots,8K-129K/3-5@shm_slots,129K-257K/3-3@shm_slots,129K-257K/5-5@shm_slots,"
    "256K-inf/2-2@direct,64K-inf/4-5@direct,85K-inf/3-3@direct,0-32K@binomial,32K-inf@linear;"
    "scatter:1K-32K/2-2@shm_slots,256K-inf/2-2@direct,33K-inf/3-5@direct,4K-32K/4-5@linear,0-32K@binomial,32K-inf@linear;"
    /* issue 14; the last range of reduce/allreduce/reduce_scatter is the
     * rank-ordered fallback a non-commutative user op falls through to.
     * The node-local v-forms (node_slots_v.c, node_direct_v.c): alltoallv,
     * gatherv and scatterv choose by each rank's own counts, so their
     * node-local rules must span 0-inf (every rank of the node takes the
     * same one; their shm_slots reads what does not fit the slot with one
     * copy).  From interleaved runs of default / shm_slots / direct at 2
     * and 4 ranks (perf/RESULTS.md, "Issue 14: node-local v-forms"): at 2
     * ranks shm_slots was faster below 4-32 KiB and about even above,
     * direct faster for large allgatherv; at 4 ranks (more ranks than
     * cores) neither was clearly faster, so the p2p algorithms stay there */
    "allgatherv:0-32K/2-2@shm_slots,64K-inf/2-2@direct,0-64K@linear,64K-inf@ring;"
    "alltoallv:0-inf/2-2@shm_slots,0-4K@linear,4K-inf@pairwise;"
    "gatherv:0-inf/2-2@shm_slots,0-inf@linear;"
    "scatterv:0-inf/2-2@shm_slots,0-inf@linear;"
    "reduce_scatterv:0-4K/2-2@shm_slots,0-inf@ring,0-inf@ordered;"
    "scan:0-inf@recursive_doubling;"
    "exscan:0-inf@recursive_doubling";

#define MAX_RANGES 16

typedef struct range_rule {
    size_t lo, hi;                /* [lo, hi) bytes */
    int pmin, pmax;               /* communicator sizes [pmin, pmax] (default 1-inf) */
    const coll_algo_t *algo;
} range_rule_t;

typedef struct coll_rules {
    int n;
    range_rule_t r[MAX_RANGES];
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
            if (cr->n == MAX_RANGES) {
                snprintf(err, errlen, "PLX_TUNE: more than %d ranges for %s", MAX_RANGES, rule);
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

void plx_select_print(const plx_select_t *sel, FILE *out, int comm_size)
{
    fprintf(out, "# selector table for %d ranks (bytes = count x datatype size per call)\n", comm_size);
    fprintf(out, "# %-15s %-14s %s\n", "collective", "bytes", "algorithm (source)");
    for (int c = 0; c < PLX_COLL_COUNT; c++) {
        const coll_rules_t *sets[2] = { &sel->user[c], &sel->def[c] };
        const char *src[2] = { "PLX_TUNE", "default" };
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < sets[k]->n; i++) {
                const range_rule_t *r = &sets[k]->r[i];
                if (comm_size < r->pmin || comm_size > r->pmax) continue;   /* not for this size */
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
