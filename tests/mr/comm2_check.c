/*
 * tests/mr/comm2_check.c — the communicator constructors and point-to-point
 * calls of issue 14b, launched by plexusrun at 1-5 ranks (also with
 * --nodes K, where ranks of different simulated nodes talk over UCX):
 *
 *  1. plx_comm_split_type(PLX_COMM_TYPE_NODE): the members and their order
 *     (key = -rank: reversed) against the node each rank was given
 *     (PLX_NODE_ID, else one node), an allreduce on the result, and
 *     PLX_UNDEFINED / bad types;
 *  2. plx_comm_create: odd ranks in reverse order, all ranks rotated by
 *     one, an empty list, a create from a sub-communicator; the members
 *     and order checked by an allgather of world ranks on the result; bad
 *     lists (duplicates, out of range, n < 0, n > size, NULL) refused with
 *     PLX_ERR_INVALID_ARG; rank 0 passing a different list gives
 *     PLX_ERR_MISMATCH on every rank, and world still works afterwards;
 *  2b. plx_comm_create_group: 12 rounds of a random partition of the
 *     ranks into disjoint groups (list order shuffled: ranks permuted),
 *     each group creating at once over world and again over its own new
 *     communicator, members checked by an allgather, an allreduce on each,
 *     one comm of each round kept into the next and a comm of one on
 *     some ranks only (ids in use that differ between members); no internal message visible to a world probe; a split
 *     of world afterwards working beside them; two threads creating over
 *     all ranks at once with different tags, each reducing on its own;
 *     bad arguments (PLX_ERR_INVALID_ARG) and a list in another order on
 *     one rank (PLX_ERR_MISMATCH on every rank, world fine afterwards);
 *  3. plx_sendrecv: a ring shift at 0, 1, 1000 and 300000 elements (eager
 *     and large), to and from oneself, truncation, bad arguments;
 *     plx_isendrecv: shifts both ways at once, completed by waitall or a
 *     test loop, bad arguments;
 *  4. plx_iprobe / plx_probe: source, tag and size of eager and large
 *     messages with wildcards and without, the oldest of two with one
 *     tag first, nothing found when nothing is pending or on another
 *     communicator, then the messages received with what the probe said;
 *     bad arguments.
 * Final line `comm2_check: rank R size S: N checks, M failures`; exit 1 on
 * any failure.
 *
 * Other modes (run_comm2.sh checks their outcome from outside):
 *   --abort R CODE   rank R calls plx_abort(world, CODE) while the others
 *                    wait in a barrier for it: the job must end at once
 *                    with plexusrun reporting the abort;
 *   --probe-timeout  (1 rank) a probe for a message nobody sends: with
 *                    PLX_TIMEOUT=1 it must return PLX_ERR_TIMEOUT;
 *   --group-timeout  (2 ranks) rank 0 creates a group with rank 1, which
 *                    stays alive but never calls: with PLX_TIMEOUT=1 it
 *                    must return PLX_ERR_TIMEOUT;
 *   --probe-dead     (2+ ranks) rank 1 exits while the others probe for its
 *                    message: PLX_ERR_PEER_FAILED.
 */
#include <plexus.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_PROG "comm2_check"
#include "check.h"

static int32_t val(int r, size_t i, int k) { return (int32_t)((r * 1000003u + i * 7919u + (unsigned)k * 31u) % 100003u); }

