/*
 * tools/plexusrun_bind.c — finding the cores plexusrun may use and
 * deciding which one each rank runs on (see plexusrun_bind.h for the
 * policy).  The child applies its set with sched_setaffinity between fork
 * and exec, so a rank and everything it starts stay on its core.
 */
#include "plexusrun_bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if PLX_HAVE_HWLOC
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#endif

int bind_parse(const char *s, int *mode)
{
    if (strcmp(s, "core") == 0) *mode = BIND_CORE;
    else if (strcmp(s, "none") == 0) *mode = BIND_NONE;
    else if (strcmp(s, "auto") == 0) *mode = BIND_AUTO;
    else return -1;
    return 0;
}

#if PLX_HAVE_HWLOC
/* The cores through hwloc (its topology holds only the CPUs we may use). */
static int cores_hwloc(bind_plan_t *bp)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0) return -1;
    if (hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    int n = hwloc_get_nbobjs_by_type(topo, type);
    if (n <= 0) {   /* some virtual machines show no cores: use the threads */
        type = HWLOC_OBJ_PU;
        n = hwloc_get_nbobjs_by_type(topo, type);
    }
    if (n <= 0 || !(bp->cores = calloc((size_t)n, sizeof *bp->cores))) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        cpu_set_t set;
        CPU_ZERO(&set);
        if (!o || hwloc_cpuset_to_glibc_sched_affinity(topo, o->cpuset, &set, sizeof set) < 0)
            continue;
        CPU_AND(&set, &set, &bp->allowed);
        if (CPU_COUNT(&set) > 0) bp->cores[k++] = set;
    }
    hwloc_topology_destroy(topo);
    bp->ncores = k;
    snprintf(bp->source, sizeof bp->source, "hwloc");
    return k > 0 ? 0 : -1;
}
#endif

static int read_id(int cpu, const char *what)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int v = -1;
    if (fscanf(f, "%d", &v) != 1) v = -1;
    fclose(f);
    return v;
}

/* Without hwloc: allowed CPUs grouped by (package, core) from /sys; a CPU
 * whose ids cannot be read is a core of its own. */
static int cores_sysfs(bind_plan_t *bp)
{
    int n = CPU_COUNT(&bp->allowed);
    if (n <= 0 || !(bp->cores = calloc((size_t)n, sizeof *bp->cores))) return -1;
    int *pkg = calloc((size_t)n, sizeof *pkg), *core = calloc((size_t)n, sizeof *core);
    if (!pkg || !core) {
        free(pkg);
        free(core);
        return -1;
    }
    int k = 0, unknown = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &bp->allowed)) continue;
        int p = read_id(cpu, "physical_package_id"), c = read_id(cpu, "core_id"), j = 0;
        if (p < 0 || c < 0) unknown = 1;
        else
            for (; j < k; j++)
                if (pkg[j] == p && core[j] == c) break;
        if (p < 0 || c < 0 || j == k) {
            j = k++;
            CPU_ZERO(&bp->cores[j]);
            pkg[j] = p;
            core[j] = c;
        }
        CPU_SET(cpu, &bp->cores[j]);
    }
    free(pkg);
    free(core);
    bp->ncores = k;
    snprintf(bp->source, sizeof bp->source, "%s", unknown ? "allowed CPUs (no /sys topology)"
                                                          : "/sys topology");
    return k > 0 ? 0 : -1;
}

void bind_plan_make(bind_plan_t *bp, int mode, int np)
{
    memset(bp, 0, sizeof *bp);
    bp->mode = mode;
    if (sched_getaffinity(0, sizeof bp->allowed, &bp->allowed) < 0) {
        CPU_ZERO(&bp->allowed);
        snprintf(bp->why, sizeof bp->why, "not binding: cannot read plexusrun's own CPU mask");
        return;
    }
    if (mode == BIND_NONE) {
        snprintf(bp->why, sizeof bp->why, "not binding (--bind-to none or PLX_BIND_TO=none)");
        return;
    }
    int found = -1;
#if PLX_HAVE_HWLOC
    found = cores_hwloc(bp);
    if (found < 0) {
        free(bp->cores);
        bp->cores = NULL;
    }
#endif
    if (found < 0) found = cores_sysfs(bp);
    if (found < 0) {
        snprintf(bp->why, sizeof bp->why, "not binding: could not find the cores of this machine");
        return;
    }
    if (mode == BIND_AUTO && np > bp->ncores) {
        snprintf(bp->why, sizeof bp->why, "not binding: %d ranks are more than the %d core(s) "
                 "plexusrun may use (--bind-to core wraps around)", np, bp->ncores);
        return;
    }
    bp->bound = 1;
    if (np > bp->ncores)
        snprintf(bp->why, sizeof bp->why, "binding to cores (%s): %d ranks on %d core(s), "
                 "wrapping around (oversubscribed)", bp->source, np, bp->ncores);
    else
        snprintf(bp->why, sizeof bp->why, "binding to cores (%s): %d rank(s), %d core(s)",
                 bp->source, np, bp->ncores);
}

const cpu_set_t *bind_rank_set(const bind_plan_t *bp, int r)
{
    return bp->bound ? &bp->cores[r % bp->ncores] : NULL;
}

void bind_cpulist(const cpu_set_t *set, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && n + 16 < outlen; c++) {
        if (!CPU_ISSET(c, set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set)) e++;
        if (e > c) n += (size_t)snprintf(out + n, outlen - n, "%s%d-%d", n ? "," : "", c, e);
        else n += (size_t)snprintf(out + n, outlen - n, "%s%d", n ? "," : "", c);
        c = e;
    }
}

void bind_describe(const bind_plan_t *bp, int r, char *out, size_t outlen)
{
    char list[256];
    if (bp->bound) {
        bind_cpulist(&bp->cores[r % bp->ncores], list, sizeof list);
        snprintf(out, outlen, "rank %d bound to core %d of %d: cpus %s", r, r % bp->ncores,
                 bp->ncores, list);
    } else {
        bind_cpulist(&bp->allowed, list, sizeof list);
        snprintf(out, outlen, "rank %d not bound: cpus %s", r, list);
    }
}

void bind_plan_free(bind_plan_t *bp)
{
    free(bp->cores);
    bp->cores = NULL;
}
