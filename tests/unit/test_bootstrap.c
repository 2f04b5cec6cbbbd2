/*
 * tests/unit/test_bootstrap.c — Check tests of the bootstrap: SHA-256 and
 * HMAC-SHA256 against FIPS 180 / RFC 4231 vectors, frame header checks,
 * the PLX_* environment, and a real server on 127.0.0.1:0 (in a thread)
 * with real clients (threads) doing allgather / barrier / bcast while
 * strangers, wrong keys, garbage, truncated and oversized frames, silent
 * connections, duplicate ranks and a fake server are refused.  Every test
 * that waits has a tcase timeout, so a hang is a failure, not a stall.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/boot_internal.h"
#include "core/log.h"

/* ---- helpers ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void msleep(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static void hex32(const uint8_t *d, char out[65]) { plx_hex_encode(d, 32, out); }

static void sha_hex(const void *msg, size_t len, char out[65])
{
    uint8_t h[32];
    plx_sha256(msg, len, h);
    hex32(h, out);
}

static const uint8_t KEY[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

static plx_boot_params_t params(int rank, int size, int port, double timeout)
{
    plx_boot_params_t p;
    memset(&p, 0, sizeof p);
    p.rank = rank;
    p.size = size;
    snprintf(p.host, sizeof p.host, "127.0.0.1");
    p.port = port;
    memcpy(p.key, KEY, 32);
    snprintf(p.job_id, sizeof p.job_id, "test");
    p.timeout_s = timeout;
    return p;
}

/* A port nothing listens on (bound, then closed). */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t l = sizeof a;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static plx_boot_server_t *start_server(int nranks, int *port)
{
    plx_boot_server_t *s = NULL;
    ck_assert_int_eq(plx_boot_server_create("127.0.0.1", 0, nranks, KEY, &s, port), PLX_SUCCESS);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_gt(*port, 0);
    return s;
}

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void raw_send(int fd, const void *p, size_t n)
{
    ck_assert_int_eq(send(fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Read exactly n bytes within ms; returns bytes read (short on EOF/timeout). */
static size_t raw_read(int fd, void *buf, size_t n, int ms)
{
    size_t got = 0;
    double end = now_s() + ms / 1000.0;
    while (got < n) {
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0) break;
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, left) <= 0) break;
        ssize_t r = recv(fd, (char *)buf + got, n - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* The frame the server sends first, then EOF-or-REFUSE after misbehaving:
 * returns 1 if the server closed the connection (EOF) within ms. */
static int raw_closed_within(int fd, int ms)
{
    char buf[512];
    double end = now_s() + ms / 1000.0;
    for (;;) {
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0) return 0;
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, left) <= 0) return 0;
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r <= 0) return 1;
    }
}

/* A hand-made authenticated client: returns the fd once WELCOMEd, or -1. */
static int raw_auth(int port, const uint8_t key[32], int rank, int size)
{
    int fd = raw_connect(port);
    uint8_t hb[PLX_BOOT_HDR_BYTES], sn[32], cn[32] = { 9 }, msg[PLX_BOOT_HDR_BYTES + PLX_BOOT_AUTH_BYTES];
    plx_boot_hdr_t h;
    if (raw_read(fd, hb, sizeof hb, 5000) != sizeof hb) { close(fd); return -1; }
    plx_boot_hdr_unpack(hb, &h);
    ck_assert_int_eq(h.type, PLX_BOOT_CHALLENGE);
    ck_assert_uint_eq(raw_read(fd, sn, 32, 5000), 32);
    plx_boot_hdr_make(msg, PLX_BOOT_AUTH, 0, (uint32_t)rank, 0, PLX_BOOT_AUTH_BYTES);
    plx_put_be32(msg + PLX_BOOT_HDR_BYTES, (uint32_t)size);
    memcpy(msg + PLX_BOOT_HDR_BYTES + 4, cn, 32);
    plx_boot_auth_mac(key, 'c', sn, cn, (uint32_t)rank, (uint32_t)size, msg + PLX_BOOT_HDR_BYTES + 36);
    raw_send(fd, msg, sizeof msg);
    if (raw_read(fd, hb, sizeof hb, 5000) != sizeof hb) { close(fd); return -1; }
    plx_boot_hdr_unpack(hb, &h);
    uint8_t body[300];
    if (h.len > sizeof body || raw_read(fd, body, h.len, 5000) != h.len || h.type != PLX_BOOT_WELCOME) {
        close(fd);
        return -1;
    }
    uint8_t want[32];
    plx_boot_auth_mac(key, 's', sn, cn, (uint32_t)rank, (uint32_t)size, want);
    ck_assert_mem_eq(want, body, 32);
    return fd;
}

/* ---- a job of client threads ---- */

typedef struct cl {
    pthread_t th;
    plx_boot_params_t p;
    int mode;               /* what the thread does, see client_main */
    int rounds;
    plx_status_t st;        /* first failure, or PLX_SUCCESS */
    char where[160];        /* which step failed */
    int delay_ms;
} cl_t;

enum { M_FULL, M_CONNECT_ONLY, M_BARRIER, M_ALLGATHER4, M_ALLGATHER8 };

#define CL_FAIL(c, s, ...) do { (c)->st = (s); snprintf((c)->where, sizeof (c)->where, __VA_ARGS__); goto out; } while (0)