/* The members of comm as world ranks, in comm rank order; checks size and rank. */
static void check_members(plx_comm_t comm, plx_comm_t world, const int *expect, int n, const char *what)
{
    int csize = -1, crank = -1;
    CHECK(plx_comm_size(comm, &csize) == PLX_SUCCESS && csize == n, "%s: size %d, expected %d", what, csize, n);
    plx_comm_rank(comm, &crank);
    int me = -1;
    for (int i = 0; i < n; i++)
        if (expect[i] == rank) me = i;
    CHECK(crank == me, "%s: rank %d, expected %d", what, crank, me);
    if (csize != n) return;
    int32_t mine = rank, *all = malloc((size_t)n * sizeof *all);
    CHECK(plx_allgather(&mine, all, 1, PLX_INT32, comm) == PLX_SUCCESS, "%s: allgather", what);
    for (int i = 0; i < n; i++)
        CHECK(all[i] == expect[i], "%s: member %d is world %d, expected %d", what, i, all[i], expect[i]);
    free(all);
    (void)world;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void test_split_type(plx_comm_t world)
{
    const char *node = getenv("PLX_NODE_ID");
    uint64_t mine = hash_str(node && *node ? node : "this-host");
    uint64_t *all = malloc((size_t)size * sizeof *all);
    CHECK(plx_allgather(&mine, all, 1, PLX_UINT64, world) == PLX_SUCCESS, "allgather node");
    /* expected: my node's ranks by key = -rank, i.e. highest world rank first */
    int *expect = malloc((size_t)size * sizeof(int)), n = 0;
    for (int r = size - 1; r >= 0; r--)
        if (all[r] == mine) expect[n++] = r;
    plx_comm_t nodec = NULL;
    CHECK(plx_comm_split_type(world, PLX_COMM_TYPE_NODE, -rank, &nodec) == PLX_SUCCESS && nodec,
          "split_type");
    if (nodec) {
        check_members(nodec, world, expect, n, "split_type node");
        int64_t x = rank, sum = -1, want = 0;
        for (int i = 0; i < n; i++) want += expect[i];
        CHECK(plx_allreduce(&x, &sum, 1, PLX_INT64, PLX_SUM, nodec) == PLX_SUCCESS && sum == want,
              "allreduce on the node comm: %lld, expected %lld", (long long)sum, (long long)want);
        /* a communicator from a list on the node communicator: its first rank alone */
        int first = 0;
        plx_comm_t one = NULL;
        CHECK(plx_comm_create(nodec, 1, &first, &one) == PLX_SUCCESS, "create on node comm");
        int nr = -1;
        plx_comm_rank(nodec, &nr);
        CHECK((nr == 0) == (one != NULL), "create on node comm: rank %d got %s", nr, one ? "a comm" : "NULL");
        if (one) {
            int s1 = 0;
            plx_comm_size(one, &s1);
            CHECK(s1 == 1, "size-1 comm has size %d", s1);
            plx_comm_free(&one);
        }
        plx_comm_free(&nodec);
    }
    plx_comm_t none = (plx_comm_t)(uintptr_t)0x1;
    CHECK(plx_comm_split_type(world, rank % 2 ? PLX_UNDEFINED : PLX_COMM_TYPE_NODE, 0, &none) ==
              PLX_SUCCESS && (rank % 2 ? none == NULL : none != NULL), "split_type with UNDEFINED");
    if (none) plx_comm_free(&none);
    plx_comm_t bad = NULL;
    CHECK(plx_comm_split_type(world, 7, 0, &bad) == PLX_ERR_INVALID_ARG, "split_type bad type");
    CHECK(plx_comm_split_type(world, PLX_COMM_TYPE_NODE, 0, NULL) == PLX_ERR_INVALID_ARG, "split_type NULL out");
    CHECK(plx_comm_split_type(NULL, PLX_COMM_TYPE_NODE, 0, &bad) == PLX_ERR_INVALID_ARG, "split_type NULL comm");
    free(all);
    free(expect);
}

static void test_create(plx_comm_t world)
{
    int *list = malloc((size_t)(size + 2) * sizeof(int)), n = 0;
    /* odd ranks, highest first */
    for (int r = size - 1; r >= 0; r--)
        if (r % 2) list[n++] = r;
    plx_comm_t c = (plx_comm_t)(uintptr_t)0x1;
    CHECK(plx_comm_create(world, n, list, &c) == PLX_SUCCESS, "create odd");
    CHECK((rank % 2 == 1) == (c != NULL), "create odd: rank %d got %s", rank, c ? "a comm" : "NULL");
    if (c) {
        check_members(c, world, list, n, "create odd reversed");
        plx_comm_free(&c);
    }
    /* everyone, rotated by one */
    for (int i = 0; i < size; i++) list[i] = (i + 1) % size;
    CHECK(plx_comm_create(world, size, list, &c) == PLX_SUCCESS && c, "create rotated");
    if (c) {
        check_members(c, world, list, size, "create rotated");
        plx_comm_free(&c);
    }
    c = (plx_comm_t)(uintptr_t)0x1;
    CHECK(plx_comm_create(world, 0, NULL, &c) == PLX_SUCCESS && c == NULL, "create empty");

    /* bad lists: every rank passes the same one, so every rank refuses it */
    plx_comm_t keep = (plx_comm_t)(uintptr_t)0x1;
    c = keep;
    list[0] = 0;
    list[1] = 0;
    if (size >= 2) CHECK(plx_comm_create(world, 2, list, &c) == PLX_ERR_INVALID_ARG && c == keep, "duplicates");
    list[0] = size;
    CHECK(plx_comm_create(world, 1, list, &c) == PLX_ERR_INVALID_ARG && c == keep, "out of range");
    list[0] = -1;
    CHECK(plx_comm_create(world, 1, list, &c) == PLX_ERR_INVALID_ARG && c == keep, "negative rank");
    CHECK(plx_comm_create(world, -1, list, &c) == PLX_ERR_INVALID_ARG && c == keep, "n < 0");
    CHECK(plx_comm_create(world, size + 1, list, &c) == PLX_ERR_INVALID_ARG && c == keep, "n > size");
    CHECK(plx_comm_create(world, 1, NULL, &c) == PLX_ERR_INVALID_ARG && c == keep, "NULL list");
    CHECK(plx_comm_create(world, 0, NULL, NULL) == PLX_ERR_INVALID_ARG, "NULL newcomm");

    /* rank 0 disagrees: an error on every rank, no hang */
    if (size >= 2) {
        n = 0;
        for (int r = 0; r < size; r++) list[n++] = r;
        if (rank == 0) n--;
        c = keep;
        plx_status_t st = plx_comm_create(world, n, list, &c);
        CHECK(st == PLX_ERR_MISMATCH && c == keep, "disagreeing lists: %s", plx_strerror(st));
        n = size;
        if (rank == 0) { list[0] = 1; list[1] = 0; }   /* same length, different order */
        st = plx_comm_create(world, n, list, &c);
        CHECK(st == PLX_ERR_MISMATCH && c == keep, "disagreeing order: %s", plx_strerror(st));
        int32_t one = 1, sum = 0;
        CHECK(plx_allreduce(&one, &sum, 1, PLX_INT32, PLX_SUM, world) == PLX_SUCCESS && sum == size,
              "world after a mismatch: %d", sum);
    }
    free(list);
}

static void test_sendrecv(plx_comm_t world)
{
    static const size_t counts[] = { 0, 1, 1000, 300000 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int32_t *out = malloc(300000 * sizeof(int32_t)), *in = malloc(300001 * sizeof(int32_t));
    for (size_t ci = 0; ci < 4; ci++) {
        size_t n = counts[ci], got = 12345;
        for (size_t i = 0; i < n; i++) out[i] = val(rank, i, (int)ci);
        plx_status_t st = plx_sendrecv(out, n, PLX_INT32, right, 5, in, 300001, PLX_INT32, left, 5,
                                       world, &got);
        long bad = 0;
        for (size_t i = 0; i < n; i++) bad += in[i] != val(left, i, (int)ci);
        CHECK(st == PLX_SUCCESS && got == n && bad == 0, "sendrecv ring %zu: %s, got %zu, %ld wrong", n,
              plx_strerror(st), got, bad);
        /* with oneself */
        st = plx_sendrecv(out, n, PLX_INT32, rank, 6, in, n, PLX_INT32, rank, 6, world, &got);
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += in[i] != val(rank, i, (int)ci);
        CHECK(st == PLX_SUCCESS && got == n && bad == 0, "sendrecv self %zu: %s, %ld wrong", n,
              plx_strerror(st), bad);
    }
    /* the nonblocking form: a ring shift in both directions at once, one
     * request each, completed by waitall / a test loop */
    for (size_t ci = 0; ci < 4; ci++) {
        size_t n = counts[ci] / 2, got1 = 7, got2 = 7;
        int32_t *in2 = malloc((n + 1) * sizeof(int32_t)), *out2 = malloc((n + 1) * sizeof(int32_t));
        for (size_t i = 0; i < n; i++) {
            out[i] = val(rank, i, 10 + (int)ci);
            out2[i] = val(rank, i, 20 + (int)ci);
        }
        plx_request_t rq[2];
        plx_status_t s1 = plx_isendrecv(out, n, PLX_INT32, right, 11, in, n, PLX_INT32, left, 11, world, &got1, &rq[0]);
        plx_status_t s2 = plx_isendrecv(out2, n, PLX_INT32, left, 12, in2, n, PLX_INT32, right, 12, world, &got2, &rq[1]);
        CHECK(s1 == PLX_SUCCESS && s2 == PLX_SUCCESS, "isendrecv %zu: %s %s", n, plx_strerror(s1), plx_strerror(s2));
        if (ci % 2) {
            CHECK(plx_waitall(2, rq, NULL) == PLX_SUCCESS && !rq[0] && !rq[1], "isendrecv waitall");
        } else {
            for (int k = 0; k < 2; k++) {
                int done = 0;
                plx_status_t st = PLX_SUCCESS;
                while (!done && st == PLX_SUCCESS) st = plx_test(&rq[k], &done);
                CHECK(st == PLX_SUCCESS && rq[k] == NULL, "isendrecv test %d: %s", k, plx_strerror(st));
            }
        }
        long bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += in[i] != val(left, i, 10 + (int)ci);
            bad += in2[i] != val(right, i, 20 + (int)ci);
        }
        CHECK(bad == 0 && got1 == n && got2 == n, "isendrecv %zu: %ld wrong, received %zu %zu", n, bad, got1, got2);
        free(in2);
        free(out2);
    }
    plx_request_t mark = (plx_request_t)(uintptr_t)0x5eed, r = mark;
    CHECK(plx_isendrecv(out, 4, PLX_INT32, right, 0, in, 4, PLX_INT32, left, 0, world, NULL, NULL) ==
              PLX_ERR_INVALID_ARG, "isendrecv NULL req");
    CHECK(plx_isendrecv(out, 4, PLX_INT32, right, 0, in, 4, PLX_INT32, size, 0, world, NULL, &r) ==
              PLX_ERR_INVALID_ARG && r == mark, "isendrecv bad source");
    CHECK(plx_isendrecv(out, 4, PLX_INT32, right, 0, in, (size_t)-1, PLX_INT32, left, 0, world, NULL, &r) ==
              PLX_ERR_INVALID_ARG && r == mark, "isendrecv recvcount -1");
    /* truncation: the receive's status */
    size_t got = 0;
    plx_status_t st = plx_sendrecv(out, 10, PLX_INT32, right, 8, in, 4, PLX_INT32, left, 8, world, &got);
    CHECK(st == PLX_ERR_TRUNCATE, "sendrecv truncation: %s", plx_strerror(st));
    /* bad arguments */
    CHECK(plx_sendrecv(out, 4, PLX_INT32, size, 0, in, 4, PLX_INT32, left, 0, world, NULL) == PLX_ERR_INVALID_ARG,
          "sendrecv bad dest");
    CHECK(plx_sendrecv(out, 4, PLX_INT32, right, 0, in, 4, PLX_INT32, -1, 0, world, NULL) == PLX_ERR_INVALID_ARG,
          "sendrecv bad source");
    CHECK(plx_sendrecv(out, (size_t)-1, PLX_INT32, right, 0, in, 4, PLX_INT32, left, 0, world, NULL) ==
              PLX_ERR_INVALID_ARG, "sendrecv count -1");
    CHECK(plx_sendrecv(out, 4, PLX_INT32, right, 0, in, 4, PLX_INT32, left, -3, world, NULL) == PLX_ERR_INVALID_ARG,
          "sendrecv negative tag");
    CHECK(plx_sendrecv(in, 8, PLX_INT32, right, 0, in + 4, 8, PLX_INT32, left, 0, world, NULL) ==
              PLX_ERR_INVALID_ARG, "sendrecv overlapping buffers");
    CHECK(plx_sendrecv(NULL, 4, PLX_INT32, right, 0, in, 4, PLX_INT32, left, 0, world, NULL) == PLX_ERR_INVALID_ARG,
          "sendrecv NULL sendbuf");
    free(out);
    free(in);
}

static void test_probe(plx_comm_t world)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    enum { BIG = 1 << 18 };   /* 1 MiB of int32: the large-message protocol */
    size_t small_n = (size_t)(rank + 1) * 10;
    int32_t *small = malloc(small_n * sizeof(int32_t)), *big = malloc(BIG * sizeof(int32_t));
    for (size_t i = 0; i < small_n; i++) small[i] = val(rank, i, 1);
    for (size_t i = 0; i < BIG; i++) big[i] = val(rank, i, 2);
    plx_comm_t dup;
    CHECK(plx_comm_dup(world, &dup) == PLX_SUCCESS, "dup");

    /* nothing pending yet: every rank waits for every other here */
    int found = 7;
    plx_msg_info_t info = { -9, -9, 0 };
    CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier");
    CHECK(plx_iprobe(PLX_ANY_SOURCE, PLX_ANY_TAG, world, &found, &info) == PLX_SUCCESS && found == 0,
          "iprobe with nothing pending found %d (source %d tag %d bytes %zu)", found, info.source, info.tag, info.bytes);

    CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier");   /* nobody sends before all looked */
    plx_request_t sr[3];
    CHECK(plx_isend(small, small_n, PLX_INT32, right, 100 + rank, world, &sr[0]) == PLX_SUCCESS, "isend small");
    CHECK(plx_isend(big, BIG, PLX_INT32, right, 200 + rank, world, &sr[1]) == PLX_SUCCESS, "isend big");
    /* a second message with the small one's tag: the probe reports the older first */
    CHECK(plx_isend(small, 3, PLX_INT32, right, 100 + rank, world, &sr[2]) == PLX_SUCCESS, "isend small 2");

    /* blocking probe, both wildcards: the small one came first from my left */
    CHECK(plx_probe(left, PLX_ANY_TAG, world, &info) == PLX_SUCCESS, "probe");
    CHECK(info.source == left && info.tag == 100 + left && info.bytes == (size_t)(left + 1) * 10 * 4,
          "probe(left, any): source %d tag %d bytes %zu, expected %d %d %zu", info.source, info.tag,
          info.bytes, left, 100 + left, (size_t)(left + 1) * 10 * 4);
    CHECK(plx_probe(PLX_ANY_SOURCE, 100 + left, world, &info) == PLX_SUCCESS && info.source == left &&
              info.bytes == (size_t)(left + 1) * 40, "probe(any, tag): %d %zu", info.source, info.bytes);
    /* the large message: iprobe until it is announced */
    found = 0;
    for (int spins = 0; !found; spins++) {
        plx_status_t st = plx_iprobe(left, 200 + left, world, &found, &info);
        if (st != PLX_SUCCESS) {
            CHECK(0, "iprobe big: %s", plx_strerror(st));
            break;
        }
        if (!found && spins > 100) usleep(100);
    }
    CHECK(found && info.source == left && info.tag == 200 + left && info.bytes == (size_t)BIG * 4,
          "iprobe big: source %d tag %d bytes %zu", info.source, info.tag, info.bytes);
    /* not on another communicator, not with another tag */
    CHECK(plx_iprobe(PLX_ANY_SOURCE, PLX_ANY_TAG, dup, &found, NULL) == PLX_SUCCESS && !found,
          "iprobe on a dup saw world's message");
    CHECK(plx_iprobe(left, 999, world, &found, NULL) == PLX_SUCCESS && !found, "iprobe tag 999 found one");

    /* receive with what the probes said, then the second small one */
    int32_t *in = malloc((size_t)BIG * sizeof(int32_t));
    size_t got = 0;
    CHECK(plx_recv(in, info.bytes / 4, PLX_INT32, info.source, info.tag, world, &got) == PLX_SUCCESS &&
              got == BIG, "recv big");
    long bad = 0;
    for (size_t i = 0; i < BIG; i++) bad += in[i] != val(left, i, 2);
    CHECK(bad == 0, "big message: %ld wrong", bad);
    CHECK(plx_recv(in, (size_t)(left + 1) * 10, PLX_INT32, left, 100 + left, world, &got) == PLX_SUCCESS &&
              got == (size_t)(left + 1) * 10, "recv small");
    bad = 0;
    for (size_t i = 0; i < got; i++) bad += in[i] != val(left, i, 1);
    CHECK(bad == 0, "small message: %ld wrong", bad);
    CHECK(plx_probe(left, 100 + left, world, &info) == PLX_SUCCESS && info.bytes == 12,
          "probe of the second small message: %zu bytes", info.bytes);
    CHECK(plx_recv(in, 3, PLX_INT32, left, 100 + left, world, NULL) == PLX_SUCCESS, "recv small 2");
    CHECK(plx_waitall(3, sr, NULL) == PLX_SUCCESS, "sends");
    CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier");   /* all received: nothing left in flight */
    CHECK(plx_iprobe(PLX_ANY_SOURCE, PLX_ANY_TAG, world, &found, NULL) == PLX_SUCCESS && !found,
          "iprobe after everything was received found %d", found);

    /* bad arguments */
    CHECK(plx_iprobe(size, 0, world, &found, NULL) == PLX_ERR_INVALID_ARG, "iprobe source = size");
    CHECK(plx_iprobe(-2, 0, world, &found, NULL) == PLX_ERR_INVALID_ARG, "iprobe source -2");
    CHECK(plx_iprobe(0, -5, world, &found, NULL) == PLX_ERR_INVALID_ARG, "iprobe tag -5");
    CHECK(plx_iprobe(0, 0, world, NULL, NULL) == PLX_ERR_INVALID_ARG, "iprobe found NULL");
    CHECK(plx_probe(0, 0, NULL, &info) == PLX_ERR_INVALID_ARG, "probe comm NULL");
    plx_comm_free(&dup);
    free(small);
    free(big);
    free(in);
}

