/*
 * lib/core/assert.h — plx_assert(): internal invariants, checked in a
 * --enable-debug build (PLX_DEBUG) and compiled out otherwise.
 *
 * A failed assertion is a bug in Plexus, not bad input (bad input gets a
 * status): it prints the condition, file and line on stderr and aborts, so
 * a debugger or core dump stops at the spot.
 */
#ifndef PLX_CORE_ASSERT_H
#define PLX_CORE_ASSERT_H

#if PLX_DEBUG
#include <stdio.h>
#include <stdlib.h>
#define plx_assert(cond)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "plexus: assertion failed: %s (%s:%d)\n", #cond, __FILE__, \
                    __LINE__);                                                         \
            abort();                                                                   \
        }                                                                              \
    } while (0)
#else
#define plx_assert(cond) ((void)sizeof(!(cond)))
#endif

#endif /* PLX_CORE_ASSERT_H */
