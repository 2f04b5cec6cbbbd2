/*
 * tools/plexusrun.c — the local launcher: starts N ranks of a program on
 * this machine, serves their bootstrap rendezvous, forwards their output,
 * and tears the whole job down when any rank fails.
 *
 *   plexusrun -n N [--nodes K [--node-map block|cyclic]] [--timeout S]
 *             [--tag-output] [--bind HOST] [--bind-to core|none|auto]
 *             [--report-bindings] [--] prog args...
 *   plexusrun --help
 *
 * Options are read by getopt_long up to the program's name or "--" (the
 * program's own arguments pass through untouched); numbers go through the
 * parser of the PLX_* variables (lib/core/parse_num.h), so "-n 4x" or
 * "--timeout -1" is a usage error (2), never a silent guess.
 *
 * --nodes K simulates K nodes on this machine: each rank gets PLX_NODE_ID
 * node<i> (block: consecutive ranks share a node, the first N % K nodes one
 * rank more; cyclic: rank r on node r % K), so ranks on different
 * "nodes" talk through the inter-node transport (UCX) as on a cluster.
 *
 * Each rank gets PLX_RANK, PLX_SIZE, PLX_BOOTSTRAP=host:port, PLX_JOB_KEY (32
 * random bytes from getrandom, as 64 hex digits), PLX_JOB_ID (8 random hex
 * digits), PLX_BOOTSTRAP_SERVE=0, PLX_LAUNCHER=plexusrun, and
 * PLX_LOCAL_RANK / PLX_LOCAL_SIZE (its place among the ranks of its node,
 * simulated or not: what a GPU code picks its device with); stdin is
 * /dev/null; it runs in its own process group (so a kill reaches its
 * children) and dies with plexusrun (PR_SET_PDEATHSIG).
 *
 * --bind-to core|none (default: core when the ranks fit on the cores, see
 * tools/plexusrun_bind.h) pins each rank to a core before exec;
 * --report-bindings prints the decision and each rank's CPUs.
 *
 * Everything happens in one poll() loop: signals (signalfd), the bootstrap
 * server (one epoll fd), the ranks' stdout/stderr pipes and our own
 * stdout/stderr (queued, so a slow reader of our output never stalls the
 * loop).  Every wait is bounded: no rank can keep plexusrun alive past the
 * escalation SIGTERM -> (1 s) SIGKILL -> (5 s) give up.
 *
 * Exit status:
 *   0        every rank exited 0
 *   c        the first rank to fail exited with status c (1..255)
 *   128+s    the first rank to fail was killed by signal s, or plexusrun
 *            itself got SIGINT/SIGTERM/SIGHUP s (forwarded to the ranks)
 *   124      --timeout expired
 *   2        bad usage (no -n, a malformed number, no program, program not found)
 *   125      plexusrun itself could not run the job (fork, pipe, socket...)
 * Ranks that exit 0 do not fail the job; one that fails makes plexusrun
 * stop the others (SIGTERM, SIGKILL 1 s later).  A rank that calls
 * plx_abort(comm, C) first writes "ABORT <rank> <C>" to the pipe named by
 * PLX_ABORT_FD: it is reported as "rank R called plx_abort with code C"
 * and the job exits with that rank's status (C for 1..255, else 1).  A rank
 * that cannot exec its program exits 127 (as does a shell that cannot find a
 * command, or a program whose shared libraries are missing: plexusrun says
 * so).  Afterwards /dev/shm/plx-<jobid>-* is removed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bootstrap/bootstrap.h"
#include "bootstrap/boot_internal.h"
#include "core/log.h"
#include "core/parse_num.h"
#include "plexusrun_bind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NP 1024
#define EXIT_USAGE 2
#define EXIT_TIMEOUT 124
#define EXIT_LAUNCHER 125
#define LINE_CAP 8192          /* a longer line is forwarded in pieces */
#define PARTIAL_MS 200         /* an unterminated line waits this long for its end */
#define OUTQ_HIGH (4u << 20)   /* stop reading ranks while this much output is queued */
#define TERM_GRACE_MS 1000     /* SIGTERM -> SIGKILL */
#define KILL_GRACE_MS 5000     /* SIGKILL -> give up on a process that will not die */
#define DRAIN_MS 1000          /* after the last rank exits, wait this long for its pipes */

typedef struct outq {
    int fd;
    int dead;                  /* write failed (EPIPE...): drop further output */
    char *data;
    size_t len, cap;
} outq_t;

typedef struct stream {
    int fd;                    /* read end, -1 once closed */
    outq_t *dest;
    char buf[LINE_CAP];
    size_t len;
    int at_bol;                /* the next byte starts a line (tag it) */
    int64_t partial_since;     /* 0: no unterminated line waiting */
} stream_t;

typedef struct rank {
    pid_t pid;
    int running;               /* not yet reaped */
    int status;                /* wait status once reaped */
    int signalled;             /* we sent it a signal */
    int sent_kill;             /* ... and that signal was already SIGKILL */
    int aborted, abort_code;   /* it called plx_abort (read from the abort pipe) */
    stream_t out, err;
} rank_t;

