/*
 * lib/core/log.c — PLX_LOG filtering, the line format, and PLX_LOG_FILE (see
 * log.h).
 */
#include "core/log.h"
#include "core/assert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

int plx_log_level = PLX_LOG_WARN;
static int log_rank = -1;   /* documented process-wide label, see log.h */
static int env_read;        /* PLX_LOG already looked at */
static int log_fd = 2;      /* stderr, or the PLX_LOG_FILE of this process */
static char log_host[64];   /* "" unless the job spans several nodes */

static const char *const level_names[] = { "none", "error", "warn", "info", "debug", "trace" };

int plx_log_parse(const char *s)
{
    if (!s || !*s) return -1;
    for (int i = 0; i <= PLX_LOG_TRACE; i++)
        if (strcasecmp(s, level_names[i]) == 0) return i;
    if (s[0] >= '0' && s[0] <= '5' && s[1] == '\0') return s[0] - '0';
    return -1;
}

void plx_log_lazy_init(void)
{
    if (env_read) return;
    env_read = 1;
    int lv = plx_log_parse(getenv("PLX_LOG"));
    if (lv >= 0) plx_log_level = lv;
}

int plx_log_init(int rank)
{
    env_read = 1;
    log_rank = rank;
    const char *s = getenv("PLX_LOG");
    if (!s) return 0;
    int lv = plx_log_parse(s);
    if (lv < 0) {
        plx_log_level = PLX_LOG_WARN;
        plx_warn("PLX_LOG='%s' is not one of none|error|warn|info|debug|trace; using warn", s);
        return -1;
    }
    plx_log_level = lv;
    return 0;
}

void plx_log_set_rank(int rank)
{
    log_rank = rank;
    /* PLX_LOG_FILE takes the rank's lines from here on (the bootstrap's
     * included); a failure is reported by plx_init's own plx_log_file_open */
    char ignored[8];
    if (rank >= 0) (void)plx_log_file_open(ignored, sizeof ignored);
}

void plx_log_show_host(int on)
{
    log_host[0] = '\0';
    if (!on) return;
    if (gethostname(log_host, sizeof log_host) != 0) snprintf(log_host, sizeof log_host, "?");
    log_host[sizeof log_host - 1] = '\0';
    char *dot = strchr(log_host, '.');      /* the short name, as in a host list */
    if (dot && dot != log_host) *dot = '\0';
}

int plx_log_file_expand(const char *pattern, int rank, char *out, size_t outlen)
{
    if (!pattern || !*pattern || outlen == 0) return -1;
    size_t j = 0;
    for (const char *c = pattern; *c; c++) {
        char piece[300];
        if (*c != '%') {
            piece[0] = *c;
            piece[1] = '\0';
        } else {
            switch (*++c) {
            case '%': snprintf(piece, sizeof piece, "%%"); break;
            case 'p': snprintf(piece, sizeof piece, "%d", (int)getpid()); break;
            case 'r':
                if (rank < 0) return -1;
                snprintf(piece, sizeof piece, "%d", rank);
                break;
            case 'h': {
                char host[256];
                if (gethostname(host, sizeof host) != 0) return -1;
                host[sizeof host - 1] = '\0';
                snprintf(piece, sizeof piece, "%s", host);
                break;
            }
            default: return -1;     /* includes a lone % at the end */
            }
        }
        size_t len = strlen(piece);
        if (j + len >= outlen) return -1;
        memcpy(out + j, piece, len);
        j += len;
    }
    out[j] = '\0';
    return 0;
}

int plx_log_file_open(char *err, size_t errlen)
{
    const char *pattern = getenv("PLX_LOG_FILE");
    if (!pattern || !*pattern || log_fd != 2) return 0;   /* stderr (unset or empty), or already open */
    char path[4096];
    if (plx_log_file_expand(pattern, log_rank, path, sizeof path) != 0) {
        snprintf(err, errlen, "PLX_LOG_FILE='%s' is not a file name with only %%h (host), %%p (pid), "
                 "%%r (rank) and %%%% as %% sequences", pattern);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "PLX_LOG_FILE='%s': cannot open %s: %s", pattern, path, strerror(errno));
        return -1;
    }
    log_fd = fd;
    return 0;
}

void plx_log_msg(int level, const char *fmt, ...)
{
    plx_assert(level >= PLX_LOG_NONE && level <= PLX_LOG_TRACE);
    char line[1024];
    int n;
    if (log_rank >= 0 && log_host[0])
        n = snprintf(line, sizeof line, "plexus[rank %d@%s] %s: ", log_rank, log_host, level_names[level]);
    else if (log_rank >= 0)
        n = snprintf(line, sizeof line, "plexus[rank %d] %s: ", log_rank, level_names[level]);
    else
        n = snprintf(line, sizeof line, "plexus[pid %d] %s: ", (int)getpid(), level_names[level]);
    if (n < 0 || n >= (int)sizeof line) n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    /* one write() so lines of different ranks do not interleave */
    ssize_t w = write(log_fd, line, len);
    (void)w;
}

/* ---- rate-limited lines ---------------------------------------------------- */
static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void plx_log_limited(plx_log_limit_t *lim, int period_ms, int level, const char *fmt, ...)
{
    if (level > plx_log_level) return;
    long long now = now_ms();
    if (lim->last_ms && now - lim->last_ms < period_ms) {
        lim->suppressed++;
        return;
    }
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (lim->suppressed)
        plx_log_msg(level, "%s (%u similar line%s suppressed in the last %.1f s)", text, lim->suppressed,
                    lim->suppressed == 1 ? "" : "s", (double)(now - lim->last_ms) / 1000);
    else
        plx_log_msg(level, "%s", text);
    lim->last_ms = now;
    lim->suppressed = 0;
}

void plx_log_limit_flush(plx_log_limit_t *lim, int level, const char *what)
{
    if (lim->suppressed && level <= plx_log_level)
        plx_log_msg(level, "%s: %u similar line%s suppressed at the end", what, lim->suppressed,
                    lim->suppressed == 1 ? "" : "s");
    lim->suppressed = 0;
}
