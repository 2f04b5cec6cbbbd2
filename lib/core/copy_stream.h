/*
 * lib/core/copy_stream.h — a copy whose stores bypass the cache.
 */
#ifndef PLX_CORE_COPY_STREAM_H
#define PLX_CORE_COPY_STREAM_H

#include <stddef.h>

/* memcpy with streaming (non-temporal) stores on x86-64, plain memcpy
 * elsewhere: for a buffer another core reads next, whose lines that core
 * still holds (a shared window refilled every call). */
void plx_copy_stream(void *dst, const void *src, size_t n);

/* Choices of a knob that picks the stores of such a copy (PLX_SLOTS_STREAM,
 * PLX_DIRECT_STREAM), in the order of their rows in lib/core/config.c. */
enum { PLX_STREAM_AUTO = 0, PLX_STREAM_NEVER, PLX_STREAM_ALWAYS };

/* One rank's rule for one such buffer: its knob and, in auto, the state
 * of the timed plain copies (see plx_copy_timed). */
typedef struct {
    int mode;                        /* PLX_STREAM_AUTO, _NEVER, _ALWAYS */
    int left;                        /* auto: copies left to stream (-1: copying plainly) */
    int slow;                        /* auto: plain copies in a row found slow */
} plx_stream_rule_t;

/* Reset r and read its knob (the environment variable env, checked by
 * plx_init; unset: auto). */
void plx_stream_rule_init(plx_stream_rule_t *r, const char *env);

/* Copy n bytes into a buffer other cores read next: in auto, a plain copy
 * that is timed, and streaming stores for the next 63 copies after two
 * plain ones in a row slower than 0.3 ns a byte. */
void plx_copy_timed(plx_stream_rule_t *r, void *dst, const void *src, size_t n);

#endif