static void *client_main(void *arg)
{
    cl_t *c = arg;
    plx_boot_t *b = NULL;
    int r = c->p.rank, n = c->p.size;
    c->st = PLX_SUCCESS;
    if (c->delay_ms) msleep(c->delay_ms);
    plx_status_t st = plx_boot_connect(&c->p, &b);
    if (st) CL_FAIL(c, st, "connect");
    if (c->mode == M_CONNECT_ONLY) goto out;
    if (c->mode == M_BARRIER) {
        st = plx_boot_barrier(b);
        if (st) CL_FAIL(c, st, "barrier: %s", plx_boot_last_error(b));
        goto out;
    }
    if (c->mode == M_ALLGATHER4 || c->mode == M_ALLGATHER8) {
        uint8_t mine[8] = { (uint8_t)r }, all[8 * 64];
        st = plx_boot_allgather(b, mine, all, c->mode == M_ALLGATHER4 ? 4 : 8);
        if (st) CL_FAIL(c, st, "allgather: %s", plx_boot_last_error(b));
        goto out;
    }
    for (int k = 0; k < (c->rounds ? c->rounds : 1); k++) {
        static const size_t lens[] = { 0, 1, 13, 4096, 65536 };
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t len = lens[li];
            uint8_t *mine = malloc(len + 1), *all = malloc(len * (size_t)n + 1);
            for (size_t i = 0; i < len; i++) mine[i] = (uint8_t)(r * 31 + (int)i + k);
            st = plx_boot_allgather(b, mine, all, len);
            int bad = 0;
            for (int q = 0; q < n && !st; q++)
                for (size_t i = 0; i < len; i++)
                    if (all[(size_t)q * len + i] != (uint8_t)(q * 31 + (int)i + k)) bad = 1;
            free(mine);
            free(all);
            if (st) CL_FAIL(c, st, "allgather %zu: %s", len, plx_boot_last_error(b));
            if (bad) CL_FAIL(c, PLX_ERR_INTERNAL, "allgather %zu: wrong data", len);
        }
        st = plx_boot_barrier(b);
        if (st) CL_FAIL(c, st, "barrier: %s", plx_boot_last_error(b));
        for (int root = 0; root < n; root++) {
            char buf[64];
            memset(buf, 0, sizeof buf);
            if (r == root) snprintf(buf, sizeof buf, "from root %d round %d", root, k);
            st = plx_boot_bcast(b, buf, sizeof buf, root);
            char want[64];
            snprintf(want, sizeof want, "from root %d round %d", root, k);
            if (st) CL_FAIL(c, st, "bcast %d: %s", root, plx_boot_last_error(b));
            if (strcmp(buf, want)) CL_FAIL(c, PLX_ERR_INTERNAL, "bcast %d: got '%s'", root, buf);
        }
        /* in place allgather: mine points into all */
        uint32_t all[64];
        all[r] = (uint32_t)(1000 + r);
        st = plx_boot_allgather(b, &all[r], all, sizeof(uint32_t));
        if (st) CL_FAIL(c, st, "allgather in place: %s", plx_boot_last_error(b));
        for (int q = 0; q < n; q++)
            if (all[q] != (uint32_t)(1000 + q)) CL_FAIL(c, PLX_ERR_INTERNAL, "in place slot %d", q);
    }
out:
    plx_boot_close(b);
    return NULL;
}

static void job_start(cl_t *cs, int n, int port, int mode, double timeout)
{
    for (int r = 0; r < n; r++) {
        cs[r].p = params(r, n, port, timeout);
        cs[r].mode = mode;
        ck_assert_int_eq(pthread_create(&cs[r].th, NULL, client_main, &cs[r]), 0);
    }
}

static void job_join(cl_t *cs, int n, plx_status_t want)
{
    for (int r = 0; r < n; r++) pthread_join(cs[r].th, NULL);
    for (int r = 0; r < n; r++)
        ck_assert_msg(cs[r].st == want, "rank %d: status %d (want %d) at %s", r, cs[r].st, want,
                      cs[r].where);
}

/* ========================================================================= */
/* SHA-256 / HMAC                                                            */

