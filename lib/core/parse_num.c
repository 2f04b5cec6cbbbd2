/*
 * lib/core/parse_num.c — the one parser of numbers written by people: sizes
 * ("64K", "1M", "inf") and seconds ("0.5").  The PLX_* variables
 * (lib/core/config.c) and the tools' options (plexusrun, plx_perf) all read
 * their numbers here, so "4x", "-1" or "" is refused the same way
 * everywhere.  Linked by libplexus and by plexusrun (through libplxlog),
 * so it calls nothing else in lib/.
 */
#include "core/parse_num.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

int plx_parse_size(const char *s, size_t *out)
{
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    if (strcasecmp(s, "inf") == 0) { *out = SIZE_MAX; return 0; }
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end != '\0') return -1;
    if (shift && v > (ULLONG_MAX >> shift)) return -1;
    v <<= shift;
    if (v > SIZE_MAX) return -1;
    *out = (size_t)v;
    return 0;
}

int plx_parse_seconds(const char *s, double *out)
{
    if (!s || !*s) return -1;   /* also the bootstrap's PLX_TIMEOUT (lib/bootstrap/client.c) */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v > 0) || !isfinite(v) || v > PLX_TIMEOUT_MAX_S) return -1;
    *out = v;
    return 0;
}
