/*
 * tests/unit/test_config.c — settings and tuning: size and duration
 * parsing, every PLX_* variable checked by its row of the table (a bad
 * value fails plx_config_load, so plx_init, with a message naming the
 * variable and the value; the PLX_SHM_* values that used to be warned about
 * and replaced, PLX_TIMEOUT's one bound for the core and the bootstrap),
 * the PLX_TUNE parser (good rules take effect, every kind of bad token is
 * rejected with a message naming it, "lo/ranks" without a byte range and a
 * second rule for one collective are refused), and that every PLX_*
 * variable the sources read is listed in the table plexus_info --env prints.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "coll/select.h"
#include "bootstrap/bootstrap.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

START_TEST(test_parse_size)
{
    size_t v;
    ck_assert_int_eq(plx_parse_size("0", &v), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(plx_parse_size("8K", &v), 0);
    ck_assert_uint_eq(v, 8192);
    ck_assert_int_eq(plx_parse_size("128M", &v), 0);
    ck_assert_uint_eq(v, 128u << 20);
    ck_assert_int_eq(plx_parse_size("2G", &v), 0);
    ck_assert_uint_eq(v, 2ull << 30);
    ck_assert_int_eq(plx_parse_size("64kB", &v), 0);
    ck_assert_uint_eq(v, 65536);
    ck_assert_int_eq(plx_parse_size("inf", &v), 0);
    ck_assert_uint_eq(v, SIZE_MAX);
    ck_assert_int_eq(plx_parse_size("", &v), -1);
    ck_assert_int_eq(plx_parse_size("-1", &v), -1);
    ck_assert_int_eq(plx_parse_size("12Q", &v), -1);
    ck_assert_int_eq(plx_parse_size("K", &v), -1);
    ck_assert_int_eq(plx_parse_size("99999999999999999999", &v), -1);
    ck_assert_int_eq(plx_parse_size("17179869184G", &v), -1);
}
END_TEST

START_TEST(test_parse_seconds)
{
    double d;
    ck_assert_int_eq(plx_parse_seconds("300", &d), 0);
    ck_assert(d == 300);
    ck_assert_int_eq(plx_parse_seconds("0.5", &d), 0);
    ck_assert(d == 0.5);
    ck_assert_int_eq(plx_parse_seconds("0", &d), -1);
    ck_assert_int_eq(plx_parse_seconds("-3", &d), -1);
    ck_assert_int_eq(plx_parse_seconds("abc", &d), -1);
    ck_assert_int_eq(plx_parse_seconds("5s", &d), -1);
    ck_assert_int_eq(plx_parse_seconds("nan", &d), -1);
    ck_assert_int_eq(plx_parse_seconds("inf", &d), -1);
}
END_TEST

START_TEST(test_config_env)
{
    plx_config_t cfg;
    char err[256];
    unsetenv("PLX_TIMEOUT");
    unsetenv("PLX_LOG");
    unsetenv("PLX_TUNE");
    ck_assert_int_eq(plx_config_load(&cfg, err, sizeof err), PLX_SUCCESS);
    ck_assert(cfg.timeout_s == 300);
    setenv("PLX_TIMEOUT", "2.5", 1);
    setenv("PLX_LOG", "debug", 1);
    ck_assert_int_eq(plx_config_load(&cfg, err, sizeof err), PLX_SUCCESS);
    ck_assert(cfg.timeout_s == 2.5);
    ck_assert_int_eq(cfg.log_level, PLX_LOG_DEBUG);
    setenv("PLX_TIMEOUT", "soon", 1);
    ck_assert_int_eq(plx_config_load(&cfg, err, sizeof err), PLX_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(err, "PLX_TIMEOUT"));
    setenv("PLX_TIMEOUT", "10", 1);
    setenv("PLX_LOG", "loud", 1);
    ck_assert_int_eq(plx_config_load(&cfg, err, sizeof err), PLX_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(err, "PLX_LOG"));
    unsetenv("PLX_TIMEOUT");
    unsetenv("PLX_LOG");
}
END_TEST

/* value must fail plx_config_load with a message naming name and value. */
static void expect_bad_env(const char *name, const char *value)
{
    plx_config_t cfg;
    char err[512] = "";
    setenv(name, value, 1);
    ck_assert_msg(plx_config_load(&cfg, err, sizeof err) == PLX_ERR_INVALID_ARG, "%s='%s' accepted", name,
                  value);
    ck_assert_msg(strstr(err, name) && strstr(err, value), "message '%s' does not name %s='%s'", err,
                  name, value);
    unsetenv(name);
}