START_TEST(sha256_fips_vectors)
{
    char h[65];
    sha_hex("abc", 3, h);
    ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha_hex("", 0, h);
    ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_hex(m448, strlen(m448), h);
    ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                       "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    sha_hex(m896, strlen(m896), h);
    ck_assert_str_eq(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* one million 'a', fed in odd-sized pieces through the incremental API */
    static uint8_t a[1000000];
    memset(a, 'a', sizeof a);
    sha_hex(a, sizeof a, h);
    ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    plx_sha256_ctx_t c;
    plx_sha256_init(&c);
    size_t off = 0, step = 1;
    while (off < sizeof a) {
        size_t n = step < sizeof a - off ? step : sizeof a - off;
        plx_sha256_update(&c, a + off, n);
        off += n;
        step = step * 3 % 1021 + 1;
    }
    uint8_t d[32];
    plx_sha256_final(&c, d);
    hex32(d, h);
    ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* lengths around the padding boundary agree between one-shot and bytewise */
    for (size_t len = 50; len < 140; len++) {
        uint8_t x[32], y[32];
        plx_sha256(a, len, x);
        plx_sha256_init(&c);
        for (size_t i = 0; i < len; i++) plx_sha256_update(&c, a + i, 1);
        plx_sha256_final(&c, y);
        ck_assert_mem_eq(x, y, 32);
    }
}
END_TEST

static void unhex(const char *s, uint8_t *out, size_t *n)
{
    *n = strlen(s) / 2;
    ck_assert_int_eq(plx_hex_decode(s, out, *n), 0);
}

START_TEST(hmac_rfc4231_vectors)
{
    static const struct { const char *key, *data, *mac; size_t maclen; } v[] = {
        { "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32 },
        { "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 32 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
          "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 32 },
        { "0102030405060708090a0b0c0d0e0f10111213141516171819",
          "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
          "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 32 },
        { "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", "546573742057697468205472756e636174696f6e",
          "a3b6167473100ee06e0c796c2955552b", 16 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 32 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
          "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 32 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint8_t key[200], data[200], mac[32];
        size_t kl, dl;
        char got[65];
        unhex(v[i].key, key, &kl);
        unhex(v[i].data, data, &dl);
        plx_hmac_sha256(key, kl, data, dl, mac);
        hex32(mac, got);
        got[2 * v[i].maclen] = '\0';
        ck_assert_msg(strcmp(got, v[i].mac) == 0, "RFC 4231 case %zu: %s", i + 1, got);
    }
}
END_TEST

START_TEST(hex_and_ct_compare)
{
    uint8_t b[4];
    ck_assert_int_eq(plx_hex_decode("00fFa9", b, 3), 0);
    ck_assert_int_eq(b[1], 0xff);
    ck_assert_int_eq(plx_hex_decode("00ff", b, 3), -1);
    ck_assert_int_eq(plx_hex_decode("00fg00", b, 3), -1);
    ck_assert_int_eq(plx_ct_memcmp("abc", "abc", 3), 0);
    ck_assert_int_ne(plx_ct_memcmp("abc", "abd", 3), 0);
}
END_TEST

/* ========================================================================= */
/* frames                                                                    */

static plx_boot_hdr_t hdr(int type, int flags, uint32_t rank, uint32_t len)
{
    plx_boot_hdr_t h = { PLX_BOOT_MAGIC, (uint16_t)type, (uint16_t)flags, rank, 7, len };
    return h;
}

START_TEST(hdr_pack_roundtrip)
{
    plx_boot_hdr_t h = { PLX_BOOT_MAGIC, PLX_BOOT_BCAST, 0, 0x01020304, 0xa0b0c0d0, 77 }, g;
    uint8_t w[PLX_BOOT_HDR_BYTES];
    plx_boot_hdr_pack(&h, w);
    ck_assert_int_eq(w[0], 'P');
    ck_assert_int_eq(w[3], 'B');
    ck_assert_int_eq(w[8], 1);   /* big-endian on the wire */
    plx_boot_hdr_unpack(w, &g);
    ck_assert_mem_eq(&h, &g, sizeof h);
}
END_TEST

START_TEST(hdr_check_good)
{
    const char *why;
    plx_boot_hdr_t good[] = {
        hdr(PLX_BOOT_CHALLENGE, PLX_BOOT_PROTO_VERSION, 0, 32),
        hdr(PLX_BOOT_AUTH, 0, 3, PLX_BOOT_AUTH_BYTES),
        hdr(PLX_BOOT_WELCOME, 0, 3, 32),
        hdr(PLX_BOOT_REFUSE, 0, 0, 10),
        hdr(PLX_BOOT_ALLGATHER, 0, 1, 0),
        hdr(PLX_BOOT_ALLGATHER, 0, 1, PLX_BOOT_MAX_BLOB),
        hdr(PLX_BOOT_BARRIER, 0, 2, 0),
        hdr(PLX_BOOT_BCAST, 0, 2, 8),
        hdr(PLX_BOOT_BCAST, 0, 2, 8 + 100),
        hdr(PLX_BOOT_RESULT, PLX_BOOT_ALLGATHER, 2, 4000),
        hdr(PLX_BOOT_RESULT, PLX_BOOT_BARRIER, 2, 0),
        hdr(PLX_BOOT_ERROR, 0, 2, 4),
        hdr(PLX_BOOT_BYE, 0, 3, 0),
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(plx_boot_hdr_check(&good[i], 4, PLX_BOOT_MAX_TOTAL, &why) == 0,
                      "good frame %zu refused: %s", i, why);
    ck_assert_str_eq(why, "ok");
}
END_TEST

START_TEST(hdr_check_bad)
{
    const char *why = NULL;
    plx_boot_hdr_t h = hdr(PLX_BOOT_AUTH, 0, 1, PLX_BOOT_AUTH_BYTES);
    h.magic = 0x47455420;   /* "GET " */
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 1000, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "magic"));

    h = hdr(PLX_BOOT_ALLGATHER, 0, 1, 5000);   /* oversized for the caller's limit */
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 4096, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "long"));
    h = hdr(PLX_BOOT_ALLGATHER, 0, 1, 0xffffffffu);
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, PLX_BOOT_MAX_TOTAL, &why), -1);
    h = hdr(PLX_BOOT_ALLGATHER, 0, 1, PLX_BOOT_MAX_BLOB + 1);   /* over the type's own limit */
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, PLX_BOOT_MAX_TOTAL, &why), -1);

    h = hdr(PLX_BOOT_BARRIER, 0, 4, 0);        /* rank == nranks */
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 1000, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "rank"));
    h = hdr(PLX_BOOT_BARRIER, 0, 0xffffffffu, 0);
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 1000, &why), -1);

    h = hdr(0, 0, 0, 0);                        /* unknown types */
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 1000, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "type"));
    h = hdr(PLX_BOOT_TYPE_MAX + 1, 0, 0, 0);
    ck_assert_int_eq(plx_boot_hdr_check(&h, 4, 1000, &why), -1);

    /* per-type length and flags rules */
    plx_boot_hdr_t bad[] = {
        hdr(PLX_BOOT_CHALLENGE, PLX_BOOT_PROTO_VERSION, 0, 31),
        hdr(PLX_BOOT_CHALLENGE, 99, 0, 32),
        hdr(PLX_BOOT_AUTH, 0, 0, PLX_BOOT_AUTH_BYTES - 1),
        hdr(PLX_BOOT_WELCOME, 0, 0, 0),
        hdr(PLX_BOOT_REFUSE, 0, 0, PLX_BOOT_REASON_MAX + 1),
        hdr(PLX_BOOT_BARRIER, 0, 0, 1),
        hdr(PLX_BOOT_BYE, 0, 0, 4),
        hdr(PLX_BOOT_BCAST, 0, 0, 7),
        hdr(PLX_BOOT_RESULT, 0, 0, 4),
        hdr(PLX_BOOT_ERROR, 0, 0, 2),
        hdr(PLX_BOOT_BARRIER, 1, 0, 0),
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(plx_boot_hdr_check(&bad[i], 4, PLX_BOOT_MAX_TOTAL, &why) == -1,
                      "bad frame %zu accepted", i);
    ck_assert_int_eq(plx_boot_hdr_check(NULL, 4, 10, &why), -1);
    h = hdr(PLX_BOOT_BARRIER, 0, 0, 0);
    ck_assert_int_eq(plx_boot_hdr_check(&h, 0, 10, NULL), -1);   /* no ranks at all */
}
END_TEST

START_TEST(split_hostport)
{
    char host[64];
    int port;
    const char *why;
    ck_assert_int_eq(plx_boot_split_hostport("127.0.0.1:5000", host, sizeof host, &port, &why), 0);
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_int_eq(port, 5000);
    ck_assert_int_eq(plx_boot_split_hostport("[::1]:7", host, sizeof host, &port, &why), 0);
    ck_assert_str_eq(host, "::1");
    ck_assert_int_eq(plx_boot_split_hostport("node-3.cluster:65535", host, sizeof host, &port, &why), 0);
    const char *bad[] = { "", "host", "host:", ":5", "h:0", "h:65536", "h:5x", "::1:5", "[::1]5" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(plx_boot_split_hostport(bad[i], host, sizeof host, &port, &why) == -1,
                      "'%s' accepted", bad[i]);
}
END_TEST

/* ========================================================================= */
/* environment                                                               */

static const char KEYHEX[] = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";

static void clear_env(void)
{
    const char *v[] = { "PLX_RANK", "PLX_SIZE", "PLX_BOOTSTRAP", "PLX_JOB_KEY", "PLX_JOB_ID",
                        "PLX_TIMEOUT", "PLX_BOOTSTRAP_SERVE" };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) unsetenv(v[i]);
}

static void set_good_env(const char *rank)
{
    clear_env();
    setenv("PLX_RANK", rank, 1);
    setenv("PLX_SIZE", "4", 1);
    setenv("PLX_BOOTSTRAP", "127.0.0.1:5555", 1);
    setenv("PLX_JOB_KEY", KEYHEX, 1);
}

