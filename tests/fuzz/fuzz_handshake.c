/*
 * tests/fuzz/fuzz_handshake.c — libFuzzer harness for the bootstrap
 * server's connection handling (lib/bootstrap/server.c): a real server on
 * 127.0.0.1 for a 2-rank job receives the input over a real TCP connection.
 *
 * Input byte 0, bit 0: 0 = a stranger, who sends the rest raw (the server
 * must refuse or drop it); 1 = rank (byte 1 & 1) first authenticating
 * properly with the job key (CHALLENGE, AUTH, WELCOME), then sending the
 * rest raw, so the frames of an admitted rank (collectives, goodbye,
 * garbage) are reached too.  The harness then half-closes and steps the
 * server until it closes the connection; a fresh server per input keeps runs
 * independent.  A crash, a sanitizer report or a server that never lets go
 * of the connection (abort after 2 s) is a finding.
 */
#include "bootstrap/bootstrap.h"
#include "bootstrap/boot_internal.h"
#include "core/log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const uint8_t key[PLX_BOOT_KEY_BYTES] = "fuzzing key, 32 bytes long.....";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    plx_log_level = PLX_LOG_NONE;
    return 0;
}

/* Read exactly n bytes, stepping the server meanwhile; -1 on EOF/timeout. */
static int read_n(plx_boot_server_t *s, int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    for (int i = 0; got < n && i < 2000; i++) {
        plx_boot_server_step(s, 0);
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 1) <= 0) continue;
        ssize_t r = recv(fd, buf + got, n - got, 0);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return got == n ? 0 : -1;
}

static int authenticate(plx_boot_server_t *s, int fd, uint32_t rank)
{
    uint8_t hdr[PLX_BOOT_HDR_BYTES], snonce[PLX_BOOT_NONCE_BYTES];
    plx_boot_hdr_t h;
    if (read_n(s, fd, hdr, sizeof hdr) < 0) return -1;
    plx_boot_hdr_unpack(hdr, &h);
    if (h.type != PLX_BOOT_CHALLENGE || h.len != sizeof snonce || read_n(s, fd, snonce, sizeof snonce) < 0)
        abort();   /* the server's own first frame is wrong */
    uint8_t auth[PLX_BOOT_HDR_BYTES + PLX_BOOT_AUTH_BYTES];
    plx_boot_hdr_make(auth, PLX_BOOT_AUTH, 0, rank, 0, PLX_BOOT_AUTH_BYTES);
    uint8_t *p = auth + PLX_BOOT_HDR_BYTES;
    p[0] = 0, p[1] = 0, p[2] = 0, p[3] = 2;   /* size 2, big-endian */
    memset(p + 4, 0x5a, PLX_BOOT_NONCE_BYTES);
    plx_boot_auth_mac(key, 'c', snonce, p + 4, rank, 2, p + 4 + PLX_BOOT_NONCE_BYTES);
    if (send(fd, auth, sizeof auth, MSG_NOSIGNAL) != (ssize_t)sizeof auth) return -1;
    uint8_t welcome[PLX_BOOT_HDR_BYTES + PLX_BOOT_MAC_BYTES];
    if (read_n(s, fd, welcome, sizeof welcome) < 0) abort();   /* a correct rank was not admitted */
    plx_boot_hdr_unpack(welcome, &h);
    if (h.type != PLX_BOOT_WELCOME) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    plx_boot_server_t *s = NULL;
    int port = 0;
    if (plx_boot_server_create("127.0.0.1", 0, 2, key, &s, &port) != PLX_SUCCESS) return 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        /* out of sockets or ports on a busy machine: not the server's fault */
        if (fd >= 0) close(fd);
        plx_boot_server_destroy(s);
        return 0;
    }
    int ok = !(data[0] & 1) || authenticate(s, fd, data[1] & 1) == 0;
    /* the rest, in pieces as a slow peer would send them */
    size_t off = 2;
    while (ok && off < size) {
        size_t n = size - off < 512 ? size - off : 512;
        if (send(fd, data + off, n, MSG_NOSIGNAL | MSG_DONTWAIT) <= 0) break;
        off += n;
        plx_boot_server_step(s, 0);
    }
    shutdown(fd, SHUT_WR);
    /* the server must let go of the connection: EOF (or reset) within 2 s */
    uint8_t sink[4096];
    int closed = 0;
    for (int i = 0; i < 2000 && !closed; i++) {
        plx_boot_server_step(s, 0);
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 1) <= 0) continue;
        closed = recv(fd, sink, sizeof sink, 0) <= 0;
    }
    if (!closed) abort();
    close(fd);
    plx_boot_server_destroy(s);
    return 0;
}
