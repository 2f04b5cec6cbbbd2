/*
 * lib/log.c — PLX_LOG filtering and the line format (see log.h).
 */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

int plx_log_level = PLX_LOG_WARN;
static int log_rank = -1;   /* documented process-wide label, see log.h */
static int env_read;        /* PLX_LOG already looked at */

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

void plx_log_set_rank(int rank) { log_rank = rank; }

void plx_log_msg(int level, const char *fmt, ...)
{
    char line[1024];
    int n;
    if (log_rank >= 0)
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
    ssize_t w = write(2, line, len);
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
