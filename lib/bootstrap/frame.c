/*
 * lib/bootstrap/frame.c — the bootstrap wire format (header pack/unpack and
 * validation, the handshake MAC) and small helpers shared by the client,
 * the server and plexusrun (clock, randomness, sockets, address text).
 *
 * plx_boot_hdr_check is the single gate every received header passes
 * through on both sides, so a bad magic, unknown type, rank out of range or
 * oversized length is refused before any payload byte is buffered.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "boot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void plx_boot_hdr_pack(const plx_boot_hdr_t *h, uint8_t out[PLX_BOOT_HDR_BYTES])
{
    plx_put_be32(out, h->magic);
    out[4] = (uint8_t)(h->type >> 8);  out[5] = (uint8_t)h->type;
    out[6] = (uint8_t)(h->flags >> 8); out[7] = (uint8_t)h->flags;
    plx_put_be32(out + 8, h->rank);
    plx_put_be32(out + 12, h->seq);
    plx_put_be32(out + 16, h->len);
}

void plx_boot_hdr_unpack(const uint8_t in[PLX_BOOT_HDR_BYTES], plx_boot_hdr_t *h)
{
    h->magic = plx_get_be32(in);
    h->type = (uint16_t)(in[4] << 8 | in[5]);
    h->flags = (uint16_t)(in[6] << 8 | in[7]);
    h->rank = plx_get_be32(in + 8);
    h->seq = plx_get_be32(in + 12);
    h->len = plx_get_be32(in + 16);
}

void plx_boot_hdr_make(uint8_t out[PLX_BOOT_HDR_BYTES], uint16_t type, uint16_t flags,
                       uint32_t rank, uint32_t seq, uint32_t len)
{
    plx_boot_hdr_t h = { PLX_BOOT_MAGIC, type, flags, rank, seq, len };
    plx_boot_hdr_pack(&h, out);
}

int plx_boot_hdr_check(const plx_boot_hdr_t *h, int nranks, size_t max_len, const char **why)
{
    const char *r = NULL;
    if (!h) r = "no header";
    else if (h->magic != PLX_BOOT_MAGIC) r = "bad magic (not a plexus bootstrap frame)";
    else if (h->type < PLX_BOOT_CHALLENGE || h->type > PLX_BOOT_TYPE_MAX) r = "unknown frame type";
    else if (nranks <= 0 || h->rank >= (uint32_t)nranks) r = "rank out of range";
    else if (h->len > max_len) r = "frame too long (oversized length)";
    else {
        /* each type has its own length and flags rule */
        switch (h->type) {
        case PLX_BOOT_CHALLENGE:
            if (h->len != PLX_BOOT_NONCE_BYTES) r = "bad CHALLENGE length";
            else if (h->flags != PLX_BOOT_PROTO_VERSION) r = "unsupported protocol version";
            break;
        case PLX_BOOT_AUTH:
            if (h->len != PLX_BOOT_AUTH_BYTES) r = "bad AUTH length";
            break;
        case PLX_BOOT_WELCOME:
            if (h->len != PLX_BOOT_MAC_BYTES) r = "bad WELCOME length";
            break;
        case PLX_BOOT_REFUSE:
            if (h->len > PLX_BOOT_REASON_MAX) r = "REFUSE reason too long";
            break;
        case PLX_BOOT_ALLGATHER:
            if (h->len > PLX_BOOT_MAX_BLOB) r = "ALLGATHER contribution too long";
            break;
        case PLX_BOOT_BARRIER:
        case PLX_BOOT_BYE:
            if (h->len != 0) r = "BARRIER/BYE must be empty";
            break;
        case PLX_BOOT_BCAST:
            if (h->len < 8 || h->len > 8 + PLX_BOOT_MAX_BLOB) r = "bad BCAST length";
            break;
        case PLX_BOOT_RESULT:
            if (h->len > PLX_BOOT_MAX_TOTAL) r = "RESULT too long";
            else if (h->flags != PLX_BOOT_ALLGATHER && h->flags != PLX_BOOT_BARRIER &&
                     h->flags != PLX_BOOT_BCAST) r = "RESULT of an unknown collective";
            break;
        case PLX_BOOT_ERROR:
            if (h->len < 4 || h->len > 4 + PLX_BOOT_REASON_MAX) r = "bad ERROR length";
            break;
        }
        if (!r && h->type != PLX_BOOT_CHALLENGE && h->type != PLX_BOOT_RESULT && h->flags != 0)
            r = "unexpected flags";
    }
    if (why) *why = r ? r : "ok";
    return r ? -1 : 0;
}

