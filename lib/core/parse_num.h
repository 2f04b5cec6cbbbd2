/*
 * lib/core/parse_num.h — the one parser of sizes and seconds shared by the
 * PLX_* variables (lib/core/config.c) and the tools' options (plexusrun,
 * plx_perf).  Self-contained: plexusrun links it without libplexus.
 */
#ifndef PLX_PARSE_NUM_H
#define PLX_PARSE_NUM_H

#include <stddef.h>

/* Longest PLX_TIMEOUT (and plexusrun --timeout), in seconds (the bootstrap
 * applies the same bound). */
#define PLX_TIMEOUT_MAX_S 1e7

/* Parse a size with optional K/M/G suffix (powers of 1024) and optional B,
 * or "inf" (SIZE_MAX).  Returns 0 and *out on success, -1 on a bad string
 * (empty, a sign, trailing text such as "4x", overflow). */
int plx_parse_size(const char *s, size_t *out);

/* Parse a positive number of seconds (fractions allowed) up to
 * PLX_TIMEOUT_MAX_S. -1 if bad. */
int plx_parse_seconds(const char *s, double *out);

#endif