/* The same pseudo-random numbers on every rank (seeded by the round). */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffffu;
}

/* Members of list (ranks of parent) as world ranks. */
static void to_world(plx_comm_t parent, const int *list, int n, int *out)
{
    int psize = 0;
    plx_comm_size(parent, &psize);
    int32_t me = rank, *wr = malloc((size_t)psize * sizeof *wr);
    CHECK(plx_allgather(&me, wr, 1, PLX_INT32, parent) == PLX_SUCCESS, "allgather of world ranks");
    for (int i = 0; i < n; i++) out[i] = wr[list[i]];
    free(wr);
}

/* allreduce of (world rank + k) on c: the sum over its members */
static void reduce_on(plx_comm_t c, const int *world_members, int n, int k, const char *what)
{
    int64_t mine = rank + k, sum = -1, want = 0;
    for (int i = 0; i < n; i++) want += world_members[i] + k;
    CHECK(plx_allreduce(&mine, &sum, 1, PLX_INT64, PLX_SUM, c) == PLX_SUCCESS && sum == want,
          "%s: allreduce %lld, expected %lld", what, (long long)sum, (long long)want);
}

typedef struct cg_thread {
    plx_comm_t world;
    int tag;
    int *all;
    int ok;
} cg_thread_t;

static void *cg_thread_body(void *p)
{
    cg_thread_t *t = p;
    plx_comm_t c = NULL;
    t->ok = plx_comm_create_group(t->world, size, t->all, t->tag, &c) == PLX_SUCCESS && c;
    for (int i = 0; t->ok && i < 20; i++) {
        int64_t mine = rank * t->tag + i, sum = -1, want = 0;
        for (int r = 0; r < size; r++) want += (int64_t)r * t->tag + i;
        t->ok = plx_allreduce(&mine, &sum, 1, PLX_INT64, PLX_SUM, c) == PLX_SUCCESS && sum == want;
    }
    if (c) plx_comm_free(&c);
    return NULL;
}