typedef struct job {
    int np;
    int tag;
    double timeout_s;
    rank_t *ranks;
    outq_t oq[2];              /* our stdout, stderr */
    plx_boot_server_t *srv;
    char job_id[16];
    int64_t start;
    int stopping;              /* 0, or the reason the ranks are being stopped */
    int64_t term_at, kill_at;  /* when SIGTERM / SIGKILL went out (0: not yet) */
    int exit_code;             /* decided by the first failure / timeout / signal */
    int decided;
    int nrunning;
    int abort_rd;              /* read end of the plx_abort pipe (-1: none) */
} job_t;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: plexusrun -n N [options] [--] program [args...]\n"
        "Start N ranks of program on this machine; options end at the program name or --.\n"
        "  -n, -np, --np N          number of ranks, 1..%d (required)\n"
        "  --nodes K                simulate K nodes (1..N; default 1): rank r gets PLX_NODE_ID\n"
        "  --node-map block|cyclic  ranks over simulated nodes (default block: consecutive ranks share one)\n"
        "  --timeout S              kill the job after S seconds, exit 124 (default: none)\n"
        "  --tag-output             prefix every output line with \"[rank] \" (default: off)\n"
        "  --bind HOST              address of the bootstrap server (default 127.0.0.1)\n"
        "  --bind-to core|none|auto pin rank r to core r, or not (default auto: core when the ranks\n"
        "                           fit on the cores, else none; PLX_BIND_TO sets the default)\n"
        "  --report-bindings        print each rank's CPUs before starting it (default: off)\n"
        "  -h, --help               print this help and exit 0\n"
        "Numbers: whole, no sign (\"4x\", \"0\", \"-1\" are refused).  Each rank gets PLX_RANK, PLX_SIZE,\n"
        "PLX_LOCAL_RANK, PLX_LOCAL_SIZE, PLX_BOOTSTRAP, PLX_JOB_KEY, PLX_JOB_ID; stdin is /dev/null.\n"
        "Exit status: 0 all ranks exited 0; c or 128+signal of the first rank that failed;\n"
        "  124 timeout; 2 bad usage; 125 plexusrun failed; 127 a rank could not start its program;\n"
        "  128+s on SIGINT/SIGTERM/SIGHUP.  Manual: man plexusrun.  Bugs: %s\n",
        MAX_NP, PACKAGE_BUGREPORT);
}

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("plexusrun: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    usage(stderr);
    exit(EXIT_USAGE);
}

/* ---- output queues ---- */

static void oq_add(outq_t *q, const char *p, size_t n)
{
    if (q->dead || !n) return;
    if (q->len + n > q->cap) {
        size_t cap = q->cap ? q->cap : 65536;
        while (cap < q->len + n) cap *= 2;
        char *d = realloc(q->data, cap);
        if (!d) return;          /* out of memory: lose this piece rather than die */
        q->data = d;
        q->cap = cap;
    }
    memcpy(q->data + q->len, p, n);
    q->len += n;
}

static void oq_write(outq_t *q);

/* Our own messages go through the stderr queue so they stay in order with
 * the ranks' lines. */
static void say(job_t *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(job_t *j, const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "plexusrun: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    oq_add(&j->oq[1], line, len);
    oq_write(&j->oq[1]);   /* now, so it precedes the server's log lines */
}

/* Write what the fd takes without blocking long: chunks of PIPE_BUF, each
 * after poll() said there is room (a blocking fd we do not own). */
static void oq_write(outq_t *q)
{
    size_t off = 0;
    while (off < q->len && !q->dead && off < (1u << 20)) {
        struct pollfd pf = { q->fd, POLLOUT, 0 };
        if (poll(&pf, 1, 0) <= 0 || !(pf.revents & (POLLOUT | POLLERR | POLLHUP))) break;
        size_t n = q->len - off < PIPE_BUF ? q->len - off : PIPE_BUF;
        ssize_t w = write(q->fd, q->data + off, n);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            q->dead = 1;        /* reader gone: keep running the job, drop output */
            break;
        }
        off += (size_t)w;
    }
    if (q->dead) off = q->len;
    if (off == 0) return;   /* also: data may still be NULL (UBSan: memmove(NULL...)) */
    memmove(q->data, q->data + off, q->len - off);
    q->len -= off;
}

/* ---- rank output, line by line ---- */

static void emit(job_t *j, int rank, stream_t *s, const char *p, size_t n, int line_end)
{
    if (j->tag && s->at_bol) {
        char pre[24];
        int k = snprintf(pre, sizeof pre, "[%d] ", rank);
        oq_add(s->dest, pre, (size_t)k);
    }
    oq_add(s->dest, p, n);
    s->at_bol = line_end;
}

/* Forward complete lines; keep an unterminated tail for later. */
static void stream_lines(job_t *j, int rank, stream_t *s, int64_t now)
{
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] == '\n') {
            emit(j, rank, s, s->buf + start, i + 1 - start, 1);
            start = i + 1;
        }
    }
    if (start == s->len) {
        s->len = 0;
        s->partial_since = 0;
    } else if (start == 0 && s->len == sizeof s->buf) {
        emit(j, rank, s, s->buf, s->len, 0);   /* a very long line: pass a piece on */
        s->len = 0;
        s->partial_since = 0;
    } else {
        if (start) {
            memmove(s->buf, s->buf + start, s->len - start);
            s->len -= start;
            s->partial_since = now;
        } else if (!s->partial_since) {
            s->partial_since = now;
        }
    }
}