START_TEST(env_good)
{
    plx_boot_params_t p;
    char err[256];
    set_good_env("0");
    ck_assert_int_eq(plx_boot_params_from_env(&p, err, sizeof err), PLX_SUCCESS);
    ck_assert_int_eq(p.rank, 0);
    ck_assert_int_eq(p.size, 4);
    ck_assert_str_eq(p.host, "127.0.0.1");
    ck_assert_int_eq(p.port, 5555);
    ck_assert_mem_eq(p.key, KEY, 32);
    ck_assert_double_eq(p.timeout_s, 300.0);
    ck_assert_int_eq(p.serve, 1);            /* rank 0 serves by default */
    ck_assert_int_eq(p.singleton, 0);
    ck_assert_int_eq(strlen(p.job_id), 8);   /* derived from the key... */
    char id0[32];
    strcpy(id0, p.job_id);
    set_good_env("2");
    ck_assert_int_eq(plx_boot_params_from_env(&p, err, sizeof err), PLX_SUCCESS);
    ck_assert_str_eq(p.job_id, id0);         /* ...so every rank derives the same */
    ck_assert_int_eq(p.serve, 0);
    ck_assert_ptr_null(strstr(id0, "0102"));  /* and it is not the key itself */

    set_good_env("0");
    setenv("PLX_BOOTSTRAP_SERVE", "0", 1);
    setenv("PLX_JOB_ID", "job_7-a", 1);
    setenv("PLX_TIMEOUT", "2.5", 1);
    ck_assert_int_eq(plx_boot_params_from_env(&p, err, sizeof err), PLX_SUCCESS);
    ck_assert_int_eq(p.serve, 0);
    ck_assert_str_eq(p.job_id, "job_7-a");
    ck_assert_double_eq(p.timeout_s, 2.5);
}
END_TEST

START_TEST(env_bad)
{
    plx_boot_params_t p;
    char err[256];
    set_good_env("0");
    unsetenv("PLX_JOB_KEY");
    ck_assert_int_eq(plx_boot_params_from_env(&p, err, sizeof err), PLX_ERR_BOOTSTRAP);
    ck_assert_ptr_nonnull(strstr(err, "PLX_JOB_KEY"));

    static const struct { const char *var, *val; } bad[] = {
        { "PLX_RANK", "4" }, { "PLX_RANK", "-1" }, { "PLX_RANK", "1x" }, { "PLX_RANK", "" },
        { "PLX_SIZE", "0" }, { "PLX_SIZE", "99999999" },
        { "PLX_BOOTSTRAP", "localhost" }, { "PLX_BOOTSTRAP", "h:0" },
        { "PLX_JOB_KEY", "0102" }, { "PLX_JOB_KEY", "zz02030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20" },
        { "PLX_JOB_ID", "has/slash" }, { "PLX_JOB_ID", "" },
        { "PLX_JOB_ID", "0123456789012345678901234567890123" },
        { "PLX_TIMEOUT", "0" }, { "PLX_TIMEOUT", "-3" }, { "PLX_TIMEOUT", "abc" }, { "PLX_TIMEOUT", "inf" },
        { "PLX_BOOTSTRAP_SERVE", "yes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        set_good_env("1");
        setenv(bad[i].var, bad[i].val, 1);
        err[0] = '\0';
        ck_assert_msg(plx_boot_params_from_env(&p, err, sizeof err) == PLX_ERR_INVALID_ARG,
                      "%s='%s' accepted", bad[i].var, bad[i].val);
        ck_assert_msg(strstr(err, bad[i].var) != NULL, "message '%s' does not name %s", err, bad[i].var);
        ck_assert_ptr_null(strstr(err, "0a0b0c0d"));   /* the key is never echoed */
    }
}
END_TEST

START_TEST(env_singleton)
{
    plx_boot_params_t p;
    plx_boot_t *b;
    char err[256];
    clear_env();
    ck_assert_int_eq(plx_boot_params_from_env(&p, err, sizeof err), PLX_SUCCESS);
    ck_assert_int_eq(p.singleton, 1);
    ck_assert_int_eq(p.rank, 0);
    ck_assert_int_eq(p.size, 1);
    ck_assert_int_eq(strlen(p.job_id), 8);
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_SUCCESS);
    int x = 42, y = 0;
    ck_assert_int_eq(plx_boot_allgather(b, &x, &y, sizeof x), PLX_SUCCESS);
    ck_assert_int_eq(y, 42);
    ck_assert_int_eq(plx_boot_barrier(b), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_bcast(b, &x, sizeof x, 0), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_bcast(b, &x, sizeof x, 1), PLX_ERR_INVALID_ARG);
    plx_boot_close(b);
}
END_TEST

/* ========================================================================= */
/* a real server                                                             */

START_TEST(server_collectives)
{
    int port;
    plx_boot_server_t *s = start_server(4, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[4] = { { .rounds = 3 }, { .rounds = 3 }, { .rounds = 3 }, { .rounds = 3 } };
    cs[2].delay_ms = 200;   /* a late rank: the others wait for it */
    job_start(cs, 4, port, M_FULL, 20);
    job_join(cs, 4, PLX_SUCCESS);
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_eq(st.authenticated, 4);
    ck_assert_uint_eq(st.refused, 0);
    ck_assert_uint_eq(st.failed_ranks, 0);
    ck_assert_uint_eq(st.collectives, 3 * (5 + 1 + 4 + 1));
    plx_boot_server_destroy(s);
}
END_TEST

/* plexusrun drives the server from its own poll loop */
static void *step_loop(void *arg)
{
    plx_boot_server_t *s = arg;
    for (int i = 0; i < 2000; i++) {
        struct pollfd pf = { plx_boot_server_fd(s), POLLIN, 0 };
        int to = plx_boot_server_timeout_ms(s);
        poll(&pf, 1, to < 0 || to > 10 ? 10 : to);
        ck_assert_int_eq(plx_boot_server_step(s, 0), 0);
        plx_boot_server_stats_t st;
        plx_boot_server_get_stats(s, &st);
        if (st.collectives == 10) break;   /* 5 allgathers, barrier, 3 bcasts, in place */
    }
    return NULL;
}

START_TEST(server_outside_poll_loop)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    pthread_t th;
    pthread_create(&th, NULL, step_loop, s);
    cl_t cs[3] = { { .rounds = 1 }, { .rounds = 1 }, { .rounds = 1 } };
    job_start(cs, 3, port, M_FULL, 20);
    job_join(cs, 3, PLX_SUCCESS);
    pthread_join(th, NULL);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(server_refuses_wrong_key)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    /* the real rank 1 comes within the grace: the job is not failed */
    plx_boot_server_set_bad_key_grace(s, 60000);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[3] = { { .rounds = 2 }, { .rounds = 2 }, { .rounds = 2 } };
    cs[1].delay_ms = 300;   /* the impostor arrives first, as rank 1 */
    job_start(cs, 3, port, M_FULL, 20);
    plx_boot_params_t p = params(1, 3, port, 5);
    p.key[7] ^= 1;
    plx_boot_t *b = NULL;
    double t0 = now_s();
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_BOOTSTRAP);
    ck_assert_ptr_null(b);
    ck_assert_double_lt(now_s() - t0, 2.0);   /* refused, not timed out */
    job_join(cs, 3, PLX_SUCCESS);
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_eq(st.refused, 1);
    ck_assert_uint_eq(st.authenticated, 3);
    plx_boot_server_destroy(s);
}
END_TEST

