/*
 * lib/bootstrap/sha256.c — SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104)
 * for the bootstrap handshake, plus constant-time compare and hex helpers.
 *
 * Written here rather than taken from OpenSSL so the core library has no
 * crypto dependency; it only authenticates a few small handshake messages,
 * so a plain portable implementation is fast enough.  Checked against the
 * FIPS 180 and RFC 4231 vectors in tests/unit/test_bootstrap.c.
 */
#include "bootstrap.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t blk[64])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
               (uint32_t)blk[4 * i + 2] << 8 | (uint32_t)blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + S1 + ch + K[i] + w[i];
        uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        hh = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void plx_sha256_init(plx_sha256_ctx_t *c)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(c->h, iv, sizeof iv);
    c->bytes = 0;
    c->fill = 0;
}

void plx_sha256_update(plx_sha256_ctx_t *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    c->bytes += len;
    if (c->fill) {
        size_t take = 64 - c->fill < len ? 64 - c->fill : len;
        memcpy(c->buf + c->fill, p, take);
        c->fill += take; p += take; len -= take;
        if (c->fill < 64) return;
        compress(c->h, c->buf);
        c->fill = 0;
    }
    for (; len >= 64; p += 64, len -= 64) compress(c->h, p);
    if (len) { memcpy(c->buf, p, len); c->fill = len; }
}

void plx_sha256_final(plx_sha256_ctx_t *c, uint8_t out[32])
{
    uint64_t bits = c->bytes * 8;
    uint8_t pad[72] = { 0x80 };
    /* pad to 56 mod 64, then the 64-bit big-endian bit length */
    size_t padlen = (c->fill < 56) ? 56 - c->fill : 120 - c->fill;
    for (int i = 0; i < 8; i++) pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    plx_sha256_update(c, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
    memset(c, 0, sizeof *c);   /* do not leave key-derived state around */
}

void plx_sha256(const uint8_t *msg, size_t len, uint8_t out[32])
{
    plx_sha256_ctx_t c;
    plx_sha256_init(&c);
    plx_sha256_update(&c, msg, len);
    plx_sha256_final(&c, out);
}

void plx_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen,
                     uint8_t out[32])
{
    uint8_t k[64] = { 0 }, pad[64], inner[32];
    if (keylen > 64) plx_sha256(key, keylen, k);   /* RFC 2104: long keys are hashed */
    else if (keylen) memcpy(k, key, keylen);
    plx_sha256_ctx_t c;
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    plx_sha256_init(&c);
    plx_sha256_update(&c, pad, 64);
    plx_sha256_update(&c, msg, msglen);
    plx_sha256_final(&c, inner);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    plx_sha256_init(&c);
    plx_sha256_update(&c, pad, 64);
    plx_sha256_update(&c, inner, 32);
    plx_sha256_final(&c, out);
    /* volatile-free wipe is good enough here: the key also lives in the params */
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
}

int plx_ct_memcmp(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = a, *y = b;
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++) d |= x[i] ^ y[i];
    return d != 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int plx_hex_decode(const char *hex, uint8_t *out, size_t n)
{
    if (!hex || strlen(hex) != 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void plx_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char dig[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = dig[in[i] >> 4];
        out[2 * i + 1] = dig[in[i] & 15];
    }
    out[2 * n] = '\0';
}