static void stream_close(job_t *j, int rank, stream_t *s)
{
    if (s->fd < 0) return;
    if (s->len) emit(j, rank, s, s->buf, s->len, 0);
    s->len = 0;
    s->partial_since = 0;
    if (j->tag && !s->at_bol) oq_add(s->dest, "\n", 1);  /* keep tags at line starts */
    s->at_bol = 1;
    close(s->fd);
    s->fd = -1;
}

static void stream_read(job_t *j, int rank, stream_t *s, int64_t now)
{
    for (int k = 0; k < 16 && s->fd >= 0; k++) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
        if (n > 0) {
            s->len += (size_t)n;
            stream_lines(j, rank, s, now);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        stream_close(j, rank, s);   /* EOF or error */
    }
}

/* ---- process control ---- */

static void fmt_ranks(const job_t *j, int running_only, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (int r = 0; r < j->np && n + 24 < outlen; r++) {
        if (running_only && !j->ranks[r].running) continue;
        int e = r;   /* compress runs of 3+ into a-b */
        while (e + 1 < j->np && (!running_only || j->ranks[e + 1].running)) e++;
        if (e - r >= 2) n += (size_t)snprintf(out + n, outlen - n, "%s%d-%d", n ? "," : "", r, e);
        else {
            n += (size_t)snprintf(out + n, outlen - n, "%s%d", n ? "," : "", r);
            e = r;
        }
        r = e;
    }
    if (n + 24 >= outlen) snprintf(out + outlen - 5, 5, "...");
}

/* Signal every rank's process group (reaped ranks too: their children may
 * still live in the group). */
static void signal_all(job_t *j, int sig)
{
    for (int r = 0; r < j->np; r++) {
        rank_t *k = &j->ranks[r];
        if (k->pid <= 0) continue;
        if (kill(-k->pid, sig) < 0 && k->running) kill(k->pid, sig);
        if (k->running) {
            k->signalled = 1;
            if (sig == SIGKILL) k->sent_kill = 1;
        }
    }
}

static void decide(job_t *j, int code)
{
    if (!j->decided) {
        j->decided = 1;
        j->exit_code = code;
    }
}

static void begin_stop(job_t *j, int64_t now)
{
    if (j->stopping) return;
    j->stopping = 1;
    j->term_at = now;
    plx_boot_server_set_quiet(j->srv, 1);
    signal_all(j, SIGTERM);
}

/* Statuses that mean "could not run", not "failed": say what usually
 * causes them (the rank's own stderr above has the details). */
static void explain_exit(job_t *j, int st)
{
    if (!WIFEXITED(st)) return;
    if (WEXITSTATUS(st) == 127)
        say(j, "status 127 means a program could not be started: a command not found (in a "
            "wrapper script, or not in the ranks' PATH), or a shared library missing (run ldd "
            "on the program; set LD_LIBRARY_PATH, e.g. to the lib/ of the Plexus install)");
    else if (WEXITSTATUS(st) == 126)
        say(j, "status 126 means a program was found but could not be executed (permissions, "
            "or not a binary for this machine)");
}

/* Read the "ABORT <rank> <code>" lines plx_abort wrote before exiting
 * (each one write under PIPE_BUF, so lines never interleave). */
static void read_aborts(job_t *j)
{
    static char buf[4096];
    static size_t have;
    if (j->abort_rd < 0) return;
    for (;;) {
        ssize_t n = read(j->abort_rd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
        char *nl;
        while ((nl = memchr(buf, '\n', have))) {
            *nl = '\0';
            int r, code;
            if (sscanf(buf, "ABORT %d %d", &r, &code) == 2 && r >= 0 && r < j->np) {
                j->ranks[r].aborted = 1;
                j->ranks[r].abort_code = code;
            }
            size_t used = (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, have - used);
            have -= used;
        }
        if (have == sizeof buf - 1) have = 0;   /* garbage without newline: drop it */
    }
}

static void on_exit_status(job_t *j, int r, int st, int64_t now)
{
    rank_t *k = &j->ranks[r];
    read_aborts(j);            /* written before the rank exited: already in the pipe */
    k->running = 0;
    k->status = st;
    j->nrunning--;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
    /* Ours only if it is the signal we actually sent: a rank that killed
     * itself with SIGKILL just before we sent everyone SIGTERM is the
     * failure to report, not our doing. */
    int by_us = k->signalled && WIFSIGNALED(st) &&
                (WTERMSIG(st) == SIGTERM || (WTERMSIG(st) == SIGKILL && k->sent_kill));
    if (k->aborted && WIFEXITED(st)) {
        say(j, "rank %d (pid %d) called plx_abort with code %d (exit status %d)", r, (int)k->pid,
            k->abort_code, WEXITSTATUS(st));
    } else if (!by_us) {
        const char *after = k->signalled ? " (after plexusrun asked it to stop)" : "";
        if (WIFSIGNALED(st))
            say(j, "rank %d (pid %d) killed by signal %d (%s)%s%s", r, (int)k->pid, WTERMSIG(st),
                strsignal(WTERMSIG(st)), WCOREDUMP(st) ? ", core dumped" : "", after);
        else
            say(j, "rank %d (pid %d) exited with status %d%s", r, (int)k->pid, WEXITSTATUS(st), after);
        explain_exit(j, st);
    }
    if (!j->stopping) {
        decide(j, WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st));
        if (j->nrunning > 0) {
            char list[512];
            fmt_ranks(j, 1, list, sizeof list);
            say(j, "stopping the other ranks still running: %s", list);
        }
        begin_stop(j, now);
    }
}

