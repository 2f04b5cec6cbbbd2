/*
 * tests/mr/env_check.c — what plx_init answers under the current PLX_*
 * environment: `env_check EXPECTED` prints "env_check: plx_init: STATUS"
 * and exits 0 if STATUS (plx_strerror text) contains EXPECTED, else 1.
 * tests/mr/run_env.sh runs it with bad values of every kind.
 */
#include <plexus.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: env_check EXPECTED-STATUS-TEXT\n");
        return 2;
    }
    plx_context_t ctx = NULL;
    plx_status_t st = plx_init(&ctx);
    const char *text = plx_strerror(st);
    printf("env_check: plx_init: %s\n", text);
    if (st == PLX_SUCCESS) plx_finalize(&ctx);
    return strstr(text, argv[1]) ? 0 : 1;
}
