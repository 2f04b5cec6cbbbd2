/*
 * tests/mr/outparam_check.c — every public call writes its out-parameters
 * on failure (NULL handle, rank -1, size 0, flag 0, node -1, string NULL).
 *
 *   outparam_check initfail   plx_init fails (run with a bad PLX_TIMEOUT):
 *                             ctx is NULL, and the README's pattern of
 *                             calls after it fails cleanly, no crash
 *   outparam_check calls      (any number of ranks) each call is made to
 *                             fail with its out-parameters preset to
 *                             garbage, which must be overwritten
 *
 * Prints "outparam_check: rank R: N checks, F failures"; exit 0 iff F == 0.
 */
#include <plexus.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int checks, failures, rank = -1;

#define EXPECT(cond, what)                                                          \
    do {                                                                            \
        checks++;                                                                   \
        if (!(cond)) {                                                              \
            failures++;                                                             \
            fprintf(stderr, "outparam_check: rank %d: FAIL: %s (line %d)\n", rank,  \
                    what, __LINE__);                                                \
        }                                                                           \
    } while (0)

#define JUNK ((void *)(uintptr_t)0xdeadbeef)

static int report(void)
{
    printf("outparam_check: rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}

/* plx_init failed: the README example's calls, unchecked, must not crash. */
static int init_fails(void)
{
    plx_context_t ctx = JUNK;
    plx_comm_t world = JUNK;
    float x = 1;
    EXPECT(plx_init(&ctx) == PLX_ERR_INVALID_ARG, "plx_init with a bad PLX_TIMEOUT fails");
    EXPECT(ctx == NULL, "plx_init: *ctx = NULL on failure");
    EXPECT(plx_comm_world(ctx, &world) == PLX_ERR_INVALID_ARG, "plx_comm_world(NULL)");
    EXPECT(world == NULL, "plx_comm_world: *comm = NULL on failure");
    EXPECT(plx_allreduce(PLX_IN_PLACE, &x, 1, PLX_FLOAT32, PLX_SUM, world) == PLX_ERR_INVALID_ARG,
           "plx_allreduce on the NULL world");
    EXPECT(plx_finalize(&ctx) == PLX_ERR_INVALID_ARG, "plx_finalize(NULL)");
    plx_oob_t bad = { .rank = 3, .size = 2 };
    ctx = JUNK;
    EXPECT(plx_init_oob(&bad, &ctx) == PLX_ERR_INVALID_ARG && ctx == NULL, "plx_init_oob: *ctx = NULL");
    return report();
}

static int calls(void)
{
    plx_context_t ctx;
    plx_comm_t w;
    if (plx_init(&ctx) != PLX_SUCCESS || plx_comm_world(ctx, &w) != PLX_SUCCESS ||
        plx_comm_rank(w, &rank) != PLX_SUCCESS) {
        fprintf(stderr, "outparam_check: plx_init failed\n");
        return 1;
    }
    int size = 0;
    plx_comm_size(w, &size);
    float buf[4] = { 0 };
    plx_comm_t c = JUNK, dead = NULL;
    int i = 12345;
    size_t z = 777;
    double d1 = 5, d2 = 5;
    const char *s1 = JUNK, *s2 = JUNK;
    plx_request_t rq = JUNK;
    plx_graph_t g = JUNK;
    plx_graph_node_t node = 99;

    EXPECT(plx_comm_world(NULL, &c) == PLX_ERR_INVALID_ARG && c == NULL, "comm_world: NULL");
    EXPECT(plx_comm_rank(dead, &i) == PLX_ERR_INVALID_ARG && i == -1, "comm_rank: -1");
    i = 12345;
    EXPECT(plx_comm_size(dead, &i) == PLX_ERR_INVALID_ARG && i == 0, "comm_size: 0");
    c = JUNK;
    EXPECT(plx_comm_split(w, -5, 0, &c) == PLX_ERR_INVALID_ARG && c == NULL, "comm_split: NULL");
    c = JUNK;
    EXPECT(plx_comm_dup(dead, &c) == PLX_ERR_INVALID_ARG && c == NULL, "comm_dup: NULL");

    /* every nonblocking collective and p2p call with a bad argument */
    rq = JUNK;
    EXPECT(plx_ibarrier(dead, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "ibarrier: *req NULL");
    rq = JUNK;
    EXPECT(plx_ibcast(buf, 1, PLX_FLOAT32, size, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "ibcast");
    rq = JUNK;
    EXPECT(plx_ireduce(buf, buf + 1, 1, PLX_FLOAT32, PLX_BAND, 0, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL,
           "ireduce");
    rq = JUNK;
    EXPECT(plx_iallreduce(NULL, buf, 1, PLX_FLOAT32, PLX_SUM, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL,
           "iallreduce");
    rq = JUNK;
    EXPECT(plx_iallgather(buf, NULL, 1, PLX_FLOAT32, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "iallgather");
    rq = JUNK;
    EXPECT(plx_ireduce_scatter(buf, buf, 1, PLX_DTYPE_COUNT, PLX_SUM, w, &rq) == PLX_ERR_INVALID_ARG &&
           rq == NULL, "ireduce_scatter");
    rq = JUNK;
    EXPECT(plx_ialltoall(buf, NULL, 1, PLX_FLOAT32, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "ialltoall");
    rq = JUNK;
    EXPECT(plx_igather(buf, buf, 1, PLX_FLOAT32, -1, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "igather");
    rq = JUNK;
    EXPECT(plx_iscatter(buf, buf, 1, PLX_FLOAT32, -1, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "iscatter");
    rq = JUNK;
    EXPECT(plx_isend(buf, 1, PLX_FLOAT32, size, 0, w, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "isend");
    rq = JUNK;
    z = 777;
    EXPECT(plx_irecv(buf, 1, PLX_FLOAT32, 0, -1, w, &z, &rq) == PLX_ERR_INVALID_ARG && rq == NULL && z == 0,
           "irecv: *req NULL, *received 0");
    z = 777;
    EXPECT(plx_recv(buf, 1, PLX_FLOAT32, size, 0, w, &z) == PLX_ERR_INVALID_ARG && z == 0, "recv: *received 0");

    /* requests */
    i = 12345;
    EXPECT(plx_test(NULL, &i) == PLX_ERR_INVALID_ARG && i == 0, "test: *done 0");
    i = 12345;
    EXPECT(plx_waitany(-1, NULL, &i) == PLX_ERR_INVALID_ARG && i == -1, "waitany: *index -1");

    /* information */
    s1 = s2 = JUNK;
    EXPECT(plx_query_algorithm(w, "no_such_collective", 8, &s1, &s2) == PLX_ERR_INVALID_ARG && s1 == NULL &&
           s2 == NULL, "query_algorithm: NULL strings");
    s1 = s2 = JUNK;
    EXPECT(plx_query_algorithm_device(dead, "allreduce", 8, &s1, &s2) == PLX_ERR_INVALID_ARG && s1 == NULL &&
           s2 == NULL, "query_algorithm_device: NULL strings");
    i = 12345;
    EXPECT(plx_query_device(NULL, &i) == PLX_ERR_INVALID_ARG && i == 0, "query_device: 0");

    /* task graphs */
    EXPECT(plx_graph_create(NULL, &g) == PLX_ERR_INVALID_ARG && g == NULL, "graph_create: NULL");
    EXPECT(plx_graph_create(ctx, &g) == PLX_SUCCESS, "graph_create");
    node = 99;
    EXPECT(plx_graph_add_compute(g, NULL, NULL, &node) == PLX_ERR_INVALID_ARG && node == -1, "add_compute: -1");
    node = 99;
    EXPECT(plx_graph_add_allreduce(g, NULL, buf, 1, PLX_FLOAT32, PLX_SUM, w, &node) == PLX_ERR_INVALID_ARG &&
           node == -1, "add_allreduce: -1");
    node = 99;
    EXPECT(plx_graph_add_send(g, buf, 1, PLX_FLOAT32, size, 0, w, &node) == PLX_ERR_INVALID_ARG && node == -1,
           "add_send: -1");
    rq = JUNK;
    EXPECT(plx_graph_launch(g, &rq) == PLX_ERR_INVALID_ARG && rq == NULL, "graph_launch (not compiled): NULL");
    d1 = d2 = 5;
    EXPECT(plx_graph_node_times(g, 0, &d1, &d2) == PLX_ERR_INVALID_ARG && d1 == 0 && d2 == 0,
           "graph_node_times: 0");
    plx_graph_free(&g);

    /* version: the library and the header agree */
    int ma = -1, mi = -1, pa = -1;
    EXPECT(plx_version(&ma, &mi, &pa) == PLX_SUCCESS && ma == PLX_VERSION_MAJOR && mi == PLX_VERSION_MINOR &&
           pa == PLX_VERSION_PATCH, "plx_version matches PLX_VERSION_*");
    EXPECT(PLX_VERSION_CODE == PLX_VERSION_NUM(PLX_VERSION_MAJOR, PLX_VERSION_MINOR, PLX_VERSION_PATCH),
           "PLX_VERSION_CODE");

    int rc = report();
    plx_finalize(&ctx);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "initfail")) return init_fails();
    if (argc == 2 && !strcmp(argv[1], "calls")) return calls();
    fprintf(stderr, "usage: outparam_check initfail|calls\n");
    return 2;
}
