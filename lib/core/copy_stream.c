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
 *
 * Streaming makes the readers read from memory, which costs them more than
 * the writer saves while the vCPUs share a cache (a reduce root reading
 * three windows: 1.6-2.0x slower), so plx_copy_timed streams only while
 * plain copies run slow: after two in a row slower than 0.3 ns a byte
 * (3.3 GB/s; s17b's probe: one die at most 0.16, two 0.42-0.58) it streams
 * the next 63 copies; the plain copy after them probes again, and one slow
 * probe streams 63 more (perf/RESULTS.md, issue 11, sessions s18b, s19b).
 */
#include "copy_stream.h"
#include "config.h"
#include "plx_internal.h"   /* plx_now */

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

void plx_stream_rule_init(plx_stream_rule_t *r, const char *env)
{
    r->mode = PLX_STREAM_AUTO;
    plx_env_choice(env, &r->mode);
    r->left = -1;
    r->slow = 0;
}

void plx_copy_timed(plx_stream_rule_t *r, void *dst, const void *src, size_t n)
{
    if (r->mode == PLX_STREAM_ALWAYS || (r->mode == PLX_STREAM_AUTO && r->left > 0)) {
        plx_copy_stream(dst, src, n);
        if (r->left > 0) r->left--;
        return;
    }
    if (r->mode == PLX_STREAM_NEVER) {
        memcpy(dst, src, n);
        return;
    }
    double t0 = plx_now();
    memcpy(dst, src, n);
    if (plx_now() - t0 <= (double)n * 0.3e-9) {
        r->slow = 0;
        r->left = -1;
    } else if (++r->slow >= 2 || r->left == 0) {
        r->slow = 0;
        r->left = 63;
    }
}