static void expect_good_env(const char *name, const char *value)
{
    plx_config_t cfg;
    char err[512] = "";
    setenv(name, value, 1);
    ck_assert_msg(plx_config_load(&cfg, err, sizeof err) == PLX_SUCCESS, "%s='%s' refused: %s", name,
                  value, err);
    unsetenv(name);
}

START_TEST(test_env_values_checked)
{
    /* the values issue 13 found warned about and replaced by defaults */
    expect_bad_env("PLX_SHM_CMA", "maybe");
    expect_bad_env("PLX_SHM_RING_BYTES", "1000");
    expect_bad_env("PLX_SHM_EAGER_MAX", "lots");
    expect_bad_env("PLX_SHM_EAGER_MAX", "K");        /* a unit without a number is not 0 */
    expect_bad_env("PLX_SHM_STAGE_BYTES", "1");
    expect_bad_env("PLX_SHM_COLL_BYTES", "-5");
    expect_bad_env("PLX_SHM_RING_BYTES", "128M");    /* above 64M */
    expect_bad_env("PLX_SHM_COLL_BYTES", "inf");
    expect_bad_env("PLX_GRAPH_THREADS", "0");
    expect_bad_env("PLX_GRAPH_THREADS", "4x");
    expect_bad_env("PLX_GRAPH_POLICY", "lifo");
    expect_bad_env("PLX_GRAPH_INLINE_US", "-1");
    expect_bad_env("PLX_GRAPH_COMM_WINDOW", "many");
    expect_bad_env("PLX_CUDA", "yes please");
    expect_bad_env("PLX_NCCL", "2");
    expect_bad_env("PLX_PROGRESS", "threads");
    expect_bad_env("PLX_LOG", "loud");
    expect_bad_env("PLX_TIMEOUT", "5e7");            /* above 1e7, as the bootstrap says */
    expect_good_env("PLX_SHM_CMA", "auto");
    expect_good_env("PLX_SHM_CMA", "OFF");
    expect_good_env("PLX_SHM_RING_BYTES", "64K");
    expect_good_env("PLX_SHM_EAGER_MAX", "0");       /* eager off, on purpose */
    expect_good_env("PLX_SHM_STAGE_BYTES", "4096");
    expect_good_env("PLX_SHM_COLL_BYTES", "16M");
    expect_good_env("PLX_GRAPH_INLINE_US", "2.5");
    expect_good_env("PLX_TIMEOUT", "1e7");

    /* the getters return the same values */
    size_t sz = 0;
    setenv("PLX_SHM_RING_BYTES", "256K", 1);
    ck_assert_int_eq(plx_env_size("PLX_SHM_RING_BYTES", &sz), 1);
    ck_assert_uint_eq(sz, 256u << 10);
    setenv("PLX_SHM_RING_BYTES", "1000", 1);
    sz = 7;
    ck_assert_int_eq(plx_env_size("PLX_SHM_RING_BYTES", &sz), -1);
    ck_assert_uint_eq(sz, 7);
    unsetenv("PLX_SHM_RING_BYTES");
    ck_assert_int_eq(plx_env_size("PLX_SHM_RING_BYTES", &sz), 0);
    int i = -1;
    setenv("PLX_GRAPH_POLICY", "FIFO", 1);
    ck_assert_int_eq(plx_env_choice("PLX_GRAPH_POLICY", &i), 1);
    ck_assert_int_eq(i, 2);
    unsetenv("PLX_GRAPH_POLICY");

    /* PLX_TIMEOUT: the bootstrap's bound is the core's */
    plx_boot_params_t bp;
    char err[256];
    setenv("PLX_TIMEOUT", "5e7", 1);
    ck_assert_int_eq(plx_boot_params_from_env(&bp, err, sizeof err), PLX_ERR_INVALID_ARG);
    setenv("PLX_TIMEOUT", "1e7", 1);
    ck_assert_int_eq(plx_boot_params_from_env(&bp, err, sizeof err), PLX_SUCCESS);
    unsetenv("PLX_TIMEOUT");
}
END_TEST

