/*
 * tests/fuzz/fuzz_env.c — libFuzzer harness for every PLX_* value parser:
 * byte 0 picks a variable (a row of plx_env_vars in lib/core/config.c, or one of
 * the bootstrap's), the rest is its value.  The value goes through the
 * row's checker, the typed getter, plx_config_load (what plx_init does) and,
 * for the bootstrap's variables, plx_boot_params_from_env with the others
 * set to good values.  Invariants (abort = a finding): the checker, the
 * getter and plx_config_load agree (and the bootstrap, on PLX_TIMEOUT); an accepted size / number is within the
 * row's bounds; a refusal names the variable.
 */
#include "core/config.h"
#include "bootstrap/bootstrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int nvars;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    plx_log_level = PLX_LOG_NONE;
    for (const plx_env_var_t *v = plx_env_vars; v->name; v++) {
        unsetenv(v->name);
        nvars++;
    }
    return 0;
}

/* The bootstrap's parser accepts value iff config_ok (for PLX_TIMEOUT). */
static void check_boot(const char *name, const char *value, int config_ok)
{
    setenv("PLX_RANK", "1", 1);
    setenv("PLX_SIZE", "4", 1);
    setenv("PLX_BOOTSTRAP", "127.0.0.1:29500", 1);
    setenv("PLX_JOB_KEY", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 1);
    setenv(name, value, 1);
    plx_boot_params_t p;
    char err[512];
    plx_status_t st = plx_boot_params_from_env(&p, err, sizeof err);
    if (st == PLX_SUCCESS) {
        if (p.size < 1 || p.rank < 0 || p.rank >= p.size || p.port < 1 || p.port > 65535 ||
            !(p.timeout_s > 0) || p.timeout_s > PLX_TIMEOUT_MAX_S)
            abort();
    } else if (!*err) {
        abort();
    }
    if (strcmp(name, "PLX_TIMEOUT") == 0 && (st == PLX_SUCCESS) != config_ok) abort();
    unsetenv("PLX_RANK");
    unsetenv("PLX_SIZE");
    unsetenv("PLX_BOOTSTRAP");
    unsetenv("PLX_JOB_KEY");
    unsetenv("PLX_BOOTSTRAP_SERVE");
    unsetenv("PLX_JOB_ID");
    unsetenv("PLX_TIMEOUT");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const plx_env_var_t *v = &plx_env_vars[data[0] % nvars];
    char *value = malloc(size);
    if (!value) return 0;
    memcpy(value, data + 1, size - 1);
    value[size - 1] = '\0';

    char err[512] = "";
    int ok = plx_env_check(v, value, err, sizeof err) == 0;
    if (!ok && !strstr(err, v->name)) abort();
    if (ok && v->kind == PLX_ENV_SIZE) {
        size_t x;
        if (plx_parse_size(value, &x) != 0 || (double)x < v->lo || (double)x > v->hi) abort();
    }

    setenv(v->name, value, 1);
    /* the getter of the row's kind agrees with the checker */
    size_t sz;
    int i;
    double d;
    int got = v->kind == PLX_ENV_SIZE ? plx_env_size(v->name, &sz)
            : v->kind == PLX_ENV_INT ? plx_env_int(v->name, &i)
            : v->kind == PLX_ENV_REAL ? plx_env_real(v->name, &d)
            : v->kind == PLX_ENV_CHOICE ? plx_env_choice(v->name, &i) : (ok ? 1 : -1);
    if ((got == 1) != ok) abort();
    if (ok && v->kind == PLX_ENV_REAL && !(d >= v->lo && d <= v->hi)) abort();
    if (ok && v->kind == PLX_ENV_INT && !(i >= v->lo && i <= v->hi)) abort();

    /* plx_init's check agrees too */
    plx_config_t cfg;
    plx_status_t st = plx_config_load(&cfg, err, sizeof err);
    if ((st == PLX_SUCCESS) != ok) abort();
    if (st == PLX_SUCCESS && !(cfg.timeout_s > 0 && cfg.timeout_s <= PLX_TIMEOUT_MAX_S)) abort();
    unsetenv(v->name);

    if (v->kind == PLX_ENV_BOOT || strcmp(v->name, "PLX_TIMEOUT") == 0) check_boot(v->name, value, ok);
    free(value);
    return 0;
}
