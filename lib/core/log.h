/*
 * lib/core/log.h — one-line diagnostics on stderr, filtered by PLX_LOG.
 *
 * PLX_LOG = none|error|warn|info|debug|trace (default warn).  The level is
 * read once per process by plx_log_init() (called from plx_init, plexusrun and
 * plexus_info); until then it is "warn".  Lines look like
 *   plexus[rank 3] warn: shm: process_vm_readv refused (EPERM); using staging
 * and, when the job spans several nodes, plexus[rank 3@node07] warn: ...
 * PLX_LOG_FILE=pattern sends a rank's lines to a file instead of stderr
 * (opened for appending by plx_init once the rank is known; %h host,
 * %p pid, %r rank, %% a percent sign).
 * The level and the rank label are the only process-wide mutable state
 * outside the context object (documented in README: they are per process by
 * nature and written once before any thread is started).
 */
#ifndef PLX_LOG_H
#define PLX_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum { PLX_LOG_NONE = 0, PLX_LOG_ERROR, PLX_LOG_WARN, PLX_LOG_INFO, PLX_LOG_DEBUG, PLX_LOG_TRACE };

extern int plx_log_level;                /* current threshold */

/* Parse a level name or digit; -1 if bad. */
int  plx_log_parse(const char *s);
/* Read PLX_LOG (bad value: keep warn, return -1) and set the rank label (-1: none). */
int  plx_log_init(int rank);
/* Set the rank label; with PLX_LOG_FILE, also opens this rank's file. */
void plx_log_set_rank(int rank);
/* Put the short hostname in each line's prefix (on: the job spans nodes). */
void plx_log_show_host(int on);
/* Expand a PLX_LOG_FILE pattern for this process (rank < 0: %r is an
 * error).  -1 on an unknown % sequence or a result that does not fit. */
int  plx_log_file_expand(const char *pattern, int rank, char *out, size_t outlen);
/* Open PLX_LOG_FILE (if set) for the rank set by plx_log_set_rank; lines go
 * there from now on.  -1 with a message naming the variable in err. */
int  plx_log_file_open(char *err, size_t errlen);
/* Read PLX_LOG once if nobody has yet (calls rejected before plx_init). */
void plx_log_lazy_init(void);
void plx_log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rate limit for lines that strangers can cause (a connection flood must
 * not become a log flood): at most one line per period.  The caller keeps
 * one plx_log_limit_t per kind of line, zeroed at start. */
typedef struct plx_log_limit {
    long long last_ms;      /* when the last line was written (0: never) */
    unsigned suppressed;    /* lines skipped since then */
} plx_log_limit_t;
/* Write one line at level through lim: written if the last one written
 * through lim is at least period_ms old (with "(N similar lines
 * suppressed)" appended when some were skipped), else only counted. */
void plx_log_limited(plx_log_limit_t *lim, int period_ms, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* At the end (a server stopping): one line with the count still pending. */
void plx_log_limit_flush(plx_log_limit_t *lim, int level, const char *what);

#define plx_log(level, ...) \
    do { if ((level) <= plx_log_level) plx_log_msg((level), __VA_ARGS__); } while (0)
#define plx_error(...) plx_log(PLX_LOG_ERROR, __VA_ARGS__)
#define plx_warn(...)  plx_log(PLX_LOG_WARN,  __VA_ARGS__)
#define plx_info(...)  plx_log(PLX_LOG_INFO,  __VA_ARGS__)
#define plx_debug(...) plx_log(PLX_LOG_DEBUG, __VA_ARGS__)
#define plx_trace(...) plx_log(PLX_LOG_TRACE, __VA_ARGS__)

#endif /* PLX_LOG_H */
