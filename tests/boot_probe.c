/*
 * tests/boot_probe.c — a tiny rank program for tests/plexusrun.sh: it uses
 * only the bootstrap client (lib/bootstrap) and lib/core/log.c, so plexusrun and
 * the env interface can be tested without the rest of the library.
 *
 * It reads the PLX_* environment, connects, allgathers its rank (checking
 * every slot), bcasts a word from the last rank, runs a barrier, prints
 *   boot_probe: rank R of N ok (job JOBID)
 * and then does what argv asks, rank by rank (R = -1 means every rank):
 *   --exit R:C     rank R exits with status C (after saying goodbye)
 *   --kill R:S     rank R kills itself with signal S (no goodbye)
 *   --sleep R:T    rank R sleeps T seconds before finishing
 *   --lines R:K    rank R prints K more numbered lines, the last one
 *                  without its newline
 *   --stderr       every rank also prints a line to stderr
 *   --rounds K     repeat the collectives K times (default 1)
 *   --print-free-port  print a TCP port free on 127.0.0.1 and exit
 * Exit status 0 when everything checked out, 1 on a bootstrap failure
 * (with the reason on stderr).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bootstrap/bootstrap.h"
#include "core/log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t l = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &l) < 0) {
        perror("boot_probe: free port");
        return 1;
    }
    printf("%d\n", ntohs(a.sin_port));
    close(fd);
    return 0;
}

/* "R:V" applies to this rank? */
static int match(const char *arg, int rank, long *val)
{
    char *end;
    long r = strtol(arg, &end, 10);
    if (*end != ':') {
        fprintf(stderr, "boot_probe: bad argument '%s' (want RANK:VALUE)\n", arg);
        exit(2);
    }
    *val = strtol(end + 1, NULL, 10);
    return r == -1 || r == rank;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print-free-port") == 0) return free_port();
    plx_log_init(-1);
    setvbuf(stdout, NULL, _IOLBF, 0);

    plx_boot_params_t p;
    char err[256];
    plx_status_t st = plx_boot_params_from_env(&p, err, sizeof err);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "boot_probe: %s\n", err);
        return 1;
    }
    plx_log_set_rank(p.rank);
    int rounds = 1;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);

    plx_boot_t *b;
    st = plx_boot_connect(&p, &b);
    if (st != PLX_SUCCESS) {
        fprintf(stderr, "boot_probe: rank %d: connect failed (status %d)\n", p.rank, (int)st);
        return 1;
    }
    uint32_t *all = calloc((size_t)p.size, sizeof *all);
    for (int k = 0; k < rounds; k++) {
        uint32_t mine = (uint32_t)p.rank * 7u + (uint32_t)k;
        st = plx_boot_allgather(b, &mine, all, sizeof mine);
        if (st != PLX_SUCCESS) {
            fprintf(stderr, "boot_probe: rank %d: allgather: %s\n", p.rank, plx_boot_last_error(b));
            return 1;
        }
        for (int r = 0; r < p.size; r++)
            if (all[r] != (uint32_t)r * 7u + (uint32_t)k) {
                fprintf(stderr, "boot_probe: rank %d: allgather slot %d holds %u, want %u\n",
                        p.rank, r, all[r], (unsigned)r * 7u + (unsigned)k);
                return 1;
            }
        char word[24] = "";
        if (p.rank == p.size - 1) snprintf(word, sizeof word, "hello-%d", k);
        st = plx_boot_bcast(b, word, sizeof word, p.size - 1);
        char want[24];
        snprintf(want, sizeof want, "hello-%d", k);
        if (st != PLX_SUCCESS || strcmp(word, want) != 0) {
            fprintf(stderr, "boot_probe: rank %d: bcast: %s (got %.23s')\n", p.rank,
                    st ? plx_boot_last_error(b) : "wrong data", word);
            return 1;
        }
        st = plx_boot_barrier(b);
        if (st != PLX_SUCCESS) {
            fprintf(stderr, "boot_probe: rank %d: barrier: %s\n", p.rank, plx_boot_last_error(b));
            return 1;
        }
    }
    printf("boot_probe: rank %d of %d ok (job %s)\n", p.rank, p.size, p.job_id);

    for (int i = 1; i < argc; i++) {
        long v;
        if (strcmp(argv[i], "--stderr") == 0) {
            fprintf(stderr, "boot_probe: rank %d says hello on stderr\n", p.rank);
        } else if (strcmp(argv[i], "--rounds") == 0) {
            i++;
        } else if (i + 1 < argc && strcmp(argv[i], "--lines") == 0) {
            if (match(argv[++i], p.rank, &v)) {
                for (long k = 0; k < v; k++) printf("line %ld of rank %d%s", k, p.rank, k + 1 < v ? "\n" : "");
                fflush(stdout);
            }
        } else if (i + 1 < argc && strcmp(argv[i], "--kill") == 0) {
            if (match(argv[++i], p.rank, &v)) {
                fflush(stdout);
                raise((int)v);   /* a crash: no goodbye to the server */
            }
        } else if (i + 1 < argc && strcmp(argv[i], "--exit") == 0) {
            if (match(argv[++i], p.rank, &v)) {
                plx_boot_close(b);
                exit((int)v);
            }
        } else if (i + 1 < argc && strcmp(argv[i], "--sleep") == 0) {
            if (match(argv[++i], p.rank, &v)) {
                struct timespec ts = { v, 0 };
                while (nanosleep(&ts, &ts) < 0) {}
            }
        } else {
            fprintf(stderr, "boot_probe: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    plx_boot_close(b);
    free(all);
    return 0;
}