static void reap(job_t *j, int64_t now)
{
    /* Collect every exit that is ready, then report ranks killed by a
     * signal first: when a rank dies and another exits because of it, both
     * are usually ready together, and the death is the cause to name. */
    enum { BATCH = 64 };
    for (;;) {
        int rs[BATCH], sts[BATCH], n = 0;
        while (n < BATCH) {
            int st;
            pid_t pid = waitpid(-1, &st, WNOHANG);
            if (pid <= 0) break;
            for (int r = 0; r < j->np; r++)
                if (j->ranks[r].pid == pid && j->ranks[r].running) {
                    rs[n] = r;
                    sts[n] = st;
                    n++;
                    break;
                }
        }
        if (n == 0) return;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < n; i++)
                if ((pass == 0) == (WIFSIGNALED(sts[i]) != 0)) on_exit_status(j, rs[i], sts[i], now);
        if (n < BATCH) return;
    }
}

/* PATH lookup done before forking, so "not found" is a usage error (2)
 * reported once, not N failed ranks. */
static char *find_program(const char *prog)
{
    struct stat sb;
    if (strchr(prog, '/')) {
        if (stat(prog, &sb) < 0) die_usage("program '%s' not found", prog);
        if (!S_ISREG(sb.st_mode) || access(prog, X_OK) < 0)
            die_usage("program '%s' is not an executable file", prog);
        return strdup(prog);
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t pl = strlen(prog);
    for (const char *p = path; ; ) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        char *cand = malloc(dl + pl + 3);
        if (!cand) break;
        if (dl) { memcpy(cand, p, dl); cand[dl] = '/'; memcpy(cand + dl + 1, prog, pl + 1); }
        else { cand[0] = '.'; cand[1] = '/'; memcpy(cand + 2, prog, pl + 1); }
        if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) return cand;
        free(cand);
        if (!e) break;
        p = e + 1;
    }
    die_usage("program '%s' not found in PATH", prog);
}

static int sim_nodes = 0;   /* --nodes K: we set PLX_NODE_ID */

static int is_ours(const char *var)
{
    if (sim_nodes && strncmp(var, "PLX_NODE_ID=", 12) == 0) return 1;
    static const char *const ours[] = { "PLX_RANK=", "PLX_SIZE=", "PLX_BOOTSTRAP=",
        "PLX_JOB_KEY=", "PLX_JOB_ID=", "PLX_BOOTSTRAP_SERVE=", "PLX_LAUNCHER=",
        "PLX_LOCAL_RANK=", "PLX_LOCAL_SIZE=", "PLX_ABORT_FD=" };
    for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
        if (strncmp(var, ours[i], strlen(ours[i])) == 0) return 1;
    return 0;
}

/* Rank r's node (simulated with --nodes K, else the one machine) and its
 * place there: block puts consecutive ranks together (the first np % K
 * nodes one rank more), cyclic deals them out (r on node r % K). */
static void rank_place(int r, int np, int k, int cyclic, int *node, int *lrank, int *lsize)
{
    if (k <= 1) {
        *node = 0; *lrank = r; *lsize = np;
        return;
    }
    int base = np / k, extra = np % k;
    if (cyclic) {
        *node = r % k;
        *lrank = r / k;
    } else {
        int big = extra * (base + 1);
        *node = r < big ? r / (base + 1) : extra + (r - big) / base;
        *lrank = r - (*node < extra ? *node * (base + 1) : big + (*node - extra) * base);
    }
    *lsize = base + (*node < extra);
}

/* Remove the shm segments of this job left behind by crashed ranks. */
static int clean_shm(const char *job_id)
{
    char pre[40];
    int n = snprintf(pre, sizeof pre, "plx-%s-", job_id), removed = 0;
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, pre, (size_t)n) == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    closedir(d);
    return removed;
}

/* A count option (-n, --nodes): the shared number parser (lib/core/parse_num.h,
 * as for every PLX_* size), then 1..max.  "4x", "0", "-1", "" exit 2. */
static size_t parse_count(const char *opt, const char *v, size_t max)
{
    size_t n;
    if (plx_parse_size(v, &n) != 0)
        die_usage("%s needs a whole number, not '%s'", opt, v);
    if (n < 1 || n > max) die_usage("%s %s: must be 1..%zu", opt, v, max);
    return n;
}