/* Every row is checked (or named as the bootstrap's or informational), and
 * garbage is refused by each checked row. */
START_TEST(test_env_every_row_checked)
{
    static char longtext[2048];
    memset(longtext, 'x', sizeof longtext - 1);
    for (const plx_env_var_t *v = plx_env_vars; v->name; v++) {
        ck_assert_msg(v->kind != PLX_ENV_UNCHECKED || strcmp(v->name, "PLX_LAUNCHER") == 0,
                      "%s has no kind in plx_env_vars: its values are not checked at plx_init", v->name);
        if (v->kind == PLX_ENV_UNCHECKED || v->kind == PLX_ENV_BOOT) continue;
        char err[512];
        const char *bad = v->kind == PLX_ENV_TEXT || v->kind == PLX_ENV_LOGFILE ? longtext : "?garbage";
        ck_assert_msg(plx_env_check(v, bad, err, sizeof err) < 0, "%s accepts '%.20s'", v->name, bad);
        ck_assert_msg(strstr(err, v->name) != NULL, "message '%s' does not name %s", err, v->name);
    }
}
END_TEST

START_TEST(test_tune_defaults_cover_everything)
{
    plx_select_t *sel;
    char err[256] = "";
    ck_assert_int_eq(plx_select_create(NULL, &sel, err, sizeof err), PLX_SUCCESS);
    size_t sizes[] = { 0, 1, 8, 4096, 16384, 1 << 20, (size_t)1 << 34 };
    for (int c = 0; c < PLX_COLL_COUNT; c++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const coll_algo_t *a = plx_select_algo(sel, (plx_coll_t)c, sizes[i], NULL);
            ck_assert_ptr_nonnull(a);
            ck_assert_int_eq(a->coll, c);
        }
    plx_select_free(sel);
}
END_TEST

START_TEST(test_tune_override)
{
    plx_select_t *sel;
    char err[256] = "";
    ck_assert_int_eq(plx_select_create("allreduce:0-1M@ring,1M-inf@recursive_doubling", &sel, err,
                                       sizeof err),
                     PLX_SUCCESS);
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_ALLREDUCE, 8, NULL)->name, "ring");
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_ALLREDUCE, 1 << 20, NULL)->name, "recursive_doubling");
    /* collectives not named keep their defaults */
    ck_assert_ptr_nonnull(plx_select_algo(sel, PLX_COLL_BCAST, 8, NULL));
    plx_select_free(sel);

    /* a partial range falls back to the default outside it */
    ck_assert_int_eq(plx_select_create(" bcast:1K-2K@binomial ; ", &sel, err, sizeof err), PLX_SUCCESS);
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_BCAST, 1500, NULL)->name, "binomial");
    ck_assert_ptr_nonnull(plx_select_algo(sel, PLX_COLL_BCAST, 1 << 30, NULL));
    plx_select_free(sel);
}
END_TEST