void plx_boot_auth_mac(const uint8_t key[PLX_BOOT_KEY_BYTES], char role,
                       const uint8_t snonce[PLX_BOOT_NONCE_BYTES],
                       const uint8_t cnonce[PLX_BOOT_NONCE_BYTES],
                       uint32_t rank, uint32_t size, uint8_t out[PLX_BOOT_MAC_BYTES])
{
    /* Distinct labels per direction: a server proof can never be replayed
     * as a client proof (reflection) and vice versa.  Both nonces are in
     * both, so neither side can be answered from an old recording. */
    static const char lc[] = "plexus-boot-v1 client", ls[] = "plexus-boot-v1 server";
    uint8_t msg[sizeof lc - 1 + 2 * PLX_BOOT_NONCE_BYTES + 8];
    size_t n = sizeof lc - 1;
    memcpy(msg, role == 's' ? ls : lc, n);
    memcpy(msg + n, snonce, PLX_BOOT_NONCE_BYTES); n += PLX_BOOT_NONCE_BYTES;
    memcpy(msg + n, cnonce, PLX_BOOT_NONCE_BYTES); n += PLX_BOOT_NONCE_BYTES;
    plx_put_be32(msg + n, rank); n += 4;
    plx_put_be32(msg + n, size); n += 4;
    plx_hmac_sha256(key, PLX_BOOT_KEY_BYTES, msg, n, out);
}

/* ---- shared helpers ---- */

int64_t plx_boot_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int plx_boot_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += r; n -= (size_t)r;
    }
    return 0;
}

void plx_boot_addr_str(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen)
{
    char h[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *s4 = (const void *)sa;
        inet_ntop(AF_INET, &s4->sin_addr, h, sizeof h);
        port = ntohs(s4->sin_port);
        snprintf(out, outlen, "%s:%d", h, port);
    } else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *s6 = (const void *)sa;
        inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof h);
        port = ntohs(s6->sin6_port);
        snprintf(out, outlen, "[%s]:%d", h, port);
    } else {
        snprintf(out, outlen, "(unknown address family %d)", sa->sa_family);
    }
}

int plx_boot_split_hostport(const char *s, char *host, size_t hostlen, int *port,
                            const char **why)
{
    const char *colon, *hs, *he;
    if (!s || !*s) { *why = "empty"; return -1; }
    if (s[0] == '[') {   /* [v6addr]:port */
        hs = s + 1;
        he = strchr(hs, ']');
        if (!he || he[1] != ':') { *why = "expected [address]:port"; return -1; }
        colon = he + 1;
    } else {
        hs = s;
        colon = strrchr(s, ':');
        if (!colon) { *why = "expected host:port"; return -1; }
        he = colon;
        if (memchr(hs, ':', (size_t)(he - hs))) { *why = "IPv6 address must be written [address]:port"; return -1; }
    }
    size_t hl = (size_t)(he - hs);
    if (hl == 0) { *why = "empty host"; return -1; }
    if (hl >= hostlen) { *why = "host name too long"; return -1; }
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || errno || p < 1 || p > 65535) {
        *why = "port must be 1..65535";
        return -1;
    }
    memcpy(host, hs, hl);
    host[hl] = '\0';
    *port = (int)p;
    return 0;
}

int plx_boot_sock_setup(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    int one = 1;
    /* small request/response frames: do not let Nagle delay them */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}
