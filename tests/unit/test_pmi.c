/*
 * tests/unit/test_pmi.c — the PMI client (lib/bootstrap/pmi.c) against a
 * scripted peer on a socketpair: what the real servers (hydra, Slurm; see
 * tests/launchers.sh and tests/slurm.sh) never send on purpose.
 *
 *   - an allgather whose values need many puts (the peer announces a small
 *     vallen_max) comes back whole and in order;
 *   - a reply to the wrong command, rc != 0, a line longer than any reply,
 *     a closed connection, silence (bounded by the timeout) and a value
 *     that is not the expected hex each give an error status, never a
 *     crash or a hang.
 * The peer keeps a tiny key-value space so the good path is the protocol
 * as the servers speak it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "plx_internal.h"
#include "bootstrap/oob.h"

enum { P_GOOD, P_WRONG_CMD, P_RC, P_LONG, P_CLOSE, P_SILENT, P_BAD_VALUE };

typedef struct peer {
    int fd, mode;
    pthread_t th;
    int nkv;
    char key[64][64], val[64][80];
} peer_t;

static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r <= 0) return -1;
        if (c == '\n') break;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return 0;
}

static void say(int fd, const char *s)
{
    ssize_t w = write(fd, s, strlen(s));
    (void)w;
}

static const char *arg(const char *line, const char *k, char *out)
{
    const char *p = strstr(line, k);
    if (!p) return NULL;
    p += strlen(k);
    size_t n = strcspn(p, " ");
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

static void *peer_main(void *a)
{
    peer_t *p = a;
    char line[2048], k[64], v[2048], out[2300];
    while (read_line(p->fd, line, sizeof line) == 0) {
        if (strncmp(line, "cmd=init ", 9) == 0) {
            if (p->mode == P_WRONG_CMD) say(p->fd, "cmd=maxes kvsname_max=256\n");
            else if (p->mode == P_RC) say(p->fd, "cmd=response_to_init rc=-1 msg=go_away\n");
            else if (p->mode == P_CLOSE) break;
            else if (p->mode == P_SILENT) continue;
            else if (p->mode == P_LONG) {
                char big[5000];
                memset(big, 'x', sizeof big);
                ssize_t w = write(p->fd, big, sizeof big);
                (void)w;
            } else say(p->fd, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
        } else if (strcmp(line, "cmd=get_maxes") == 0) {
            say(p->fd, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=70\n");
        } else if (strcmp(line, "cmd=get_my_kvsname") == 0) {
            say(p->fd, "cmd=my_kvsname kvsname=kvs_test_0\n");
        } else if (strncmp(line, "cmd=put ", 8) == 0 && arg(line, "key=", k) && arg(line, "value=", v)) {
            ck_assert_int_lt(p->nkv, 64);
            ck_assert_uint_le(strlen(v), 69);   /* the client respected vallen_max */
            snprintf(p->key[p->nkv], sizeof p->key[0], "%s", k);
            snprintf(p->val[p->nkv++], sizeof p->val[0], "%s", v);
            say(p->fd, "cmd=put_result rc=0 msg=success\n");
        } else if (strcmp(line, "cmd=barrier_in") == 0) {
            say(p->fd, "cmd=barrier_out\n");
        } else if (strncmp(line, "cmd=get ", 8) == 0 && arg(line, "key=", k)) {
            int i = 0;
            while (i < p->nkv && strcmp(p->key[i], k)) i++;
            if (p->mode == P_BAD_VALUE) snprintf(out, sizeof out, "cmd=get_result rc=0 value=zz\n");
            else if (i == p->nkv) snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=key_%s_not_found\n", k);
            else snprintf(out, sizeof out, "cmd=get_result rc=0 msg=success value=%s\n", p->val[i]);
            say(p->fd, out);
        } else if (strcmp(line, "cmd=finalize") == 0) {
            say(p->fd, "cmd=finalize_ack\n");
            break;
        } else {
            say(p->fd, "cmd=error\n");
        }
    }
    close(p->fd);
    return NULL;
}