START_TEST(test_tune_rank_ranges)
{
    plx_select_t *sel;
    char err[256] = "";
    ck_assert_int_eq(plx_select_create("bcast:0-1K/2-2@scatter_allgather,0-1K@binomial", &sel, err,
                                       sizeof err),
                     PLX_SUCCESS);
    struct plx_comm two = { 0 }, four = { 0 };
    two.size = 2;
    four.size = 4;
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_BCAST, 8, &two)->name, "scatter_allgather");
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_BCAST, 8, &four)->name, "binomial");
    plx_select_free(sel);
}
END_TEST

/* plexus_info --tune: a row that can never decide at that rank count (an
 * earlier row runs the same algorithm over all of its range) is not
 * printed; a wider row with the same algorithm is. */
START_TEST(test_tune_print_shadowed)
{
    plx_select_t *sel;
    char err[256] = "", buf[16384];
    ck_assert_int_eq(plx_select_create("bcast:0-1M@binomial,0-512K@binomial,0-2M@binomial,0-inf/2-2@binomial", &sel,
                                       err, sizeof err),
                     PLX_SUCCESS);
    FILE *m = fmemopen(buf, sizeof buf, "w");
    ck_assert_ptr_nonnull(m);
    plx_select_print(sel, m, 3);
    fclose(m);
    ck_assert_ptr_nonnull(strstr(buf, "0-1M           binomial (PLX_TUNE"));
    ck_assert_ptr_null(strstr(buf, "0-512K"));                                   /* inside 0-1M */
    ck_assert_ptr_nonnull(strstr(buf, "0-2M           binomial (PLX_TUNE"));     /* wider: decides 1-2M */
    ck_assert_ptr_null(strstr(buf, "0-inf          binomial (PLX_TUNE"));      /* 2 ranks only */
    m = fmemopen(buf, sizeof buf, "w");
    plx_select_print(sel, m, 2);
    fclose(m);
    ck_assert_ptr_nonnull(strstr(buf, "0-inf          binomial (PLX_TUNE"));   /* decides 2M-inf at 2 ranks */
    ck_assert_ptr_null(strstr(buf, "bcast           0-128K "));     /* the default's, inside the PLX_TUNE rows */
    plx_select_free(sel);
}
END_TEST

static void expect_bad(const char *tune, const char *token)
{
    plx_select_t *sel = NULL;
    char err[256] = "";
    ck_assert_int_eq(plx_select_create(tune, &sel, err, sizeof err), PLX_ERR_INVALID_ARG);
    ck_assert_msg(strstr(err, token) != NULL, "message '%s' does not name '%s'", err, token);
}

START_TEST(test_tune_bad)
{
    expect_bad("allreduce", "allreduce");
    expect_bad("allreduse:0-inf@ring", "allreduse");
    expect_bad("allreduce:0-inf@rung", "rung");
    expect_bad("bcast:0-1K/2-x@binomial", "2-x");
    expect_bad("bcast:0-1K/3-2@binomial", "3-2");
    expect_bad("allreduce:0-inf", "0-inf");
    expect_bad("allreduce:8K@ring", "8K");
    expect_bad("allreduce:5X-inf@ring", "5X");
    expect_bad("allreduce:8K-4K@ring", "8K-4K");
    expect_bad("bcast:0-inf@ring", "ring");   /* ring is no bcast algorithm */
    /* "0/2-2" has no byte range: it was read as bytes 0-2 on 2 ranks */
    expect_bad("allreduce:0/2-2@ring", "0/2-2");
    /* a second rule for one collective used to replace the first silently */
    expect_bad("allreduce:0-8K@ring;allreduce:8K-inf@recursive_doubling", "second rule for allreduce");
}
END_TEST

/* PLX_SELECT_MAX_RULES rules for one collective are taken, and the last
 * one decides where the earlier ones do not; one more is refused. */
