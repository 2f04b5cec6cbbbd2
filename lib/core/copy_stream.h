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

#endif