/* A rank started with the wrong key: the others fail within the grace
 * (not at their 20 s timeout), and their message names the refused rank. */
START_TEST(refused_rank_fails_the_job)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    plx_boot_server_set_bad_key_grace(s, 500);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[3] = { { 0 } };
    double t0 = now_s();
    for (int r = 0; r < 3; r += 2) {   /* ranks 0 and 2 */
        cs[r].p = params(r, 3, port, 20);
        cs[r].mode = M_BARRIER;
        ck_assert_int_eq(pthread_create(&cs[r].th, NULL, client_main, &cs[r]), 0);
    }
    plx_boot_params_t p = params(1, 3, port, 5);
    p.key[3] ^= 0x40;
    plx_boot_t *b = NULL;
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_BOOTSTRAP);
    for (int r = 0; r < 3; r += 2) {
        pthread_join(cs[r].th, NULL);
        ck_assert_int_eq(cs[r].st, PLX_ERR_BOOTSTRAP);
        ck_assert_msg(strstr(cs[r].where, "rank 1 was refused") != NULL, "rank %d: %s", r,
                      cs[r].where);
    }
    ck_assert_double_lt(now_s() - t0, 10.0);
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(server_refuses_strangers)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    plx_boot_server_set_limits(s, 0, 3000);   /* drop silent connections after 3 s */
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);

    /* strangers first, so the real ranks have to get past them */
    int silent = raw_connect(port);            /* sends nothing at all */
    int half = raw_connect(port);              /* half a header, then nothing */
    raw_send(half, "PLXB\0\2", 6);
    int garbage = raw_connect(port);
    raw_send(garbage, "GET / HTTP/1.0\r\nHost: x\r\n\r\n", 27);
    int oversize = raw_connect(port);
    uint8_t h[PLX_BOOT_HDR_BYTES];
    plx_boot_hdr_make(h, PLX_BOOT_AUTH, 0, 0, 0, 1u << 30);
    raw_send(oversize, h, sizeof h);
    int outrange = raw_connect(port);
    plx_boot_hdr_make(h, PLX_BOOT_AUTH, 0, 3, 0, PLX_BOOT_AUTH_BYTES);
    raw_send(outrange, h, sizeof h);
    int wrongtype = raw_connect(port);         /* a collective before authenticating */
    plx_boot_hdr_make(h, PLX_BOOT_BARRIER, 0, 0, 1, 0);
    raw_send(wrongtype, h, sizeof h);
    int truncated = raw_connect(port);         /* a header promising 68 bytes, 10 sent, close */
    plx_boot_hdr_make(h, PLX_BOOT_AUTH, 0, 0, 0, PLX_BOOT_AUTH_BYTES);
    raw_send(truncated, h, sizeof h);
    raw_send(truncated, "0123456789", 10);
    close(truncated);

    cl_t cs[3] = { { .rounds = 2 }, { .rounds = 2 }, { .rounds = 2 } };
    double t0 = now_s();
    job_start(cs, 3, port, M_FULL, 20);
    job_join(cs, 3, PLX_SUCCESS);
    /* the ranks did not wait for the silent strangers to time out */
    ck_assert_double_lt(now_s() - t0, 2.5);

    ck_assert_int_eq(raw_closed_within(garbage, 2000), 1);
    ck_assert_int_eq(raw_closed_within(oversize, 2000), 1);
    ck_assert_int_eq(raw_closed_within(outrange, 2000), 1);
    ck_assert_int_eq(raw_closed_within(wrongtype, 2000), 1);
    ck_assert_int_eq(raw_closed_within(silent, 6000), 1);   /* timed out */
    ck_assert_int_eq(raw_closed_within(half, 6000), 1);

    /* and the server still serves a new round afterwards */
    cl_t cs2[3] = { { .rounds = 1 }, { .rounds = 1 }, { .rounds = 1 } };
    job_start(cs2, 3, port, M_FULL, 20);
    job_join(cs2, 3, PLX_SUCCESS);

    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_eq(st.refused, 4);   /* garbage, oversize, out of range, wrong type */
    ck_assert_uint_eq(st.dropped, 3);   /* silent, half, truncated */
    ck_assert_uint_eq(st.authenticated, 6);
    ck_assert_uint_eq(st.failed_ranks, 0);
    plx_boot_server_destroy(s);
    close(silent); close(half); close(garbage); close(oversize); close(outrange); close(wrongtype);
}
END_TEST

START_TEST(server_caps_unauthenticated)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    plx_boot_server_set_limits(s, 3, 60000);   /* silent ones would stay a minute */
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    int fds[10];
    for (int i = 0; i < 10; i++) fds[i] = raw_connect(port);
    msleep(100);
    cl_t cs[2] = { { .rounds = 1 }, { .rounds = 1 } };
    job_start(cs, 2, port, M_FULL, 20);
    job_join(cs, 2, PLX_SUCCESS);
    /* the oldest silent connections were dropped to make room */
    ck_assert_int_eq(raw_closed_within(fds[0], 1000), 1);
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_ge(st.dropped, 7);
    plx_boot_server_destroy(s);
    for (int i = 0; i < 10; i++) close(fds[i]);
}
END_TEST

struct bar { plx_boot_t *b; plx_status_t st; };

static void *barrier_thread(void *arg)
{
    struct bar *a = arg;
    a->st = plx_boot_barrier(a->b);
    return NULL;
}

