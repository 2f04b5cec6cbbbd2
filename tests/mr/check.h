/*
 * tests/mr/check.h — the CHECK macro the multi-rank check programs share:
 * count a check, and print the first 50 failures with the program name,
 * the rank and the line.  Define CHECK_PROG ("comm2_check") before
 * including it; the program sets `rank` (and `size`) after plx_init and
 * reports `checks` / `failures` at the end.
 */
#ifndef PLX_TESTS_MR_CHECK_H
#define PLX_TESTS_MR_CHECK_H

#include <stdio.h>

#ifndef CHECK_PROG
#error "define CHECK_PROG (the program's name) before including check.h"
#endif

static int rank, size;
static long checks, failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        checks++;                                                               \
        if (!(cond)) {                                                          \
            if (failures++ < 50) {                                              \
                fprintf(stderr, CHECK_PROG " rank %d line %d: ", rank, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
            }                                                                   \
        }                                                                       \
    } while (0)

#endif /* PLX_TESTS_MR_CHECK_H */