START_TEST(test_tune_rule_limit)
{
    char tune[4096] = "bcast:", err[256] = "";
    for (int i = 0; i < PLX_SELECT_MAX_RULES - 1; i++)
        snprintf(tune + strlen(tune), sizeof tune - strlen(tune), "%d-%d@binomial,", 2 * i, 2 * i + 1);
    strcat(tune, "1M-inf@scatter_allgather");
    plx_select_t *sel;
    ck_assert_int_eq(plx_select_create(tune, &sel, err, sizeof err), PLX_SUCCESS);
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_BCAST, 4 << 20, NULL)->name, "scatter_allgather");
    ck_assert_str_eq(plx_select_algo(sel, PLX_COLL_BCAST, 2 * (PLX_SELECT_MAX_RULES - 2), NULL)->name, "binomial");
    plx_select_free(sel);
    strcat(tune, ",0-inf@binomial");
    ck_assert_int_eq(plx_select_create(tune, &sel, err, sizeof err), PLX_ERR_INVALID_ARG);
    char want[64];
    snprintf(want, sizeof want, "more than %d ranges", PLX_SELECT_MAX_RULES);
    ck_assert_ptr_nonnull(strstr(err, want));
}
END_TEST

/* Every getenv("PLX_...") in the sources names a variable of the table. */
static void scan_dir(const char *dir, int *missing)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            scan_dir(path, missing);
            continue;
        }
        if (n < 2 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
        FILE *f = fopen(path, "r");
        if (!f) continue;
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            for (char *p = strstr(line, "getenv(\"PLX_"); p; p = strstr(p + 1, "getenv(\"PLX_")) {
                char name[128];
                if (sscanf(p + 8, "%127[A-Z0-9_]", name) != 1) continue;
                int found = 0;
                for (const plx_env_var_t *v = plx_env_vars; v->name; v++)
                    if (strcmp(v->name, name) == 0) found = 1;
                if (!found) {
                    fprintf(stderr, "%s reads %s, which plx_env_vars does not list\n", path, name);
                    (*missing)++;
                }
            }
        }
        fclose(f);
    }
    closedir(d);
}

START_TEST(test_env_table_complete)
{
    const char *src = getenv("top_srcdir");
    if (!src) src = SRCDIR;
    int missing = 0;
    char dir[4096];
    const char *sub[] = { "lib", "transports", "tools", "perf" };
    for (int i = 0; i < 4; i++) {
        snprintf(dir, sizeof dir, "%s/%s", src, sub[i]);
        scan_dir(dir, &missing);
    }
    ck_assert_int_eq(missing, 0);
    /* and the README documents every one of them */
    snprintf(dir, sizeof dir, "%s/README.md", src);
    FILE *f = fopen(dir, "r");
    ck_assert_msg(f != NULL, "cannot read %s", dir);
    static char readme[1 << 17];
    size_t n = fread(readme, 1, sizeof readme - 1, f);
    readme[n] = '\0';
    fclose(f);
    for (const plx_env_var_t *v = plx_env_vars; v->name; v++) {
        ck_assert(strncmp(v->name, "PLX_", 4) == 0);
        ck_assert(v->meaning && *v->meaning);
        char needle[64];
        snprintf(needle, sizeof needle, "`%s`", v->name);
        ck_assert_msg(strstr(readme, needle) != NULL, "README.md does not document %s", v->name);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, test_parse_size);
    tcase_add_test(tc, test_parse_seconds);
    tcase_add_test(tc, test_config_env);
    tcase_add_test(tc, test_env_values_checked);
    tcase_add_test(tc, test_env_every_row_checked);
    tcase_add_test(tc, test_tune_defaults_cover_everything);
    tcase_add_test(tc, test_tune_override);
    tcase_add_test(tc, test_tune_rank_ranges);
    tcase_add_test(tc, test_tune_rule_limit);
    tcase_add_test(tc, test_tune_print_shadowed);
    tcase_add_test(tc, test_tune_bad);
    tcase_add_test(tc, test_env_table_complete);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
