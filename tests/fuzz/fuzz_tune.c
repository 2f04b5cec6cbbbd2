/*
 * tests/fuzz/fuzz_tune.c — libFuzzer harness for the PLX_TUNE parser
 * (lib/coll/select.c): the input, as text, is parsed into a selector table.
 * A table that parses must answer every collective at every size with an
 * algorithm of that collective, and print; a
 * refused one must say why.  Crash, sanitizer report or a broken invariant
 * (abort) is a finding.
 */
#include "coll/select.h"
#include "core/log.h"

#include <stdio.h>
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
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    plx_select_t *sel = NULL;
    char err[512] = "";
    plx_status_t st = plx_select_create(text, &sel, err, sizeof err);
    if (st == PLX_SUCCESS) {
        static const size_t sizes[] = { 0, 1, 7, 4096, 32768, 1u << 20, (size_t)1 << 40, SIZE_MAX - 1 };
        /* no communicator: every rule counts, as for plexus_info --tune (a
         * stand-in communicator cannot serve the node-local and
         * hierarchical algorithms' checks, which need a context) */
        for (int c = 0; c < PLX_COLL_COUNT; c++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                const coll_algo_t *a = plx_select_algo(sel, (plx_coll_t)c, sizes[i], NULL);
                if (!a || (int)a->coll != c) abort();
            }
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            plx_select_print(sel, out, 4);
            fclose(out);
        }
        plx_select_free(sel);
    } else if (st != PLX_ERR_INVALID_ARG && st != PLX_ERR_NO_MEMORY) {
        abort();
    } else if (st == PLX_ERR_INVALID_ARG && !strstr(err, "PLX_TUNE")) {
        abort();   /* the message must name the variable */
    }
    free(text);
    return 0;
}
