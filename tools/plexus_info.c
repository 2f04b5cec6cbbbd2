/*
 * tools/plexus_info.c — what this Plexus build is: version and transports,
 * every PLX_* environment variable with its default and meaning, and the
 * selector's table (which algorithm runs each collective at each size).
 *
 *   plexus_info                 everything below
 *   plexus_info --version       version, transports built in, CUDA/NCCL built and
 *                               whether a CUDA device is usable now
 *   plexus_info --env           the environment variables
 *   plexus_info --tune [-n N]   the selector table for N ranks (PLX_TUNE applied;
 *                               -n is checked: a whole number, nothing after it)
 *   plexus_info --algorithms    every algorithm by collective
 *
 * It uses the library's internal tables (linked statically from the same
 * sources), so what it prints is what the library does.
 */
#include "plx_internal.h"
#include "core/config.h"
#include "coll/select.h"
#include "device/device.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: plexus_info [--version] [--env] [--tune [-n RANKS]] [--algorithms]\n"
            "\n"
            "What this Plexus build is and does; with no option, everything below.\n"
            "  -v, --version       version, transports built in, CUDA/NCCL built and whether a\n"
            "                      CUDA device is usable now\n"
            "  -e, --env           every PLX_* environment variable: default, meaning, value now\n"
            "  -t, --tune          which algorithm runs each collective at each size (PLX_TUNE\n"
            "                      applied)\n"
            "  -n, --ranks RANKS   the communicator size --tune assumes (default 2)\n"
            "  -a, --algorithms    every algorithm by collective (names for PLX_TUNE)\n"
            "  -h, --help          this text\n"
            "Exit status: 0, 1 when PLX_TUNE is invalid, 2 for bad options.\n"
            "Report bugs at %s\n", PACKAGE_BUGREPORT);
}

static void print_version(void)
{
    printf("Plexus %s\n", plx_version_string());
    printf("report bugs at %s\n", PACKAGE_BUGREPORT);
    printf("transports built: shm yes, ucx %s, cuda %s, nccl %s\n",
#if PLX_HAVE_UCX
           "yes",
#else
           "no",
#endif
#if PLX_HAVE_CUDA
           "yes",
#else
           "no",
#endif
#if PLX_HAVE_NCCL
           "yes"
#else
           "no"
#endif
    );
    /* libplexus-mpi: one library per MPI (configure's summary says why one is missing) */
    const char *layers = PLX_MPI_LAYERS;
    printf("mpi layer: %s%s\n", *layers ? "built for " : "not built", layers);
    if (*layers)
        printf("mpi layer: libplexus-mpi-<mpi>.so, pkg-config plexus-mpi-<mpi> (preload: "
               "pkg-config --variable=preload plexus-mpi-<mpi>)\n");
    /* GPU buffers: what was built and whether a device is usable right now
     * (a machine without a GPU or driver answers no; the library still runs) */
    char dev[320];
    int usable = plx_dev_probe(dev, sizeof dev);
#if PLX_HAVE_CUDA
    const char *built = "yes (links the CUDA runtime, not the driver)";
#else
    const char *built = "no";
#endif
    const char *off = getenv("PLX_CUDA");
    printf("cuda: built %s; device usable now: %s%s\n", built, dev,
           usable && off && !strcmp(off, "0") ? " (but PLX_CUDA=0: not used)" : "");
#if PLX_HAVE_NCCL
    printf("nccl: built yes (%s); device buffers go through NCCL where every rank has a GPU of its own, "
           "else staged through pinned host memory\n", plx_devcoll_nccl_ops.version());
#else
    printf("nccl: built no; %s\n", usable ? "device buffers are staged through pinned host memory"
                                         : "device buffers need CUDA (and NCCL for speed)");
#endif
}

static void print_env(void)
{
    printf("# PLX_* environment variables (name, default, meaning)\n");
    for (const plx_env_var_t *v = plx_env_vars; v->name; v++) {
        const char *now = getenv(v->name);
        printf("%-20s default: %-22s %s%s%s%s\n", v->name, *v->def ? v->def : "(unset)", v->meaning,
               now ? " [now: " : "", now ? (strcmp(v->name, "PLX_JOB_KEY") == 0 ? "(hidden)" : now) : "",
               now ? "]" : "");
    }
}

static int print_tune(int nranks)
{
    plx_select_t *sel;
    char err[512] = "";
    plx_status_t st = plx_select_create(getenv("PLX_TUNE"), &sel, err, sizeof err);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "plexus_info: %s\n", err);
        return 1;
    }
    plx_select_print(sel, stdout, nranks);
    printf("# defaults as PLX_TUNE: %s\n", plx_select_defaults());
    plx_select_free(sel);
    return 0;
}

static void print_algorithms(void)
{
    printf("# algorithms (name them in PLX_TUNE)\n");
    for (const coll_algo_t *a = plx_coll_algos; a->name; a++)
        printf("  %-15s %-22s %s%s\n", plx_coll_name(a->coll), a->name, a->summary ? a->summary : "",
               a->rank_ordered ? " [rank-ordered: non-commutative ops]" : "");
}

int main(int argc, char **argv)
{
    int want_version = 0, want_env = 0, want_tune = 0, want_algos = 0, nranks = 2;
    static const struct option longopts[] = {
        { "version", no_argument, NULL, 'v' },
        { "env", no_argument, NULL, 'e' },
        { "tune", no_argument, NULL, 't' },
        { "ranks", required_argument, NULL, 'n' },
        { "algorithms", no_argument, NULL, 'a' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":vetn:ah", longopts, NULL)) != -1) {
        switch (ch) {
        case 'v': want_version = 1; break;
        case 'e': want_env = 1; break;
        case 't': want_tune = 1; break;
        case 'a': want_algos = 1; break;
        case 'n': {
            char *end;
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (!*optarg || *end || errno || n < 1 || n > 1 << 20) {
                fprintf(stderr, "plexus_info: -n '%s': expected a number of ranks (1..%d)\n", optarg, 1 << 20);
                return 2;
            }
            nranks = (int)n;
            break;
        }
        case 'h': usage(stdout); return 0;
        case ':':
            fprintf(stderr, "plexus_info: %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "plexus_info: unknown option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "plexus_info: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    plx_log_init(-1);
    int all = !(want_version || want_env || want_tune || want_algos);
    int rc = 0;
    if (all || want_version) print_version();
    if (all || want_env) print_env();
    if (all || want_algos) print_algorithms();
    if (all || want_tune) rc = print_tune(nranks);
    return rc;
}