static void test_create_group(plx_comm_t world)
{
    int *perm = malloc((size_t)size * sizeof(int)), *grp = malloc((size_t)size * sizeof(int));
    int *wm = malloc((size_t)size * sizeof(int)), *sub = malloc((size_t)size * sizeof(int));
    plx_comm_t kept = NULL, solo = NULL;
    /* a comm of one on some ranks only: the ids in use differ between the
     * members of a group, so only an agreement over all members is right */
    if (rank % 3) {
        int me = rank;
        CHECK(plx_comm_create_group(world, 1, &me, 1, &solo) == PLX_SUCCESS && solo, "create_group of one");
    }
    for (int round = 0; round < 12; round++) {
        uint32_t seed = 0x9e3779b9u * (uint32_t)(round + 1);
        for (int i = 0; i < size; i++) perm[i] = i;
        for (int i = size - 1; i > 0; i--) {
            int j = (int)(lcg(&seed) % (uint32_t)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        /* cut the shuffled ranks into groups of 1..size; mine is the one holding me */
        int start = 0, n = 0;
        while (start < size) {
            int len = 1 + (int)(lcg(&seed) % (uint32_t)size);
            if (start + len > size) len = size - start;
            int in = 0;
            for (int i = start; i < start + len; i++) in |= perm[i] == rank;
            if (in) {
                n = len;
                memcpy(grp, perm + start, (size_t)len * sizeof(int));
            }
            start += len;
        }
        plx_comm_t c = (plx_comm_t)(uintptr_t)0x1;
        plx_status_t st = plx_comm_create_group(world, n, grp, 100 + round, &c);
        CHECK(st == PLX_SUCCESS && c, "round %d: create_group of %d: %s", round, n, plx_strerror(st));
        if (st != PLX_SUCCESS || !c) break;
        check_members(c, world, grp, n, "create_group");
        memcpy(wm, grp, (size_t)n * sizeof(int));     /* world is the parent: ranks are world ranks */
        reduce_on(c, wm, n, round, "create_group");
        int found = 1;
        CHECK(plx_iprobe(PLX_ANY_SOURCE, PLX_ANY_TAG, world, &found, NULL) == PLX_SUCCESS && !found,
              "round %d: a world probe sees an internal message", round);
        /* again, over the new communicator: its odd ranks, highest first */
        int cr = -1, m = 0;
        plx_comm_rank(c, &cr);
        for (int r = n - 1; r >= 0; r--)
            if (r % 2 == cr % 2) sub[m++] = r;
        plx_comm_t d = NULL;
        st = plx_comm_create_group(c, m, sub, 7, &d);
        CHECK(st == PLX_SUCCESS && d, "round %d: create_group over a group comm: %s", round, plx_strerror(st));
        if (d) {
            to_world(c, sub, m, wm);
            reduce_on(d, wm, m, 1000 + round, "nested create_group");
            plx_comm_free(&d);
        }
        if (kept) plx_comm_free(&kept);
        kept = c;
    }
    /* a split of world beside a group-made comm still in use */
    plx_comm_t half = NULL;
    CHECK(plx_comm_split(world, rank % 2, rank, &half) == PLX_SUCCESS && half, "split after create_group");
    if (half && kept) {
        int hs = 0;
        plx_comm_size(half, &hs);
        for (int i = 0; i < hs; i++) wm[i] = 2 * i + rank % 2;
        reduce_on(half, wm, hs, 5, "split beside a group comm");
        int64_t one = 1, s = 0;
        CHECK(plx_allreduce(&one, &s, 1, PLX_INT64, PLX_SUM, kept) == PLX_SUCCESS && s > 0,
              "the kept group comm after a split");
    }
    if (half) plx_comm_free(&half);
    if (kept) plx_comm_free(&kept);
    if (solo) {
        reduce_on(solo, &rank, 1, 3, "create_group of one");
        plx_comm_free(&solo);
    }

    /* two threads, overlapping lists (all ranks), different tags, at once */
    for (int i = 0; i < size; i++) perm[i] = i;
    cg_thread_t t[2] = { { world, 3, perm, 0 }, { world, 4, perm, 0 } };
    pthread_t tid[2];
    for (int i = 0; i < 2; i++) pthread_create(&tid[i], NULL, cg_thread_body, &t[i]);
    for (int i = 0; i < 2; i++) pthread_join(tid[i], NULL);
    CHECK(t[0].ok && t[1].ok, "two threads creating at once: %d %d", t[0].ok, t[1].ok);

    /* bad arguments: refused before anything is sent */
    plx_comm_t keep = (plx_comm_t)(uintptr_t)0x1, c = keep;
    int list[3] = { rank, rank, 0 };
    CHECK(plx_comm_create_group(NULL, 1, list, 0, &c) == PLX_ERR_INVALID_ARG, "group: NULL comm");
    CHECK(plx_comm_create_group(world, 1, list, 0, NULL) == PLX_ERR_INVALID_ARG, "group: NULL newcomm");
    CHECK(plx_comm_create_group(world, 0, list, 0, &c) == PLX_ERR_INVALID_ARG && !c, "group: n = 0");
    CHECK(plx_comm_create_group(world, size + 1, list, 0, &c) == PLX_ERR_INVALID_ARG, "group: n > size");
    CHECK(plx_comm_create_group(world, 1, NULL, 0, &c) == PLX_ERR_INVALID_ARG, "group: NULL ranks");
    CHECK(plx_comm_create_group(world, 1, list, -1, &c) == PLX_ERR_INVALID_ARG, "group: negative tag");
    if (size >= 2)
        CHECK(plx_comm_create_group(world, 2, list, 0, &c) == PLX_ERR_INVALID_ARG, "group: listed twice");
    list[0] = size;
    CHECK(plx_comm_create_group(world, 1, list, 0, &c) == PLX_ERR_INVALID_ARG, "group: out of range");
    if (size >= 2) {
        list[0] = (rank + 1) % size;
        CHECK(plx_comm_create_group(world, 1, list, 0, &c) == PLX_ERR_INVALID_ARG && !c,
              "group: the caller not listed");
        /* rank 1 lists the same ranks in another order: the leader (0) sees it */
        for (int i = 0; i < size; i++) perm[i] = i;
        if (rank == 1) { perm[0] = 1; perm[1] = 0; }
        plx_status_t st = plx_comm_create_group(world, size, perm, 9, &c);
        CHECK(st == PLX_ERR_MISMATCH && !c, "group: lists in another order: %s", plx_strerror(st));
        int32_t one = 1, sum = 0;
        CHECK(plx_allreduce(&one, &sum, 1, PLX_INT32, PLX_SUM, world) == PLX_SUCCESS && sum == size,
              "world after a group mismatch: %d", sum);
    }
    (void)keep;
    free(perm);
    free(grp);
    free(wm);
    free(sub);
}

int main(int argc, char **argv)
{
    plx_context_t ctx;
    plx_comm_t world;
    if (plx_init(&ctx) != PLX_SUCCESS) return 1;
    plx_comm_world(ctx, &world);
    plx_comm_rank(world, &rank);
    plx_comm_size(world, &size);

    if (argc >= 4 && !strcmp(argv[1], "--abort")) {
        int who = atoi(argv[2]), code = atoi(argv[3]);
        if (rank == who) {
            usleep(300000);   /* the others are in the barrier by now */
            plx_abort(world, code);
            fprintf(stderr, "comm2_check: plx_abort returned\n");
            return 3;
        }
        plx_status_t st = plx_barrier(world);
        /* reached only if the launcher did not stop this rank first */
        printf("comm2_check: rank %d: barrier after the abort: %s\n", rank, plx_strerror(st));
        plx_finalize(&ctx);
        return 4;
    }
    if (argc >= 2 && !strcmp(argv[1], "--probe-timeout")) {
        /* one rank (any source is then only itself): PLX_TIMEOUT=1 */
        plx_msg_info_t info;
        plx_status_t st = plx_probe(PLX_ANY_SOURCE, 77, world, &info);
        CHECK(st == PLX_ERR_TIMEOUT, "probe without a message: %s", plx_strerror(st));
        printf("comm2_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
        plx_finalize(&ctx);
        return failures ? 1 : 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--group-timeout")) {
        int both[2] = { 0, 1 };
        if (rank == 0) {
            plx_comm_t c = NULL;
            double t0 = (double)time(NULL);
            plx_status_t st = plx_comm_create_group(world, 2, both, 3, &c);
            CHECK(st == PLX_ERR_TIMEOUT && !c, "create_group without its other member: %s", plx_strerror(st));
            CHECK((double)time(NULL) - t0 < 30, "create_group took %g s with PLX_TIMEOUT=1",
                  (double)time(NULL) - t0);
        } else {
            sleep(4);               /* alive, but not calling: a timeout, not a dead peer */
        }
        printf("comm2_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
        fflush(stdout);
        _exit(failures ? 1 : 0);   /* no finalize: rank 0's job is broken by the timeout */
    }
    if (argc >= 2 && !strcmp(argv[1], "--probe-dead")) {
        /* rank 1 leaves (status 0, so plexusrun lets the others go on)
         * while they probe for its message */
        CHECK(plx_barrier(world) == PLX_SUCCESS, "barrier");
        if (rank == 1) _exit(0);
        plx_msg_info_t info;
        plx_status_t st = plx_probe(1, 5, world, &info);
        CHECK(st == PLX_ERR_PEER_FAILED, "probe of a dead rank: %s", plx_strerror(st));
        printf("comm2_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
        fflush(stdout);
        _exit(failures ? 1 : 0);   /* no finalize: its barrier would wait for the dead rank */
    }

    /* a bad communicator: refused, the process goes on */
    CHECK(plx_abort(NULL, 3) == PLX_ERR_INVALID_ARG, "plx_abort(NULL) did not return INVALID_ARG");
    test_split_type(world);
    test_create(world);
    test_create_group(world);
    test_sendrecv(world);
    test_probe(world);
    printf("comm2_check: rank %d size %d: %ld checks, %ld failures\n", rank, size, checks, failures);
    plx_finalize(&ctx);
    return failures ? 1 : 0;
}