int main(int argc, char **argv)
{
    int np = -1, tag = 0, cyclic = 0, bind_mode = BIND_AUTO, report_bindings = 0;
    double timeout_s = 0;
    const char *bind_host = "127.0.0.1";
    const char *env_bind = getenv("PLX_BIND_TO");   /* the default of --bind-to */
    if (env_bind && bind_parse(env_bind, &bind_mode) < 0)
        die_usage("PLX_BIND_TO='%s' is not one of auto, core, none", env_bind);
    /* "+": options end at the first non-option (the program), so its own
     * arguments pass through untouched; "--" ends them too. */
    enum { O_NODES = 256, O_NODE_MAP, O_TIMEOUT, O_TAG, O_BIND, O_BIND_TO, O_REPORT };
    static const struct option longopts[] = {
        { "np", required_argument, NULL, 'n' },
        { "nodes", required_argument, NULL, O_NODES },
        { "node-map", required_argument, NULL, O_NODE_MAP },
        { "timeout", required_argument, NULL, O_TIMEOUT },
        { "tag-output", no_argument, NULL, O_TAG },
        { "bind", required_argument, NULL, O_BIND },
        { "bind-to", required_argument, NULL, O_BIND_TO },
        { "report-bindings", no_argument, NULL, O_REPORT },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    opterr = 0;   /* our own messages, then the usage, exit 2 */
    int c;
    while ((c = getopt_long(argc, argv, "+:n:h", longopts, NULL)) != -1) {
        const char *v = optarg;
        if (c == 'n' && v == argv[optind - 1] + 2 && strcmp(argv[optind - 1], "-np") == 0) {
            /* mpirun's spelling "-np N": getopt read it as -n with value "p" */
            if (optind >= argc) die_usage("option '-np' needs a value");
            v = argv[optind++];
        }
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'n':
            np = (int)parse_count("-n", v, MAX_NP);
            break;
        case O_NODES:
            sim_nodes = (int)parse_count("--nodes", v, MAX_NP);
            break;
        case O_NODE_MAP:
            if (strcmp(v, "block") == 0) cyclic = 0;
            else if (strcmp(v, "cyclic") == 0) cyclic = 1;
            else die_usage("--node-map is block or cyclic, not '%s'", v);
            break;
        case O_TIMEOUT:
            if (plx_parse_seconds(v, &timeout_s) != 0)
                die_usage("--timeout needs a positive number of seconds (at most %.0f), not '%s'",
                          PLX_TIMEOUT_MAX_S, v);
            break;
        case O_TAG:
            tag = 1;
            break;
        case O_BIND:
            if (!*v) die_usage("--bind needs a host");
            bind_host = v;
            break;
        case O_BIND_TO:
            if (bind_parse(v, &bind_mode) < 0) die_usage("--bind-to is core, none or auto, not '%s'", v);
            break;
        case O_REPORT:
            report_bindings = 1;
            break;
        case ':':
            die_usage("option '%s' needs a value", argv[optind - 1]);
        default:   /* '?' */
            if (optopt) die_usage("unknown option '-%c'", optopt);
            die_usage("unknown or ambiguous option '%s'", argv[optind - 1]);
        }
    }
    int i = optind;
    if (np < 0) die_usage("missing -n N (the number of ranks)");
    if (sim_nodes > np) die_usage("--nodes %d: more nodes than ranks (%d)", sim_nodes, np);
    if (i >= argc) die_usage("missing the program to run");
    char *path = find_program(argv[i]);
    char **pargv = argv + i;

    plx_log_init(-1);
    /* a pipe per stream plus a socket per rank: make sure the fds exist */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t need = (rlim_t)np * 4 + 128;
        if (rl.rlim_cur < need && rl.rlim_cur != RLIM_INFINITY) {
            rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need)
                die_usage("-n %d needs about %lu open files; the limit is %lu (ulimit -n)", np,
                          (unsigned long)need, (unsigned long)rl.rlim_cur);
        }
    }

    static job_t job;   /* the program's one job (zeroed) */
    job_t *j = &job;
    j->np = np;
    j->tag = tag;
    j->timeout_s = timeout_s;
    j->oq[0].fd = 1;
    j->oq[1].fd = 2;
    j->ranks = calloc((size_t)np, sizeof *j->ranks);
    if (!j->ranks) { fprintf(stderr, "plexusrun: out of memory\n"); return EXIT_LAUNCHER; }

    /* the job's identity */
    uint8_t key[PLX_BOOT_KEY_BYTES], idb[4];
    char keyhex[2 * PLX_BOOT_KEY_BYTES + 1];
    if (plx_boot_random(key, sizeof key) < 0 || plx_boot_random(idb, sizeof idb) < 0) {
        fprintf(stderr, "plexusrun: getrandom: %s\n", strerror(errno));
        return EXIT_LAUNCHER;
    }
    plx_hex_encode(key, sizeof key, keyhex);
    plx_hex_encode(idb, sizeof idb, j->job_id);

    int port = 0;
    if (plx_boot_server_create(bind_host, 0, np, key, &j->srv, &port) != PLX_SUCCESS) {
        fprintf(stderr, "plexusrun: cannot start the bootstrap server on %s\n", bind_host);
        return EXIT_LAUNCHER;
    }
    memset(key, 0, sizeof key);
    /* every rank gets the key from us: a wrong key is a stranger, never a
     * rank of this job, so it must not fail the job (a rank that fails
     * stops the job anyway) */
    plx_boot_server_set_bad_key_grace(j->srv, -1);
    /* ranks connect to a concrete address, not a wildcard */
    const char *chost = bind_host;
    if (!strcmp(bind_host, "0.0.0.0") || !strcmp(bind_host, "*")) chost = "127.0.0.1";
    else if (!strcmp(bind_host, "::")) chost = "::1";
    char bootenv[320];
    if (strchr(chost, ':')) snprintf(bootenv, sizeof bootenv, "PLX_BOOTSTRAP=[%s]:%d", chost, port);
    else snprintf(bootenv, sizeof bootenv, "PLX_BOOTSTRAP=%s:%d", chost, port);

    /* signals arrive through a signalfd in the loop; children get the old mask */
    sigset_t mask, oldmask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) { fprintf(stderr, "plexusrun: signalfd: %s\n", strerror(errno)); return EXIT_LAUNCHER; }
    signal(SIGPIPE, SIG_IGN);   /* a closed stdout must not kill the launcher */

    /* the ranks' environment: ours, minus any PLX_* we set */
    extern char **environ;
    size_t nenv = 0;
    while (environ[nenv]) nenv++;
    char **envp = calloc(nenv + 13, sizeof *envp);
    char e_rank[32], e_size[32], e_key[96], e_id[96], e_node[48], e_lrank[48], e_lsize[48];
    if (!envp) { fprintf(stderr, "plexusrun: out of memory\n"); return EXIT_LAUNCHER; }
    size_t ne = 0;
    for (size_t k = 0; k < nenv; k++) if (!is_ours(environ[k])) envp[ne++] = environ[k];
    snprintf(e_size, sizeof e_size, "PLX_SIZE=%d", np);
    snprintf(e_key, sizeof e_key, "PLX_JOB_KEY=%s", keyhex);
    snprintf(e_id, sizeof e_id, "PLX_JOB_ID=%s", j->job_id);
    envp[ne++] = e_rank;
    envp[ne++] = e_size;
    envp[ne++] = bootenv;
    envp[ne++] = e_key;
    envp[ne++] = e_id;
    envp[ne++] = "PLX_BOOTSTRAP_SERVE=0";
    envp[ne++] = "PLX_LAUNCHER=plexusrun";
    envp[ne++] = e_lrank;
    envp[ne++] = e_lsize;
    if (sim_nodes) envp[ne++] = e_node;
    /* plx_abort tells us through this pipe (the ranks inherit its write end) */
    int abort_pipe[2] = { -1, -1 };
    char e_abort[40];
    j->abort_rd = -1;
    if (pipe2(abort_pipe, O_CLOEXEC) == 0) {
        j->abort_rd = abort_pipe[0];
        fcntl(abort_pipe[0], F_SETFL, O_NONBLOCK);
        snprintf(e_abort, sizeof e_abort, "PLX_ABORT_FD=%d", abort_pipe[1]);
        envp[ne++] = e_abort;
    }
    envp[ne] = NULL;

    static bind_plan_t plan;
    bind_plan_make(&plan, bind_mode, np);
    if (report_bindings) {
        say(j, "%s", plan.why);
        for (int r = 0; r < np; r++) {
            char line[400];
            bind_describe(&plan, r, line, sizeof line);
            say(j, "%s", line);
        }
    }

    pid_t me = getpid();
    j->start = plx_boot_now_ms();
    for (int r = 0; r < np; r++) {
        rank_t *k = &j->ranks[r];
        int po[2], pe[2];
        k->out.fd = k->err.fd = -1;
        if (pipe2(po, O_CLOEXEC) < 0) goto launch_failed;
        if (pipe2(pe, O_CLOEXEC) < 0) { close(po[0]); close(po[1]); goto launch_failed; }
        snprintf(e_rank, sizeof e_rank, "PLX_RANK=%d", r);
        int node, lrank, lsize;
        rank_place(r, np, sim_nodes, cyclic, &node, &lrank, &lsize);
        if (sim_nodes) snprintf(e_node, sizeof e_node, "PLX_NODE_ID=node%d", node);
        snprintf(e_lrank, sizeof e_lrank, "PLX_LOCAL_RANK=%d", lrank);
        snprintf(e_lsize, sizeof e_lsize, "PLX_LOCAL_SIZE=%d", lsize);
        const cpu_set_t *cpus = bind_rank_set(&plan, r);
        pid_t pid = fork();
        if (pid < 0) {
            close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
            goto launch_failed;
        }
        if (pid == 0) {
            /* child: own process group, dies with plexusrun, default signals */
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != me) _exit(127);
            signal(SIGPIPE, SIG_DFL);
            sigprocmask(SIG_SETMASK, &oldmask, NULL);
            int nul = open("/dev/null", O_RDONLY);
            if (nul >= 0) { dup2(nul, 0); if (nul > 2) close(nul); }
            dup2(po[1], 1);
            dup2(pe[1], 2);
            if (cpus && sched_setaffinity(0, sizeof *cpus, cpus) < 0) {
                char msg[160];
                int n = snprintf(msg, sizeof msg, "plexusrun: rank %d: cannot bind to its core "
                                 "(%s); running unbound\n", r, strerror(errno));
                ssize_t w = write(2, msg, (size_t)n);
                (void)w;
            }
            if (abort_pipe[1] >= 0) fcntl(abort_pipe[1], F_SETFD, 0);   /* keep it across exec */
            execve(path, pargv, envp);
            char msg[512];
            int n = snprintf(msg, sizeof msg, "plexusrun: rank %d: cannot run %s: %s\n", r, path,
                             strerror(errno));
            ssize_t w = write(2, msg, (size_t)n);
            (void)w;
            _exit(127);
        }
        setpgid(pid, pid);   /* also here: no window where a kill misses the group */
        close(po[1]);
        close(pe[1]);
        k->pid = pid;
        k->running = 1;
        j->nrunning++;
        k->out = (stream_t){ .fd = po[0], .dest = &j->oq[0], .at_bol = 1 };
        k->err = (stream_t){ .fd = pe[0], .dest = &j->oq[1], .at_bol = 1 };
        fcntl(po[0], F_SETFL, O_NONBLOCK);
        fcntl(pe[0], F_SETFL, O_NONBLOCK);
        continue;
    launch_failed:
        say(j, "cannot start rank %d: %s", r, strerror(errno));
        decide(j, EXIT_LAUNCHER);
        begin_stop(j, plx_boot_now_ms());
        break;
    }
    memset(keyhex, 0, sizeof keyhex);
    memset(e_key, 0, sizeof e_key);

    int nfds_max = 4 + 2 * np;
    struct pollfd *pfd = calloc((size_t)nfds_max, sizeof *pfd);
    stream_t **pst = calloc((size_t)nfds_max, sizeof *pst);
    int *prank = calloc((size_t)nfds_max, sizeof *prank);
    if (!pfd || !pst || !prank) {
        say(j, "out of memory");
        decide(j, EXIT_LAUNCHER);
        begin_stop(j, plx_boot_now_ms());
    }
    int64_t all_done_at = 0, sigkill_gave_up = 0;
    int got_signal = 0;

    for (;;) {
        int64_t now = plx_boot_now_ms();
        /* --- leave when every rank is reaped and its pipes drained --- */
        int open_streams = 0;
        for (int r = 0; r < np; r++)
            open_streams += (j->ranks[r].out.fd >= 0) + (j->ranks[r].err.fd >= 0);
        if (j->nrunning == 0) {
            if (!all_done_at) all_done_at = now;
            if (!open_streams || now - all_done_at >= DRAIN_MS) break;
        }
        if (!pfd) break;

        /* --- deadlines --- */
        int64_t next = -1;
#define NEXT(t) do { int64_t t_ = (t); if (next < 0 || t_ < next) next = t_; } while (0)
        if (j->timeout_s > 0 && !j->stopping && j->nrunning)
            NEXT(j->start + (int64_t)(j->timeout_s * 1000.0));
        if (j->stopping && !j->kill_at) NEXT(j->term_at + TERM_GRACE_MS);
        if (j->kill_at && j->nrunning) NEXT(j->kill_at + KILL_GRACE_MS);
        if (all_done_at) NEXT(all_done_at + DRAIN_MS);
        int st_ms = plx_boot_server_timeout_ms(j->srv);
        if (st_ms >= 0) NEXT(now + st_ms);
        for (int r = 0; r < np; r++) {
            stream_t *ss[2] = { &j->ranks[r].out, &j->ranks[r].err };
            for (int q = 0; q < 2; q++)
                if (ss[q]->fd >= 0 && ss[q]->partial_since) NEXT(ss[q]->partial_since + PARTIAL_MS);
        }
#undef NEXT

        /* --- poll set --- */
        int n = 0;
        pfd[n++] = (struct pollfd){ sfd, POLLIN, 0 };
        pfd[n++] = (struct pollfd){ plx_boot_server_fd(j->srv), POLLIN, 0 };
        int oq_idx[2] = { -1, -1 };
        for (int q = 0; q < 2; q++)
            if (j->oq[q].len && !j->oq[q].dead) {
                oq_idx[q] = n;
                pfd[n++] = (struct pollfd){ j->oq[q].fd, POLLOUT, 0 };
            }
        int first_stream = n;
        for (int r = 0; r < np; r++) {
            stream_t *ss[2] = { &j->ranks[r].out, &j->ranks[r].err };
            for (int q = 0; q < 2; q++) {
                if (ss[q]->fd < 0 || ss[q]->dest->len > OUTQ_HIGH) continue;  /* backpressure */
                pst[n] = ss[q];
                prank[n] = r;
                pfd[n++] = (struct pollfd){ ss[q]->fd, POLLIN, 0 };
            }
        }
        int to = next < 0 ? -1 : (next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now));
        int pr = poll(pfd, (nfds_t)n, to);
        if (pr < 0 && errno != EINTR) {
            say(j, "poll: %s", strerror(errno));
            decide(j, EXIT_LAUNCHER);
            begin_stop(j, plx_boot_now_ms());
        }
        now = plx_boot_now_ms();

        /* --- signals --- */
        if (pr > 0 && pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                int sig = (int)si.ssi_signo;
                if (sig == SIGCHLD) continue;   /* reaped below in any case */
                if (!got_signal) {
                    got_signal = sig;
                    say(j, "got SIG%s; forwarding it to the ranks", sigabbrev_np(sig));
                    decide(j, 128 + sig);
                    signal_all(j, sig);
                    if (!j->stopping) {
                        j->stopping = 1;
                        j->term_at = now;
                        plx_boot_server_set_quiet(j->srv, 1);
                    }
                } else {
                    say(j, "got SIG%s again; killing the ranks", sigabbrev_np(sig));
                    signal_all(j, SIGKILL);
                    if (!j->kill_at) j->kill_at = now;
                }
            }
        }
        reap(j, now);

        /* --- bootstrap server --- */
        if (plx_boot_server_step(j->srv, 0) < 0 && !j->stopping) {
            say(j, "the bootstrap server failed; stopping the job");
            decide(j, EXIT_LAUNCHER);
            begin_stop(j, now);
        }

        /* --- rank output --- */
        if (pr > 0)
            for (int k = first_stream; k < n; k++)
                if (pfd[k].revents) stream_read(j, prank[k], pst[k], now);
        for (int r = 0; r < np; r++) {
            stream_t *ss[2] = { &j->ranks[r].out, &j->ranks[r].err };
            for (int q = 0; q < 2; q++)
                if (ss[q]->fd >= 0 && ss[q]->partial_since &&
                    now - ss[q]->partial_since >= PARTIAL_MS) {
                    /* a prompt or progress dots: show it rather than hold it */
                    emit(j, r, ss[q], ss[q]->buf, ss[q]->len, 0);
                    ss[q]->len = 0;
                    ss[q]->partial_since = 0;
                }
        }

        /* --- timeout and escalation --- */
        if (j->timeout_s > 0 && !j->stopping && j->nrunning &&
            now - j->start >= (int64_t)(j->timeout_s * 1000.0)) {
            char list[512];
            fmt_ranks(j, 1, list, sizeof list);
            say(j, "job timed out after %g s; killing ranks %s still running", j->timeout_s, list);
            decide(j, EXIT_TIMEOUT);
            begin_stop(j, now);
        }
        if (j->stopping && !j->kill_at && now - j->term_at >= TERM_GRACE_MS) {
            j->kill_at = now;
            if (j->nrunning) signal_all(j, SIGKILL);
        }
        if (j->kill_at && j->nrunning && now - j->kill_at >= KILL_GRACE_MS && !sigkill_gave_up) {
            char list[512];
            fmt_ranks(j, 1, list, sizeof list);
            say(j, "ranks %s did not die %d s after SIGKILL; giving up on them", list,
                KILL_GRACE_MS / 1000);
            sigkill_gave_up = 1;
            decide(j, EXIT_LAUNCHER);
            for (int r = 0; r < np; r++) j->ranks[r].running = 0;
            j->nrunning = 0;
        }

        for (int q = 0; q < 2; q++)
            if (oq_idx[q] >= 0 && pfd[oq_idx[q]].revents) oq_write(&j->oq[q]);
    }

    /* close what is left and flush; never wait forever on a stuck reader */
    for (int r = 0; r < np; r++) {
        stream_close(j, r, &j->ranks[r].out);
        stream_close(j, r, &j->ranks[r].err);
    }
    int removed = clean_shm(j->job_id);
    if (removed) {
        if (!j->decided) say(j, "removed %d shared-memory segment(s) /dev/shm/plx-%s-* left "
                             "behind by a successful job", removed, j->job_id);
        else plx_info("plexusrun: removed %d leftover /dev/shm/plx-%s-* segment(s)", removed, j->job_id);
    }
    int64_t last = plx_boot_now_ms();
    while ((j->oq[0].len && !j->oq[0].dead) || (j->oq[1].len && !j->oq[1].dead)) {
        struct pollfd of[2];
        int n = 0;
        for (int q = 0; q < 2; q++)
            if (j->oq[q].len && !j->oq[q].dead) of[n++] = (struct pollfd){ j->oq[q].fd, POLLOUT, 0 };
        if (poll(of, (nfds_t)n, 1000) > 0) {
            size_t before = j->oq[0].len + j->oq[1].len;
            for (int q = 0; q < 2; q++) oq_write(&j->oq[q]);
            if (j->oq[0].len + j->oq[1].len < before) last = plx_boot_now_ms();
        }
        if (plx_boot_now_ms() - last > 10000) break;   /* nobody reads our output */
    }
    plx_boot_server_destroy(j->srv);
    bind_plan_free(&plan);
    free(pfd);
    free(pst);
    free(prank);
    free(envp);
    free(path);
    free(j->ranks);
    free(j->oq[0].data);
    free(j->oq[1].data);
    close(sfd);
    return j->decided ? j->exit_code : 0;
}