static int start(peer_t *p, int mode)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(p, 0, sizeof *p);
    p->fd = sv[1];
    p->mode = mode;
    char fds[16];
    snprintf(fds, sizeof fds, "%d", sv[0]);
    setenv("PMI_FD", fds, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
    unsetenv("PMI_PORT");
    ck_assert_int_eq(pthread_create(&p->th, NULL, peer_main, p), 0);
    return sv[0];
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

START_TEST(allgather_in_many_puts)
{
    peer_t p;
    int fd = start(&p, P_GOOD);
    plx_oob_info_t info;
    const plx_oob_ops_t *ops;
    void *st;
    ck_assert_int_eq(plx_oob_pmi_open(10, &info, &ops, &st), PLX_SUCCESS);
    ck_assert_int_eq(info.rank, 0);
    ck_assert_int_eq(info.size, 1);
    ck_assert_str_eq(ops->name, "pmi");
    uint8_t mine[200], all[200];
    for (int i = 0; i < 200; i++) mine[i] = (uint8_t)(i * 7 + 3);
    ck_assert_int_eq(ops->allgather(st, mine, all, sizeof mine), PLX_SUCCESS);
    ck_assert_mem_eq(mine, all, sizeof mine);
    ck_assert_int_ge(p.nkv, 6);              /* 400 hex digits at <= 68 a put */
    ck_assert_int_eq(ops->allgather(st, mine, all, 0), PLX_SUCCESS);   /* empty */
    ck_assert_int_eq(ops->barrier(st), PLX_SUCCESS);
    ops->close(st);                          /* finalize, answered */
    pthread_join(p.th, NULL);
    close(fd);
}
END_TEST

static void expect_open_fails(int mode, plx_status_t want, double timeout_s)
{
    peer_t p;
    int fd = start(&p, mode);
    plx_oob_info_t info;
    const plx_oob_ops_t *ops;
    void *st;
    double t0 = now_s();
    ck_assert_int_eq(plx_oob_pmi_open(timeout_s, &info, &ops, &st), want);
    ck_assert_double_lt(now_s() - t0, timeout_s + 2);
    shutdown(fd, SHUT_RDWR);   /* releases a peer still reading */
    pthread_join(p.th, NULL);
    close(fd);
}

START_TEST(malformed_replies)
{
    expect_open_fails(P_WRONG_CMD, PLX_ERR_BOOTSTRAP, 10);
    expect_open_fails(P_RC, PLX_ERR_BOOTSTRAP, 10);
    expect_open_fails(P_LONG, PLX_ERR_BOOTSTRAP, 10);
    expect_open_fails(P_CLOSE, PLX_ERR_BOOTSTRAP, 10);
    expect_open_fails(P_SILENT, PLX_ERR_TIMEOUT, 0.5);
}
END_TEST

START_TEST(bad_value_is_an_error)
{
    peer_t p;
    int fd = start(&p, P_BAD_VALUE);
    plx_oob_info_t info;
    const plx_oob_ops_t *ops;
    void *st;
    ck_assert_int_eq(plx_oob_pmi_open(10, &info, &ops, &st), PLX_SUCCESS);
    uint8_t mine[16] = { 1 }, all[16];
    ck_assert_int_eq(ops->allgather(st, mine, all, sizeof mine), PLX_ERR_BOOTSTRAP);
    ops->close(st);
    pthread_join(p.th, NULL);
    close(fd);
}
END_TEST

START_TEST(env_checks)
{
    plx_oob_info_t info;
    const plx_oob_ops_t *ops;
    void *st;
    unsetenv("PMI_PORT");
    unsetenv("PMI_FD");
    ck_assert_int_eq(plx_oob_pmi_open(1, &info, &ops, &st), PLX_ERR_NOT_SUPPORTED);
    setenv("PMI_FD", "987", 1);              /* not open here: not ours */
    ck_assert_int_eq(plx_oob_pmi_open(1, &info, &ops, &st), PLX_ERR_NOT_SUPPORTED);
    setenv("PMI_FD", "0", 1);                /* open, but rank/size nonsense */
    setenv("PMI_RANK", "5", 1);
    setenv("PMI_SIZE", "2", 1);
    ck_assert_int_eq(plx_oob_pmi_open(1, &info, &ops, &st), PLX_ERR_BOOTSTRAP);
    unsetenv("PMI_FD");
    setenv("PMI_PORT", "no-port-here", 1);
    ck_assert_int_eq(plx_oob_pmi_open(1, &info, &ops, &st), PLX_ERR_BOOTSTRAP);
    unsetenv("PMI_PORT");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
}
END_TEST

/* The singleton refusal reads the launchers' marks. */
START_TEST(launch_env_refusal)
{
    static const char *const vars[] = { "PMI_SIZE", "PMI_FD", "PMI_PORT", "OMPI_COMM_WORLD_SIZE",
        "SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "MPI_LOCALNRANKS", "PLX_ALLOW_SINGLETON",
        "PMIX_RANK", NULL };
    for (int i = 0; vars[i]; i++) unsetenv(vars[i]);
    ck_assert_int_eq(plx_launch_env_check(), PLX_SUCCESS);   /* plain process */
    setenv("PMI_SIZE", "1", 1);
    ck_assert_int_eq(plx_launch_env_check(), PLX_SUCCESS);   /* a 1-process launch */
    setenv("PMI_SIZE", "3", 1);
    ck_assert_int_eq(plx_launch_env_check(), PLX_ERR_BOOTSTRAP);
    setenv("PLX_ALLOW_SINGLETON", "1", 1);
    ck_assert_int_eq(plx_launch_env_check(), PLX_SUCCESS);
    setenv("PLX_ALLOW_SINGLETON", "yes", 1);
    ck_assert_int_eq(plx_launch_env_check(), PLX_ERR_INVALID_ARG);
    unsetenv("PLX_ALLOW_SINGLETON");
    unsetenv("PMI_SIZE");
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);                  /* a batch script: no PROCID */
    ck_assert_int_eq(plx_launch_env_check(), PLX_SUCCESS);
    setenv("SLURM_PROCID", "2", 1);                          /* a task of srun -n 4 */
    ck_assert_int_eq(plx_launch_env_check(), PLX_ERR_BOOTSTRAP);
    unsetenv("SLURM_STEP_NUM_TASKS");
    unsetenv("SLURM_PROCID");
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    ck_assert_int_eq(plx_launch_env_check(), PLX_ERR_BOOTSTRAP);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    setenv("PMIX_RANK", "0", 1);                             /* maybe a 1-process job */
    ck_assert_int_eq(plx_launch_env_check(), PLX_SUCCESS);
    setenv("PMIX_RANK", "1", 1);                             /* certainly not */
    ck_assert_int_eq(plx_launch_env_check(), PLX_ERR_BOOTSTRAP);
    unsetenv("PMIX_RANK");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pmi");
    TCase *tc = tcase_create("client");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, allgather_in_many_puts);
    tcase_add_test(tc, malformed_replies);
    tcase_add_test(tc, bad_value_is_an_error);
    tcase_add_test(tc, env_checks);
    tcase_add_test(tc, launch_env_refusal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    plx_log_init(-1);
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