START_TEST(server_refuses_duplicate_and_bad_size)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    plx_boot_params_t p0 = params(0, 2, port, 5), p1 = params(1, 2, port, 5);
    plx_boot_t *b0, *dup, *b1, *big;
    ck_assert_int_eq(plx_boot_connect(&p0, &b0), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_connect(&p0, &dup), PLX_ERR_BOOTSTRAP);   /* rank 0 again */
    plx_boot_params_t p5 = params(1, 5, port, 5);
    ck_assert_int_eq(plx_boot_connect(&p5, &big), PLX_ERR_BOOTSTRAP);   /* wrong job size */
    ck_assert_int_eq(plx_boot_connect(&p1, &b1), PLX_SUCCESS);
    /* a hand-made client claiming rank 1 while rank 1 is connected */
    ck_assert_int_eq(raw_auth(port, KEY, 1, 2), -1);
    /* the legitimate pair still works */
    struct bar b1bar = { b1, PLX_ERR_INTERNAL };
    pthread_t th;
    pthread_create(&th, NULL, barrier_thread, &b1bar);
    ck_assert_int_eq(plx_boot_barrier(b0), PLX_SUCCESS);
    pthread_join(th, NULL);
    ck_assert_int_eq(b1bar.st, PLX_SUCCESS);
    plx_boot_close(b0);
    plx_boot_close(b1);
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_eq(st.refused, 3);
    plx_boot_server_destroy(s);
}
END_TEST

/* A fake server: challenges, reads the AUTH, answers with a MAC it cannot
 * know (mode 0), or talks nonsense from the start (mode 1). */
struct fake { int lfd; int mode; };

static void *fake_server(void *arg)
{
    struct fake *f = arg;
    int fd = accept(f->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    uint8_t buf[256];
    if (f->mode == 1) {
        const char *s = "SSH-2.0-OpenSSH_9.2\r\n";
        send(fd, s, strlen(s), MSG_NOSIGNAL);
    } else {
        uint8_t h[PLX_BOOT_HDR_BYTES], nonce[32] = { 1 };
        plx_boot_hdr_make(h, PLX_BOOT_CHALLENGE, PLX_BOOT_PROTO_VERSION, 0, 0, 32);
        send(fd, h, sizeof h, MSG_NOSIGNAL);
        send(fd, nonce, 32, MSG_NOSIGNAL);
        raw_read(fd, buf, PLX_BOOT_HDR_BYTES + PLX_BOOT_AUTH_BYTES, 3000);
        plx_boot_hdr_t ah;
        plx_boot_hdr_unpack(buf, &ah);
        plx_boot_hdr_make(h, PLX_BOOT_WELCOME, 0, ah.rank, 0, 32);
        memset(buf, 0xab, 32);
        send(fd, h, sizeof h, MSG_NOSIGNAL);
        send(fd, buf, 32, MSG_NOSIGNAL);
    }
    raw_read(fd, buf, sizeof buf, 2000);   /* until the client hangs up */
    close(fd);
    return NULL;
}

START_TEST(client_refuses_fake_server)
{
    for (int mode = 0; mode < 2; mode++) {
        struct fake f = { socket(AF_INET, SOCK_STREAM, 0), mode };
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t l = sizeof a;
        ck_assert_int_eq(bind(f.lfd, (struct sockaddr *)&a, sizeof a), 0);
        ck_assert_int_eq(listen(f.lfd, 4), 0);
        getsockname(f.lfd, (struct sockaddr *)&a, &l);
        pthread_t th;
        pthread_create(&th, NULL, fake_server, &f);
        plx_boot_params_t p = params(1, 2, ntohs(a.sin_port), 5);
        plx_boot_t *b = NULL;
        double t0 = now_s();
        ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_BOOTSTRAP);
        ck_assert_ptr_null(b);
        ck_assert_double_lt(now_s() - t0, 2.0);
        pthread_join(th, NULL);
        close(f.lfd);
    }
}
END_TEST

START_TEST(client_refused_by_other_jobs_server)
{
    int port;
    uint8_t other[32];
    memset(other, 0x5a, sizeof other);
    plx_boot_server_t *s = NULL;
    ck_assert_int_eq(plx_boot_server_create("127.0.0.1", 0, 2, other, &s, &port), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    plx_boot_params_t p = params(0, 2, port, 5);
    plx_boot_t *b = NULL;
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_BOOTSTRAP);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(client_times_out_without_server)
{
    plx_boot_params_t p = params(1, 2, dead_port(), 0.6);
    plx_boot_t *b = NULL;
    double t0 = now_s();
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_TIMEOUT);
    double dt = now_s() - t0;
    ck_assert_ptr_null(b);
    ck_assert_double_ge(dt, 0.55);
    ck_assert_double_lt(dt, 2.0);
}
END_TEST

START_TEST(client_retries_until_server_up)
{
    int port = dead_port();
    cl_t cs[2] = { { .rounds = 1 }, { .rounds = 1 } };
    job_start(cs, 2, port, M_FULL, 10);   /* nothing listens yet */
    msleep(400);
    plx_boot_server_t *s = NULL;
    int got;
    ck_assert_int_eq(plx_boot_server_create("127.0.0.1", port, 2, KEY, &s, &got), PLX_SUCCESS);
    ck_assert_int_eq(got, port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    job_join(cs, 2, PLX_SUCCESS);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(collective_timeout_names_the_wait)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    plx_boot_params_t p = params(0, 2, port, 0.5);
    plx_boot_t *b;
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_SUCCESS);
    double t0 = now_s();
    ck_assert_int_eq(plx_boot_barrier(b), PLX_ERR_TIMEOUT);   /* rank 1 never comes */
    ck_assert_double_lt(now_s() - t0, 2.0);
    ck_assert_ptr_nonnull(strstr(plx_boot_last_error(b), "barrier"));
    ck_assert_int_eq(plx_boot_barrier(b), PLX_ERR_TIMEOUT);   /* sticky */
    plx_boot_close(b);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(server_disappears)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[2];
    memset(cs, 0, sizeof cs);
    plx_boot_params_t p0 = params(0, 2, port, 30), p1 = params(1, 2, port, 30);
    plx_boot_t *b0, *b1;
    ck_assert_int_eq(plx_boot_connect(&p0, &b0), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_connect(&p1, &b1), PLX_SUCCESS);
    plx_boot_server_destroy(s);
    double t0 = now_s();
    plx_status_t st = plx_boot_barrier(b0);
    ck_assert_int_eq(st, PLX_ERR_BOOTSTRAP);
    ck_assert_double_lt(now_s() - t0, 2.0);   /* an error at once, not the 30 s timeout */
    plx_boot_close(b0);
    plx_boot_close(b1);
}
END_TEST

