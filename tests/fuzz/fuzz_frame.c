/*
 * tests/fuzz/fuzz_frame.c — libFuzzer harness for the bootstrap frame
 * parser (lib/bootstrap/frame.c), the gate every byte from the network
 * passes before the server or a client acts on it.
 *
 * Input: byte 0 picks nranks (1..256) and byte 1 the length limit; the rest
 * is cut into 20-byte headers, each unpacked and checked.  Invariants
 * (abort = a finding): a header that passes plx_boot_hdr_check has the
 * magic, a known type, rank < nranks and len <= the limit, and every
 * header packs back to the same bytes.  The tail is also given, as a
 * string, to the host:port and hex parsers the bootstrap applies to
 * PLX_BOOTSTRAP and PLX_JOB_KEY.
 */
#include "bootstrap/bootstrap.h"
#include "bootstrap/boot_internal.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    plx_log_level = PLX_LOG_NONE;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int nranks = 1 + data[0];
    size_t max_len = (size_t)data[1] << 12;
    const uint8_t *p = data + 2;
    size_t left = size - 2;
    while (left >= PLX_BOOT_HDR_BYTES) {
        plx_boot_hdr_t h;
        const char *why = NULL;
        plx_boot_hdr_unpack(p, &h);
        if (plx_boot_hdr_check(&h, nranks, max_len, &why) == 0) {
            if (h.magic != PLX_BOOT_MAGIC || h.type < PLX_BOOT_CHALLENGE || h.type > PLX_BOOT_TYPE_MAX ||
                h.rank >= (uint32_t)nranks || h.len > max_len)
                abort();
        } else if (!why || !*why) {
            abort();   /* a refusal must say why (it is logged and sent) */
        }
        uint8_t again[PLX_BOOT_HDR_BYTES];
        plx_boot_hdr_pack(&h, again);
        if (memcmp(again, p, sizeof again) != 0) abort();
        p += PLX_BOOT_HDR_BYTES;
        left -= PLX_BOOT_HDR_BYTES;
    }
    /* the tail as PLX_BOOTSTRAP / PLX_JOB_KEY text */
    char *s = malloc(left + 1);
    if (!s) return 0;
    memcpy(s, p, left);
    s[left] = '\0';
    char host[256];
    int port = -1;
    const char *why = NULL;
    if (plx_boot_split_hostport(s, host, sizeof host, &port, &why) == 0) {
        if (port < 1 || port > 65535 || strlen(host) == 0) abort();
    } else if (!why) {
        abort();
    }
    uint8_t key[PLX_BOOT_KEY_BYTES];
    if (plx_hex_decode(s, key, sizeof key) == 0 && strlen(s) != 2 * sizeof key) abort();
    free(s);
    return 0;
}
