/*
 * lib/core/copy_stream.c — a copy whose stores bypass the cache.
 *
 * Why: a plain copy into lines another core holds first takes each line
 * from that core (a read-for-ownership).  Between the two vCPUs of the
 * test host that costs 28-42 us per 256 KiB while they share a cache and
 * 111-151 us while the host runs them on different dies (cache-line round
 * trip 320 ns instead of 55-65); streaming stores take 9-10 us in either,
 * and the reader then pays 14-23 us instead of 6-16 (perf/RESULTS.md,
 * issue 11, session s17b).
 */
#include "copy_stream.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

void plx_copy_stream(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 63);   /* to the next 64-byte line */
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
    _mm_sfence();   /* the streamed lines before the caller's release store */
}
#else
void plx_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif
