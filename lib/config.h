/*
 * lib/config.h — every PLX_* environment variable in one table, and the
 * parsing of the ones the core reads at plx_init.
 *
 * The table is the single source of truth: plexus_info --env prints it and
 * the README copies it.  A variable read anywhere in Plexus must be listed
 * here (tests/unit/test_config.c greps the sources to keep that true).
 */
#ifndef PLX_CONFIG_H
#define PLX_CONFIG_H

#include "plx_internal.h"

typedef struct plx_env_var {
    const char *name;
    const char *def;        /* default, as text ("" = unset) */
    const char *meaning;
} plx_env_var_t;

/* All variables, terminated by name == NULL. */
extern const plx_env_var_t plx_env_vars[];

/* Parse a size with optional K/M/G suffix (powers of 1024), or "inf".
 * Returns 0 and *out on success, -1 on a bad string. */
int plx_parse_size(const char *s, size_t *out);
/* Parse a positive number of seconds (fractions allowed). -1 if bad. */
int plx_parse_seconds(const char *s, double *out);

/* Fill cfg from the environment; on a bad value returns
 * PLX_ERR_INVALID_ARG with a message naming the variable in err. */
plx_status_t plx_config_load(plx_config_t *cfg, char *err, size_t errlen);

#endif /* PLX_CONFIG_H */