START_TEST(mismatched_collectives_fail_everywhere)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[2];
    memset(cs, 0, sizeof cs);
    cs[0].p = params(0, 2, port, 10);
    cs[0].mode = M_BARRIER;
    cs[1].p = params(1, 2, port, 10);
    cs[1].mode = M_ALLGATHER4;
    double t0 = now_s();
    for (int r = 0; r < 2; r++) pthread_create(&cs[r].th, NULL, client_main, &cs[r]);
    job_join(cs, 2, PLX_ERR_BOOTSTRAP);
    ck_assert_double_lt(now_s() - t0, 3.0);
    plx_boot_server_destroy(s);

    /* allgather lengths must agree */
    s = start_server(3, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t c3[3];
    memset(c3, 0, sizeof c3);
    for (int r = 0; r < 3; r++) {
        c3[r].p = params(r, 3, port, 10);
        c3[r].mode = r == 1 ? M_ALLGATHER8 : M_ALLGATHER4;
        pthread_create(&c3[r].th, NULL, client_main, &c3[r]);
    }
    job_join(c3, 3, PLX_ERR_BOOTSTRAP);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(peer_failure_reaches_everyone)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t cs[2];
    memset(cs, 0, sizeof cs);
    for (int r = 0; r < 2; r++) {
        cs[r].p = params(r, 3, port, 20);
        cs[r].mode = M_BARRIER;
        pthread_create(&cs[r].th, NULL, client_main, &cs[r]);
    }
    int fd = raw_auth(port, KEY, 2, 3);   /* rank 2 joins... */
    ck_assert_int_ge(fd, 0);
    msleep(200);
    double t0 = now_s();
    close(fd);                            /* ...and dies without goodbye */
    job_join(cs, 2, PLX_ERR_PEER_FAILED);
    ck_assert_double_lt(now_s() - t0, 2.0);
    plx_boot_server_stop_thread(s, 0);   /* its state is read from this thread now */
    ck_assert_int_eq(plx_boot_server_rank_failed(s, 2), 1);
    ck_assert_int_eq(plx_boot_server_rank_failed(s, 0), 0);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(bad_arguments_do_not_break)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    cl_t peer = { .rounds = 1 };
    peer.p = params(1, 2, port, 10);
    peer.mode = M_BARRIER;
    pthread_create(&peer.th, NULL, client_main, &peer);
    plx_boot_params_t p = params(0, 2, port, 10);
    plx_boot_t *b;
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_SUCCESS);
    char buf[8];
    ck_assert_int_eq(plx_boot_bcast(b, buf, 8, 2), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_boot_bcast(b, buf, 8, -1), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_boot_bcast(b, NULL, 8, 0), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_boot_allgather(b, buf, NULL, 4), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_boot_allgather(b, buf, buf, PLX_BOOT_MAX_BLOB + 1), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_boot_barrier(b), PLX_SUCCESS);   /* still usable */
    pthread_join(peer.th, NULL);
    ck_assert_int_eq(peer.st, PLX_SUCCESS);
    plx_boot_close(b);
    ck_assert_int_eq(plx_boot_allgather(NULL, buf, buf, 1), PLX_ERR_INVALID_ARG);
    plx_boot_params_t q = params(2, 2, port, 10);
    ck_assert_int_eq(plx_boot_connect(&q, &b), PLX_ERR_INVALID_ARG);   /* rank >= size */
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(rank0_serves_without_launcher)
{
    /* the env interface: rank 0 runs the server itself on a fixed port;
     * the others start first and retry until it is up */
    int port = dead_port();
    cl_t cs[3] = { { .rounds = 2 }, { .rounds = 2 }, { .rounds = 2 } };
    for (int r = 0; r < 3; r++) {
        cs[r].p = params(r, 3, port, 20);
        cs[r].p.serve = r == 0;
        cs[r].mode = M_FULL;
    }
    cs[0].delay_ms = 300;
    for (int r = 2; r >= 0; r--) pthread_create(&cs[r].th, NULL, client_main, &cs[r]);
    job_join(cs, 3, PLX_SUCCESS);
    /* and again on the same port (plx_init after plx_finalize) */
    for (int r = 0; r < 3; r++) cs[r].delay_ms = r == 0 ? 0 : 50;
    for (int r = 0; r < 3; r++) pthread_create(&cs[r].th, NULL, client_main, &cs[r]);
    job_join(cs, 3, PLX_SUCCESS);
}
END_TEST

START_TEST(rank0_serve_port_taken)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);   /* someone else holds the port */
    plx_boot_params_t p = params(0, 2, port, 2);
    p.serve = 1;
    plx_boot_t *b = NULL;
    double t0 = now_s();
    ck_assert_int_eq(plx_boot_connect(&p, &b), PLX_ERR_BOOTSTRAP);
    ck_assert_double_lt(now_s() - t0, 1.0);
    plx_boot_server_destroy(s);
}
END_TEST

START_TEST(server_new_round_after_goodbyes)
{
    /* plexusrun's server: every rank closes, then all connect again */
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    for (int round = 0; round < 3; round++) {
        cl_t cs[3] = { { .rounds = 1 }, { .rounds = 1 }, { .rounds = 1 } };
        cs[round].delay_ms = 100;   /* a different straggler each time */
        job_start(cs, 3, port, M_FULL, 20);
        job_join(cs, 3, PLX_SUCCESS);
    }
    plx_boot_server_stop_thread(s, 0);
    plx_boot_server_stats_t st;
    plx_boot_server_get_stats(s, &st);
    ck_assert_uint_eq(st.authenticated, 9);
    plx_boot_server_destroy(s);
}
END_TEST

static void *connect_barrier_close(void *arg)
{
    cl_t *c = arg;
    c->mode = M_BARRIER;
    return client_main(c);
}

