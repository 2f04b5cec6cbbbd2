/*
 * lib/core/config.h — every PLX_* environment variable in one table, and the one
 * place their values are parsed.
 *
 * The table is the single source of truth: plexus_info --env prints it, the
 * README copies it, and plx_config_load (at plx_init) checks every variable
 * that is set against its row, so a bad value fails plx_init with
 * PLX_ERR_INVALID_ARG and a message naming the variable, the value and what
 * is accepted.  A variable read anywhere in Plexus must be listed here
 * (tests/unit/test_config.c greps the sources to keep that true).
 *
 * TO ADD A VARIABLE: one row in plx_env_vars (lib/core/config.c):
 *   { "PLX_FOO", "default as text", "meaning", KIND, lo, hi, "choices", PLX_CFG(field) },
 * KIND and its bounds say what is accepted (plx_env_kind_t below); the last
 * three may be left out (a row of three fields is listed but not checked).
 * Read the value where it is used with plx_env_size / plx_env_int /
 * plx_env_real / plx_env_choice (same parser, same bounds), or give the row
 * a PLX_CFG(field) destination in plx_config_t (lib/plx_internal.h) and read
 * ctx->cfg.field.
 */
#ifndef PLX_CONFIG_H
#define PLX_CONFIG_H

#include "plx_internal.h"
#include "core/parse_num.h"   /* plx_parse_size, plx_parse_seconds */

#include <stddef.h>

typedef enum plx_env_kind {
    PLX_ENV_UNCHECKED = 0,  /* listed only (informational, or read by others) */
    PLX_ENV_BOOT,           /* checked by the bootstrap (lib/bootstrap/client.c, shared
                               with plexusrun, which links no config.c) when it is used */
    PLX_ENV_TEXT,           /* any text of at most hi characters (destination: char[hi + 1]) */
    PLX_ENV_SIZE,           /* bytes with optional K/M/G suffix (powers of 1024), in [lo, hi];
                               destination: size_t */
    PLX_ENV_SECONDS,        /* a number of seconds, lo < v <= hi; destination: double */
    PLX_ENV_INT,            /* a decimal integer in [lo, hi]; destination: int */
    PLX_ENV_REAL,           /* a decimal number in [lo, hi]; destination: double */
    PLX_ENV_CHOICE,         /* one of the '|'-separated words of choices (any case); the value
                               is its index in choices; destination: int */
    PLX_ENV_LOGLEVEL,       /* none|error|warn|info|debug|trace or 0-5 (plx_log_parse); int */
    PLX_ENV_LOGFILE,        /* a file name of at most hi characters whose %-sequences are
                               only %h %p %r %% (plx_log_file_expand); empty = unset */
} plx_env_kind_t;

typedef struct plx_env_var {
    const char *name;
    const char *def;        /* default, as text ("" = unset) */
    const char *meaning;
    plx_env_kind_t kind;
    double lo, hi;          /* bounds (see the kind) */
    const char *choices;    /* PLX_ENV_CHOICE: "auto|0|1" */
    size_t dest;            /* PLX_CFG(field), or 0: not stored in plx_config_t */
} plx_env_var_t;

/* Destination of a row: a field of plx_config_t (0 means none). */
#define PLX_CFG(field) (offsetof(plx_config_t, field) + 1)


/* All variables, terminated by name == NULL. */
extern const plx_env_var_t plx_env_vars[];

/* The row of a variable, or NULL. */
const plx_env_var_t *plx_env_find(const char *name);

/* Check one value against its row.  0 if valid; -1 with a message naming
 * the variable, the value and what is accepted in err. */
int plx_env_check(const plx_env_var_t *v, const char *value, char *err, size_t errlen);

/* The value of a variable of the table, parsed and checked by its row:
 * 1 and *out if set and valid, 0 if unset (*out untouched), -1 if invalid
 * (one warn line; *out untouched).  plx_init has already refused invalid
 * values, so inside a context -1 does not happen. */
int plx_env_size(const char *name, size_t *out);
int plx_env_int(const char *name, int *out);
int plx_env_real(const char *name, double *out);
int plx_env_choice(const char *name, int *out);

/* Fill cfg from the environment, checking every variable of the table that
 * is set; on a bad value returns PLX_ERR_INVALID_ARG with a message naming
 * the variable in err. */
plx_status_t plx_config_load(plx_config_t *cfg, char *err, size_t errlen);

#endif /* PLX_CONFIG_H */
