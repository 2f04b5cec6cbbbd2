/*
 * tools/plexusrun_bind.h — plexusrun's CPU binding (--bind-to, and
 * --report-bindings): which cores this machine lets us use, and which of
 * them each rank gets.  Kept apart from tools/plexusrun.c, which only
 * calls these functions.
 *
 * Policy:
 *   auto (default)  core when the ranks fit on the cores (one core each),
 *                   otherwise none: an oversubscribed job is better left to
 *                   the kernel's scheduler than piled two to a core;
 *   core            rank r gets core r (wrapping around, r mod cores, when
 *                   there are more ranks than cores: that is what was asked);
 *   none            no binding.
 * A core is every hardware thread of one physical core within the CPUs
 * plexusrun itself may use (its affinity mask: taskset, cgroups, Slurm).
 * The cores come from hwloc when plexusrun was built with it, else from
 * /sys/devices/system/cpu/cpuN/topology (package and core ids), else each
 * allowed CPU counts as a core.
 */
#ifndef PLEXUSRUN_BIND_H
#define PLEXUSRUN_BIND_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>

enum { BIND_AUTO, BIND_CORE, BIND_NONE };

typedef struct bind_plan {
    int mode;                  /* BIND_AUTO / BIND_CORE / BIND_NONE, as asked */
    int bound;                 /* 1: ranks get a core each (the decision) */
    int ncores;
    cpu_set_t *cores;          /* ncores sets, in topology order */
    cpu_set_t allowed;         /* what plexusrun itself may use */
    char source[64];           /* where the cores came from, for the report */
    char why[160];             /* the decision in words, for the report */
} bind_plan_t;

/* Parse --bind-to's value: 0 and *mode, or -1 for a bad value. */
int bind_parse(const char *s, int *mode);

/* Find the cores and decide for np ranks.  Never fails: when the cores
 * cannot be found the plan is "none" and why says so. */
void bind_plan_make(bind_plan_t *bp, int mode, int np);

/* The CPU set rank r runs on (NULL: not bound). */
const cpu_set_t *bind_rank_set(const bind_plan_t *bp, int r);

/* "0-3,8" for a CPU set. */
void bind_cpulist(const cpu_set_t *set, char *out, size_t outlen);

/* One report line for rank r into out (no newline), e.g.
 * "rank 1 bound to core 1 of 2: cpus 1" or "rank 3 not bound: cpus 0-1". */
void bind_describe(const bind_plan_t *bp, int r, char *out, size_t outlen);

void bind_plan_free(bind_plan_t *bp);

#endif /* PLEXUSRUN_BIND_H */