START_TEST(server_parks_early_reconnect)
{
    int port;
    plx_boot_server_t *s = start_server(2, &port);
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    plx_boot_params_t p0 = params(0, 2, port, 10), p1 = params(1, 2, port, 10);
    plx_boot_t *b0, *b1;
    ck_assert_int_eq(plx_boot_connect(&p0, &b0), PLX_SUCCESS);
    ck_assert_int_eq(plx_boot_connect(&p1, &b1), PLX_SUCCESS);
    plx_boot_close(b0);   /* rank 0 finishes round 1 and comes back at once */
    cl_t again = { .p = p0 };
    pthread_create(&again.th, NULL, connect_barrier_close, &again);
    msleep(300);          /* it is parked: rank 1 is still in round 1 */
    plx_boot_close(b1);
    cl_t again1 = { .p = p1 };
    pthread_create(&again1.th, NULL, connect_barrier_close, &again1);
    pthread_join(again.th, NULL);
    pthread_join(again1.th, NULL);
    ck_assert_int_eq(again.st, PLX_SUCCESS);
    ck_assert_int_eq(again1.st, PLX_SUCCESS);
    plx_boot_server_destroy(s);
}
END_TEST

/* Many strangers sending mutated handshakes (bit flips, truncation, junk
 * tails) while a job runs: every one is refused or dropped, the job is not
 * disturbed.  Deterministic (fixed seed). */
struct fuzz { int port; uint64_t rng; };

static uint32_t rnd(struct fuzz *z)
{
    z->rng ^= z->rng << 13; z->rng ^= z->rng >> 7; z->rng ^= z->rng << 17;
    return (uint32_t)(z->rng >> 11);
}

static void *fuzzer(void *arg)
{
    struct fuzz *z = arg;
    for (int i = 0; i < 150; i++) {
        int fd = raw_connect(z->port);
        uint8_t f[PLX_BOOT_HDR_BYTES + PLX_BOOT_AUTH_BYTES + 64];
        plx_boot_hdr_make(f, PLX_BOOT_AUTH, 0, rnd(z) % 4, 0, PLX_BOOT_AUTH_BYTES);
        plx_put_be32(f + PLX_BOOT_HDR_BYTES, 3);
        for (size_t k = PLX_BOOT_HDR_BYTES + 4; k < sizeof f; k++) f[k] = (uint8_t)rnd(z);
        int flips = (int)(rnd(z) % 4);
        for (int k = 0; k < flips; k++) f[rnd(z) % PLX_BOOT_HDR_BYTES] ^= (uint8_t)(1u << (rnd(z) % 8));
        size_t len = rnd(z) % 2 ? sizeof f - 64 : rnd(z) % sizeof f;
        send(fd, f, len, MSG_NOSIGNAL);
        if (rnd(z) % 4 == 0) msleep(1);
        close(fd);
    }
    return NULL;
}

START_TEST(server_survives_fuzz)
{
    int port;
    plx_boot_server_t *s = start_server(3, &port);
    plx_boot_server_set_limits(s, 0, 2000);
    /* a fuzzed AUTH may claim a rank with a bad MAC: robustness is the
     * point here, not failing the job for it (refused_rank_fails_the_job) */
    plx_boot_server_set_bad_key_grace(s, -1);
    int save = plx_log_level;
    plx_log_level = PLX_LOG_ERROR;   /* 300 refusals would drown the test log */
    ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
    pthread_t f1, f2;
    struct fuzz z1 = { port, 0x9e3779b97f4a7c15ull }, z2 = { port, 0x2545f4914f6cdd1dull };
    pthread_create(&f1, NULL, fuzzer, &z1);
    pthread_create(&f2, NULL, fuzzer, &z2);
    cl_t cs[3] = { { .rounds = 3 }, { .rounds = 3 }, { .rounds = 3 } };
    job_start(cs, 3, port, M_FULL, 30);
    job_join(cs, 3, PLX_SUCCESS);
    pthread_join(f1, NULL);
    pthread_join(f2, NULL);
    /* let the server finish with the last strangers (stats are read with
     * its thread stopped) */
    plx_boot_server_stats_t st;
    for (int i = 0; i < 100; i++) {
        plx_boot_server_stop_thread(s, 0);
        plx_boot_server_get_stats(s, &st);
        if (st.refused + st.dropped >= 300) break;
        ck_assert_int_eq(plx_boot_server_start_thread(s), PLX_SUCCESS);
        msleep(50);
    }
    plx_log_level = save;
    ck_assert_uint_eq(st.authenticated, 3);
    ck_assert_uint_eq(st.failed_ranks, 0);
    ck_assert_uint_eq(st.accepted, 303);
    ck_assert_uint_eq(st.refused + st.dropped, 300);
    plx_boot_server_destroy(s);
}
END_TEST

/* ========================================================================= */

static Suite *suite(void)
{
    Suite *s = suite_create("bootstrap");
    TCase *tc = tcase_create("crypto");
    tcase_add_test(tc, sha256_fips_vectors);
    tcase_add_test(tc, hmac_rfc4231_vectors);
    tcase_add_test(tc, hex_and_ct_compare);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);

    tc = tcase_create("frames");
    tcase_add_test(tc, hdr_pack_roundtrip);
    tcase_add_test(tc, hdr_check_good);
    tcase_add_test(tc, hdr_check_bad);
    tcase_add_test(tc, split_hostport);
    suite_add_tcase(s, tc);

    tc = tcase_create("env");
    tcase_add_test(tc, env_good);
    tcase_add_test(tc, env_bad);
    tcase_add_test(tc, env_singleton);
    suite_add_tcase(s, tc);

    tc = tcase_create("server");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, server_collectives);
    tcase_add_test(tc, server_outside_poll_loop);
    tcase_add_test(tc, server_refuses_wrong_key);
    tcase_add_test(tc, refused_rank_fails_the_job);
    tcase_add_test(tc, server_refuses_strangers);
    tcase_add_test(tc, server_caps_unauthenticated);
    tcase_add_test(tc, server_refuses_duplicate_and_bad_size);
    tcase_add_test(tc, client_refuses_fake_server);
    tcase_add_test(tc, client_refused_by_other_jobs_server);
    tcase_add_test(tc, client_times_out_without_server);
    tcase_add_test(tc, client_retries_until_server_up);
    tcase_add_test(tc, collective_timeout_names_the_wait);
    tcase_add_test(tc, server_disappears);
    tcase_add_test(tc, mismatched_collectives_fail_everywhere);
    tcase_add_test(tc, peer_failure_reaches_everyone);
    tcase_add_test(tc, bad_arguments_do_not_break);
    tcase_add_test(tc, rank0_serves_without_launcher);
    tcase_add_test(tc, rank0_serve_port_taken);
    tcase_add_test(tc, server_new_round_after_goodbyes);
    tcase_add_test(tc, server_parks_early_reconnect);
    tcase_add_test(tc, server_survives_fuzz);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    plx_log_init(-1);
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_ENV);   /* CK_VERBOSITY=verbose lists every test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
