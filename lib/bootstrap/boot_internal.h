/*
 * lib/bootstrap/boot_internal.h — helpers shared by the bootstrap client,
 * server and plexusrun: clock, randomness, socket set-up, address text.
 * Not installed; not part of the library's interface.
 */
#ifndef PLX_BOOT_INTERNAL_H
#define PLX_BOOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "bootstrap.h"

/* CLOCK_MONOTONIC in milliseconds. */
int64_t plx_boot_now_ms(void);

/* Fill buf with n bytes from getrandom(); 0 on success, -1 (errno) if the
 * kernel cannot give them. */
int plx_boot_random(void *buf, size_t n);

/* "1.2.3.4:5" or "[::1]:5" for a socket address. */
void plx_boot_addr_str(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen);

/* Split "host:port" / "[v6]:port" into host (size hostlen) and port.
 * 0 on success, -1 with a static reason in *why. */
int plx_boot_split_hostport(const char *s, char *host, size_t hostlen, int *port,
                            const char **why);

/* Make fd non-blocking (and TCP_NODELAY where it applies); 0 or -1. */
int plx_boot_sock_setup(int fd);

/* Frame text helpers: build a 20-byte header in out. */
void plx_boot_hdr_make(uint8_t out[PLX_BOOT_HDR_BYTES], uint16_t type, uint16_t flags,
                       uint32_t rank, uint32_t seq, uint32_t len);

static inline void plx_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t plx_get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif /* PLX_BOOT_INTERNAL_H */
