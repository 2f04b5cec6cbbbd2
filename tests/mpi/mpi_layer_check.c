/*
 * tests/mpi/mpi_layer_check.c — an ordinary MPI program (no Plexus call)
 * run through libplexus-mpi by tests/mpi/run_mpi_layer.sh, linked to it or
 * preloaded, under Open MPI and MPICH.  Every result is checked against
 * values computed here; a failed check prints its name and the program
 * exits 1.
 *
 *   1. every collective the layer routes, blocking, in and out of place,
 *      with a non-contiguous datatype (packed by the layer) and with
 *      datatypes that differ between send and receive side;
 *   2. calls the layer must leave to MPI: a type Plexus lacks (MPI_SHORT),
 *      an op it lacks (MPI_LAND, MPI_MINLOC), an intercommunicator, an
 *      allgatherv with overlapping receive blocks; and a
 *      communicator from MPI_Comm_create_group (routed: it gets a twin);
 *   3. nonblocking collectives (routed and not) in one array with
 *      point-to-point requests, completed by MPI_Waitall / Waitany /
 *      Waitsome / Testall / Test loops, statuses checked, and an
 *      MPI_Request_free'd ibarrier;
 *   4. communicators made and freed in a loop (split, dup, split_type,
 *      create) with collectives on each, one nonblocking collective in
 *      flight across a communicator's creation;
 *   5. with PLX_MPI_COLLS=all (everything routed): a Plexus argument error
 *      reaches an MPI_ERRORS_RETURN handler as MPI_ERR_ARG with Plexus' text;
 *   6. under MPI_THREAD_MULTIPLE: two threads at once, each with its own
 *      communicator, blocking and nonblocking collectives and waits;
 *   7. the v-forms (uneven counts with zeros, blocks out of order with
 *      gaps, overlapping send blocks, a non-dense type, in place), unequal
 *      reduce_scatter in place, scan and exscan with a non-commutative
 *      user op whose result shows the order, blocking and nonblocking.
 * The script checks the PLX_LOG=info summary that these calls went where
 * they should.
 *
 * --funneled: all of the above but 6 at MPI_THREAD_FUNNELED.
 *
 * --lazy: only communicators made and freed in a loop (dup, split,
 * create_group, idup), some running a blocking collective, some only a
 * nonblocking one, some none; rank 0 prints how many ran a blocking one
 * ("expects N twins"), which with PLX_MPI_COLLS=all must be exactly the
 * number of Plexus communicators the layer's summary says it made.
 */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, fails;
/* PLX_MPI_COLLS=all: every collective goes to Plexus, so what the layer
 * defines (status of a collective, freeing its request) can be checked;
 * plain MPICH, for one, refuses MPI_Request_free on its own collectives */
static int all_routed;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "mpi_layer_check: rank %d: FAIL %s:%d: ",      \
                    rank, __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            fails++;                                                       \
        }                                                                  \
    } while (0)

static int val(int r, int i) { return (r * 7 + i * 13) % 11; }

static void blocking_routed(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    enum { N = 1000 };
    int *a = malloc(N * sizeof *a), *b = malloc((size_t)N * n * sizeof *b);
    int *c = malloc((size_t)N * n * sizeof *c);
    double *d = malloc(N * sizeof *d);

    for (int cnt = 1; cnt <= N; cnt *= 10) {      /* 4 B .. 4 KB: both sides of the size table */
        for (int i = 0; i < cnt; i++) a[i] = val(me, i);
        MPI_Allreduce(a, b, cnt, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < cnt; i++) {
            int want = 0;
            for (int r = 0; r < n; r++) want += val(r, i);
            CHECK(b[i] == want, "allreduce sum count %d [%d] = %d, want %d", cnt, i, b[i], want);
        }
    }
    for (int i = 0; i < N; i++) d[i] = me + i * 0.5;
    MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_MAX, comm);
    for (int i = 0; i < N; i++) CHECK(d[i] == n - 1 + i * 0.5, "allreduce in place max [%d]", i);

    for (int root = 0; root < n; root++) {
        for (int i = 0; i < N; i++) a[i] = me == root ? val(root, i) : -1;
        MPI_Bcast(a, N, MPI_INT, root, comm);
        for (int i = 0; i < N; i++) CHECK(a[i] == val(root, i), "bcast root %d [%d]", root, i);

        for (int i = 0; i < N; i++) a[i] = val(me, i);
        for (int i = 0; i < N; i++) b[i] = -1;
        MPI_Reduce(a, b, N, MPI_INT, MPI_MIN, root, comm);
        if (me == root)
            for (int i = 0; i < N; i++) {
                int want = val(0, i);
                for (int r = 1; r < n; r++) want = val(r, i) < want ? val(r, i) : want;
                CHECK(b[i] == want, "reduce min root %d [%d]", root, i);
            }
    }
    /* a strided type: every other int (packed by the layer) */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < N; i++) a[i] = me == 1 % n ? val(9, i) : -2;
    MPI_Bcast(a, 1, every_other, 1 % n, comm);
    for (int i = 0; i < N; i++)
        CHECK(a[i] == (i % 2 == 0 || me == 1 % n ? val(9, i) : -2), "bcast vector [%d] = %d", i, a[i]);
    MPI_Type_free(&every_other);

    /* allgather: sent as MPI_INT, received as a contiguous type of 10 ints */
    MPI_Datatype ten;
    MPI_Type_contiguous(10, MPI_INT, &ten);
    MPI_Type_commit(&ten);
    for (int i = 0; i < 10; i++) a[i] = val(me, i);
    MPI_Allgather(a, 10, MPI_INT, b, 1, ten, comm);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 10; i++) CHECK(b[r * 10 + i] == val(r, i), "allgather [%d][%d]", r, i);
    for (int i = 0; i < 10 * n; i++) b[i] = i / 10 == me ? val(me + 1, i) : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 10, MPI_INT, comm);
    for (int i = 0; i < 10 * n; i++) CHECK(b[i] == val(i / 10 + 1, i), "allgather in place [%d]", i);
    MPI_Type_free(&ten);

    /* alltoall: block j of rank i holds i*100+j */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 5; i++) a[j * 5 + i] = me * 100 + j + i * 1000;
    MPI_Alltoall(a, 5, MPI_INT, b, 5, MPI_INT, comm);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 5; i++)
            CHECK(b[j * 5 + i] == j * 100 + me + i * 1000, "alltoall [%d][%d]", j, i);

    int root = n - 1;
    for (int i = 0; i < 7; i++) a[i] = val(me, i);
    MPI_Gather(a, 7, MPI_INT, c, 7, MPI_INT, root, comm);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 7; i++) CHECK(c[r * 7 + i] == val(r, i), "gather [%d][%d]", r, i);
    if (me == root)
        for (int i = 0; i < 7 * n; i++) c[i] = val(i / 7 + 3, i);
    MPI_Scatter(c, 7, MPI_INT, a, 7, MPI_INT, root, comm);
    for (int i = 0; i < 7; i++) CHECK(a[i] == val(me + 3, me * 7 + i), "scatter [%d]", i);

    for (int i = 0; i < 3 * n; i++) a[i] = val(me, i);
    MPI_Reduce_scatter_block(a, b, 3, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 3; i++) {
        int want = 0;
        for (int r = 0; r < n; r++) want += val(r, me * 3 + i);
        CHECK(b[i] == want, "reduce_scatter_block [%d]", i);
    }
    int *counts = malloc((size_t)n * sizeof *counts);
    for (int r = 0; r < n; r++) counts[r] = 3;
    MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 3; i++) {
        int want = 0;
        for (int r = 0; r < n; r++) want += val(r, me * 3 + i);
        CHECK(b[i] == want, "reduce_scatter equal counts [%d]", i);
    }
    MPI_Barrier(comm);
    free(counts);
    free(a);
    free(b);
    free(c);
    free(d);
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}

static void fall_through(void)
{
    short s = (short)(rank + 1), st = 0;
    MPI_Allreduce(&s, &st, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(st == size * (size + 1) / 2, "allreduce short");
    int t = rank != 1, all = -1;
    MPI_Allreduce(&t, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK(all == (size == 1), "allreduce land");
    struct { int v, r; } in = { val(rank, 3), rank }, out = { -1, -1 };
    MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    int mv = val(0, 3), mr = 0;
    for (int r = 1; r < size; r++)
        if (val(r, 3) < mv) mv = val(r, 3), mr = r;
    CHECK(out.v == mv && out.r == mr, "allreduce minloc");
    MPI_Op op;
    MPI_Op_create(user_max, 1, &op);
    int x = val(rank, 5), mx = -1;
    MPI_Allreduce(&x, &mx, 1, MPI_INT, op, MPI_COMM_WORLD);
    int want = 0;
    for (int r = 0; r < size; r++) want = val(r, 5) > want ? val(r, 5) : want;
    CHECK(mx == want, "allreduce user op");
    MPI_Op_free(&op);

    /* unequal counts: rank r gets r+1 elements */
    int total = size * (size + 1) / 2;
    int *counts = malloc((size_t)size * sizeof *counts), *a = malloc((size_t)total * sizeof *a);
    int b[64];
    for (int r = 0; r < size; r++) counts[r] = r + 1;
    for (int i = 0; i < total; i++) a[i] = i;
    MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int off = rank * (rank + 1) / 2;
    for (int i = 0; i <= rank; i++) CHECK(b[i] == (off + i) * size, "reduce_scatter unequal [%d]", i);
    free(counts);
    free(a);

    /* an intercommunicator between even and odd ranks */
    if (size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
        int v = rank, sum = -1, rsize;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
        int w = 0;
        for (int r = 0; r < size; r++)
            if (r % 2 != rank % 2) w += r;
        CHECK(sum == w, "intercomm allreduce = %d, want %d", sum, w);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* an allgatherv whose receive blocks overlap (all at 0, as MPICH's
     * allgatherv4 does): Plexus refuses it, so it must stay with MPI */
    {
        int *cnt = malloc((size_t)size * sizeof(int)), *dsp = calloc((size_t)size, sizeof(int));
        int same = 42, got = -1;
        for (int r = 0; r < size; r++) cnt[r] = 1;
        MPI_Allgatherv(&same, 1, MPI_INT, &got, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        CHECK(got == 42, "overlapping allgatherv: %d", got);
        free(cnt);
        free(dsp);
    }
    /* MPI_Comm_create_group: collective over the group only (its twin too) */
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int range[1][3] = { { 0, size - 1, 2 } };
    MPI_Group_range_incl(wg, 1, range, &eg);
    if (rank % 2 == 0) {
        MPI_Comm ec;
        MPI_Comm_create_group(MPI_COMM_WORLD, eg, 5, &ec);
        int v = 1, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ec);
        CHECK(sum == (size + 1) / 2, "create_group allreduce");
        MPI_Comm_free(&ec);
    }
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
}

static void nonblocking_mixed(void)
{
    enum { N = 512 };
    int sum_in[N], sum_out[N], bc[N], ring_out[N], ring_in[N], um_in = val(rank, 8), um = -1;
    for (int i = 0; i < N; i++) {
        sum_in[i] = val(rank, i);
        bc[i] = rank == 0 ? val(42, i) : -1;
        ring_out[i] = rank * 1000 + i;
    }
    MPI_Op op;
    MPI_Op_create(user_max, 1, &op);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < 4; round++) {
        MPI_Request rq[5];
        MPI_Status stv[5];
        MPI_Irecv(ring_in, N, MPI_INT, left, 11, MPI_COMM_WORLD, &rq[0]);
        MPI_Iallreduce(sum_in, sum_out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(ring_out, N, MPI_INT, right, 11, MPI_COMM_WORLD, &rq[2]);
        MPI_Ibcast(bc, N, MPI_INT, 0, MPI_COMM_WORLD, &rq[3]);
        MPI_Iallreduce(&um_in, &um, 1, MPI_INT, op, MPI_COMM_WORLD, &rq[4]);   /* stays with MPI */
        if (round == 0) {
            CHECK(MPI_Waitall(5, rq, stv) == MPI_SUCCESS, "waitall");
            int cnt = -1, canc = -1;
            MPI_Get_count(&stv[0], MPI_INT, &cnt);
            CHECK(stv[0].MPI_SOURCE == left && stv[0].MPI_TAG == 11 && cnt == N, "recv status");
            MPI_Get_count(&stv[1], MPI_BYTE, &cnt);
            MPI_Test_cancelled(&stv[1], &canc);
            if (all_routed)
                CHECK(cnt == 0 && !canc, "collective status count %d cancelled %d", cnt, canc);
        } else if (round == 1) {
            for (int k = 0; k < 5; k++) {
                int idx = -1;
                MPI_Waitany(5, rq, &idx, &stv[0]);
                CHECK(idx >= 0 && idx < 5 && rq[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
            }
            int idx = 0;
            MPI_Waitany(5, rq, &idx, MPI_STATUS_IGNORE);
            CHECK(idx == MPI_UNDEFINED, "waitany on nothing gives MPI_UNDEFINED");
        } else if (round == 2) {
            int done = 0, out, idx[5];
            while (done < 5) {
                MPI_Waitsome(5, rq, &out, idx, stv);
                CHECK(out >= 1 && out <= 5 - done, "waitsome outcount %d", out);
                if (out < 1) break;
                done += out;
            }
        } else {
            int flag = 0;
            for (long spins = 0; !flag && spins < 100000000L; spins++)
                MPI_Testall(5, rq, &flag, stv);
            CHECK(flag, "testall never completed");
        }
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) want += val(r, i);
            CHECK(sum_out[i] == want, "iallreduce round %d [%d]", round, i);
            CHECK(bc[i] == val(42, i), "ibcast round %d [%d]", round, i);
            CHECK(ring_in[i] == left * 1000 + i, "ring round %d [%d]", round, i);
        }
        int want = 0;
        for (int r = 0; r < size; r++) want = val(r, 8) > want ? val(r, 8) : want;
        CHECK(um == want, "iallreduce user op round %d", round);
    }
    MPI_Op_free(&op);

    /* MPI_Test loop, and a freed ibarrier (completed by the layer later) */
    MPI_Request r1, r2;
    int x = rank, y = -1, flag = 0;
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r1);
    for (long spins = 0; !flag && spins < 100000000L; spins++) MPI_Test(&r1, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && y == size - 1 && r1 == MPI_REQUEST_NULL, "test loop iallreduce");
    if (all_routed) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r2);
        MPI_Request_free(&r2);
        CHECK(r2 == MPI_REQUEST_NULL, "request_free sets MPI_REQUEST_NULL");
    }
    /* every nonblocking collective, waited in reverse order */
    int g[64], s[64], a2a[64], in[64], rs[8];
    MPI_Request rv[6];
    for (int i = 0; i < 2 * size; i++) in[i] = val(rank, i);
    MPI_Iallgather(in, 2, MPI_INT, g, 2, MPI_INT, MPI_COMM_WORLD, &rv[0]);
    MPI_Igather(in, 2, MPI_INT, s, 2, MPI_INT, 0, MPI_COMM_WORLD, &rv[1]);
    MPI_Ialltoall(in, 2, MPI_INT, a2a, 2, MPI_INT, MPI_COMM_WORLD, &rv[2]);
    MPI_Ireduce(in, rs, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rv[3]);
    MPI_Ireduce_scatter_block(in, &rs[2], 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rv[4]);
    MPI_Ibarrier(MPI_COMM_WORLD, &rv[5]);
    for (int k = 5; k >= 0; k--) MPI_Wait(&rv[k], MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2; i++) {
            CHECK(g[r * 2 + i] == val(r, i), "iallgather");
            if (rank == 0) CHECK(s[r * 2 + i] == val(r, i), "igather");
            CHECK(a2a[r * 2 + i] == val(r, rank * 2 + i), "ialltoall");
        }
    for (int i = 0; i < 2; i++) {
        int w0 = 0, w1 = 0;
        for (int r = 0; r < size; r++) w0 += val(r, i), w1 += val(r, rank * 2 + i);
        if (rank == 0) CHECK(rs[i] == w0, "ireduce");
        CHECK(rs[2 + i] == w1, "ireduce_scatter_block");
    }
    /* a non-contiguous type freed as soon as the call has started (MPI allows
     * it; the layer unpacks at completion) */
    int vec[2 * N];
    for (int i = 0; i < 2 * N; i++) vec[i] = rank == 0 ? val(5, i) : -3;
    MPI_Datatype strided;
    MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Ibcast(vec, 1, strided, 0, MPI_COMM_WORLD, &rv[0]);
    MPI_Type_free(&strided);
    MPI_Wait(&rv[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * N; i++)
        CHECK(vec[i] == (i % 2 == 0 || rank == 0 ? val(5, i) : -3), "ibcast freed vector [%d]", i);
    int sc[2];
    MPI_Iscatter(in, 2, MPI_INT, sc, 2, MPI_INT, 0, MPI_COMM_WORLD, &rv[0]);
    MPI_Wait(&rv[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; i++) CHECK(sc[i] == val(0, rank * 2 + i), "iscatter");
}

static void comm_loop(void)
{
    for (int it = 0; it < 30; it++) {
        MPI_Comm sp, dup, node, cr;
        MPI_Comm_split(MPI_COMM_WORLD, (rank + it) % 2, -rank, &sp);
        int sr, ss, v = rank, sum = -1;
        MPI_Comm_rank(sp, &sr);
        MPI_Comm_size(sp, &ss);
        /* a nonblocking collective on sp stays in flight while sp is duplicated */
        MPI_Request rq;
        MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, sp, &rq);
        MPI_Comm_dup(sp, &dup);
        int want = 0;
        for (int r = 0; r < size; r++)
            if ((r + it) % 2 == (rank + it) % 2) want += r;
        int b = sr == ss - 1 ? it : -1;
        MPI_Bcast(&b, 1, MPI_INT, ss - 1, dup);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        CHECK(sum == want && b == it, "comm loop %d: split sum %d want %d, dup bcast %d", it, sum,
              want, b);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int one = 1, n = 0;
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, node);
        int nsize;
        MPI_Comm_size(node, &nsize);
        CHECK(n == nsize, "split_type allreduce");
        MPI_Group wg, g;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        int first = it % size;
        MPI_Group_incl(wg, 1, &first, &g);
        MPI_Comm_create(MPI_COMM_WORLD, g, &cr);        /* one rank in, the others MPI_COMM_NULL */
        CHECK((cr != MPI_COMM_NULL) == (rank == first), "comm_create membership");
        if (cr != MPI_COMM_NULL) {
            MPI_Barrier(cr);
            MPI_Comm_free(&cr);
        }
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        MPI_Comm_free(&node);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&sp);
    }
}

static void error_path(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int out[4];
    /* a NULL send buffer with a count: Plexus refuses it before any communication */
    int rc = MPI_Allreduce(NULL, out, 4, MPI_INT, MPI_SUM, c);
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "plexus error: rc %d class %d (want MPI_ERR_ARG)",
          rc, cls);
    /* the layer gives Plexus' text where the MPI takes a new code in a
     * predefined class (Open MPI), else the class itself (MPICH) */
    CHECK(strstr(msg, "Plexus") != NULL || cls == rc, "error string '%s' does not name Plexus", msg);
    if (rank == 0)
        printf("mpi_layer_check: error path: class MPI_ERR_ARG, code %s, '%s'\n",
               rc == cls ? "= class" : "of its own", msg);
    MPI_Comm_free(&c);
}

typedef struct thread_arg {
    MPI_Comm comm;
    int id, fails;
} thread_arg_t;

static void *thread_body(void *p)
{
    thread_arg_t *t = p;
    int n, me;
    MPI_Comm_size(t->comm, &n);
    MPI_Comm_rank(t->comm, &me);
    for (int it = 0; it < 200; it++) {
        int v[64], out[64], bc[16];
        for (int i = 0; i < 64; i++) v[i] = val(me + t->id, i + it);
        for (int i = 0; i < 16; i++) bc[i] = me == it % n ? it + t->id + i : -1;
        MPI_Request rq;
        MPI_Ibcast(bc, 16, MPI_INT, it % n, t->comm, &rq);
        MPI_Allreduce(v, out, 64, MPI_INT, MPI_SUM, t->comm);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int i = 0; i < 64; i++) {
            int want = 0;
            for (int r = 0; r < n; r++) want += val(r + t->id, i + it);
            if (out[i] != want) t->fails++;
        }
        for (int i = 0; i < 16; i++)
            if (bc[i] != it + t->id + i) t->fails++;
    }
    return NULL;
}

/* concatenation of decimal digit strings, the length in the top bits:
 * associative, not commutative (1 op 2 = 12, 2 op 1 = 21) */
#define CAT_SHIFT 48
static long long cat(long long a, long long b)
{
    long long la = a >> CAT_SHIFT, lb = b >> CAT_SHIFT, da = a & ((1LL << CAT_SHIFT) - 1);
    long long db = b & ((1LL << CAT_SHIFT) - 1);
    for (long long i = 0; i < lb; i++) da *= 10;
    return ((la + lb) << CAT_SHIFT) | (da + db);
}
static void user_cat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((long long *)inout)[i] = cat(((long long *)in)[i], ((long long *)inout)[i]);
}
/* "12..(k)" as cat's value */
static long long digits_upto(int k)
{
    long long v = 0;
    for (int r = 0; r < k; r++) v = cat(v, (1LL << CAT_SHIFT) | (r % 9 + 1));
    return v;
}

static void vector_and_scan(void)
{
    enum { G = 4 };                     /* gap between blocks, in elements */
    int n = size, me = rank;
    int *cnt = malloc((size_t)n * sizeof(int)), *dsp = malloc((size_t)n * sizeof(int));
    int *cnt2 = malloc((size_t)n * sizeof(int)), *dsp2 = malloc((size_t)n * sizeof(int));
    int tot = 0;
    /* rank r's block: r % 3 elements (rank 0: none), laid out last rank first */
    for (int r = n - 1; r >= 0; r--) {
        cnt[r] = r % 3;
        dsp[r] = tot;
        tot += cnt[r] + G;
    }
    int *buf = malloc((size_t)tot * 2 * sizeof(int)), mine[3];
    for (int i = 0; i < 3; i++) mine[i] = val(me, i);

    /* allgatherv, then in place */
    for (int ip = 0; ip < 2; ip++) {
        for (int i = 0; i < tot; i++) buf[i] = -1;
        if (ip) for (int i = 0; i < cnt[me]; i++) buf[dsp[me] + i] = mine[i];
        MPI_Allgatherv(ip ? MPI_IN_PLACE : mine, cnt[me], MPI_INT, buf, cnt, dsp, MPI_INT,
                       MPI_COMM_WORLD);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt[r]; i++)
                CHECK(buf[dsp[r] + i] == val(r, i), "allgatherv%s [%d][%d]", ip ? " in place" : "", r, i);
        CHECK(buf[dsp[0] + cnt[0]] == -1, "allgatherv wrote into a gap");
    }

    /* gatherv into a non-dense type (ints 2 apart), then igatherv in place */
    int root = 1 % n;
    MPI_Datatype spread;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spread);
    MPI_Type_commit(&spread);
    for (int i = 0; i < 2 * tot; i++) buf[i] = -1;
    MPI_Gatherv(mine, cnt[me], MPI_INT, buf, cnt, dsp, spread, root, MPI_COMM_WORLD);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt[r]; i++) {
                CHECK(buf[2 * (dsp[r] + i)] == val(r, i), "gatherv spread [%d][%d]", r, i);
                CHECK(buf[2 * (dsp[r] + i) + 1] == -1, "gatherv spread wrote a hole");
            }
    for (int i = 0; i < tot; i++) buf[i] = -1;
    if (me == root) for (int i = 0; i < cnt[me]; i++) buf[dsp[me] + i] = mine[i];
    MPI_Request rq;
    MPI_Igatherv(me == root ? MPI_IN_PLACE : mine, cnt[me], MPI_INT, buf, cnt, dsp, MPI_INT, root,
                 MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt[r]; i++)
                CHECK(buf[dsp[r] + i] == val(r, i), "igatherv in place [%d][%d]", r, i);

    /* scatterv from the blocks, then iscatterv in place at the root */
    for (int i = 0; i < tot; i++) buf[i] = 1000 + i;
    int got[3] = { -1, -1, -1 };
    MPI_Scatterv(buf, cnt, dsp, MPI_INT, got, cnt[me], MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        CHECK(got[i] == (i < cnt[me] ? 1000 + dsp[me] + i : -1), "scatterv [%d] = %d", i, got[i]);
    got[0] = got[1] = got[2] = -1;
    MPI_Iscatterv(buf, cnt, dsp, MPI_INT, me == root ? MPI_IN_PLACE : got, cnt[me], MPI_INT, root,
                  MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (me != root)
        for (int i = 0; i < cnt[me]; i++) CHECK(got[i] == 1000 + dsp[me] + i, "iscatterv [%d]", i);
    MPI_Type_free(&spread);

    /* alltoallv: (me + j) % 3 elements each way, every send block at
     * displacement 0 (overlapping reads), receive blocks reversed with gaps */
    int sbuf[3], rtot = 0;
    for (int i = 0; i < 3; i++) sbuf[i] = me * 100 + i;
    for (int j = n - 1; j >= 0; j--) {
        cnt2[j] = (me + j) % 3;
        dsp2[j] = rtot;
        rtot += cnt2[j] + 1;
        dsp[j] = 0;
    }
    for (int i = 0; i < rtot; i++) buf[i] = -1;
    MPI_Alltoallv(sbuf, cnt2, dsp, MPI_INT, buf, cnt2, dsp2, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < cnt2[j]; i++)
            CHECK(buf[dsp2[j] + i] == j * 100 + i, "alltoallv [%d][%d] = %d", j, i, buf[dsp2[j] + i]);
    /* in place (the counts are symmetric, as in place needs) */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < cnt2[j]; i++) buf[dsp2[j] + i] = me * 100 + j * 10 + i;
    MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, buf, cnt2, dsp2, MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < cnt2[j]; i++)
            CHECK(buf[dsp2[j] + i] == j * 100 + me * 10 + i, "ialltoallv in place [%d][%d]", j, i);

    /* reduce_scatter, unequal counts with zeros, in place */
    int sum = 0, off = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = r % 3;
        if (r < me) off += cnt[r];
        sum += cnt[r];
    }
    for (int i = 0; i < sum; i++) buf[i] = i + me;
    MPI_Reduce_scatter(MPI_IN_PLACE, buf, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < cnt[me]; i++)
        CHECK(buf[i] == (off + i) * n + n * (n - 1) / 2, "reduce_scatter unequal in place [%d]", i);

    /* scan / exscan with a non-commutative op: rank r must see "12..r+1" */
    MPI_Op catop;
    MPI_Op_create(user_cat, 0, &catop);
    long long d = (1LL << CAT_SHIFT) | (me % 9 + 1), s2[2] = { d, d }, r2[2] = { -1, -1 };
    MPI_Scan(s2, r2, 2, MPI_INT64_T, catop, MPI_COMM_WORLD);
    CHECK(r2[0] == digits_upto(me + 1) && r2[1] == r2[0], "scan cat = %lld, want %lld",
          r2[0] & ((1LL << CAT_SHIFT) - 1), digits_upto(me + 1) & ((1LL << CAT_SHIFT) - 1));
    r2[0] = r2[1] = d;
    MPI_Exscan(MPI_IN_PLACE, r2, 2, MPI_INT64_T, catop, MPI_COMM_WORLD);
    if (me > 0) CHECK(r2[0] == digits_upto(me) && r2[1] == r2[0], "exscan cat in place");
    MPI_Iscan(MPI_IN_PLACE, s2, 2, MPI_INT64_T, catop, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(s2[0] == digits_upto(me + 1), "iscan cat in place");
    MPI_Op_free(&catop);
    int x = me + 1, ex = -1;
    MPI_Iexscan(&x, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (me > 0) CHECK(ex == me * (me + 1) / 2, "iexscan sum %d", ex);
    free(cnt);
    free(dsp);
    free(cnt2);
    free(dsp2);
    free(buf);
}

static void threads(void)
{
    thread_arg_t t[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        t[i].id = i;
        t[i].fails = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &t[i].comm);       /* from this thread: creation is collective */
    }
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, thread_body, &t[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK(t[i].fails == 0, "thread %d: %d wrong results", i, t[i].fails);
        MPI_Comm_free(&t[i].comm);
    }
}

/* --lazy: twins only where a blocking collective ran (see the header) */
static int lazy_loop(void)
{
    int expect = 0;
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int range[1][3] = { { 0, size - 1, 2 } };
    MPI_Group_range_incl(wg, 1, range, &eg);
    for (int it = 0; it < 24; it++) {
        MPI_Comm dup, sp, grp = MPI_COMM_NULL, idup;
        MPI_Request rq;
        int v = rank + it, sum = -1, want = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        if (it % 3 == 0) {              /* blocking: makes the twin */
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup);
            expect++;
        } else if (it % 3 == 1) {       /* nonblocking only: stays with MPI, no twin */
            MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            sum = -2;                   /* nothing at all */
        }
        for (int r = 0; r < size; r++) want += r + it;
        CHECK(sum == (it % 3 == 2 ? -2 : want), "lazy %d: dup allreduce %d want %d", it, sum, want);

        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sp);
        if (it % 2) {
            int b = it * 10 + rank % 2;
            MPI_Bcast(&b, 1, MPI_INT, 0, sp);
            CHECK(b == it * 10 + rank % 2, "lazy %d: split bcast %d", it, b);
            expect++;
        }
        if (rank % 2 == 0) {
            MPI_Comm_create_group(MPI_COMM_WORLD, eg, 40 + it, &grp);
            if (it % 4 == 0) {
                MPI_Barrier(grp);
                int one = 1, n = 0;
                MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, grp);
                CHECK(n == (size + 1) / 2, "lazy %d: create_group allreduce %d", it, n);
                expect++;
            }
        }
        MPI_Comm_idup(MPI_COMM_WORLD, &idup, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (it % 3 == 1) {
            int *all = malloc((size_t)size * sizeof(int));
            MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, idup);
            for (int r = 0; r < size; r++) CHECK(all[r] == r, "lazy %d: idup allgather [%d] = %d", it, r, all[r]);
            free(all);
            expect++;
        }
        if (grp != MPI_COMM_NULL) MPI_Comm_free(&grp);
        MPI_Comm_free(&idup);
        MPI_Comm_free(&sp);
        MPI_Comm_free(&dup);
    }
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);
    return expect;
}

int main(int argc, char **argv)
{
    int provided = -1;
    /* --funneled: below MPI_THREAD_MULTIPLE the layer keeps its size rule
     * as element counts per type (lib/mpi/call.c), so that is tested too */
    int funneled = argc > 1 && !strcmp(argv[1], "--funneled");
    MPI_Init_thread(&argc, &argv, funneled ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *colls = getenv("PLX_MPI_COLLS"), *off = getenv("PLX_MPI");
    all_routed = colls && !strcmp(colls, "all") && !(off && !strcmp(off, "0"));
    int q = -1;
    MPI_Query_thread(&q);
    CHECK(q == provided, "MPI_Query_thread %d != provided %d", q, provided);

    if (argc > 1 && !strcmp(argv[1], "--lazy")) {
        int expect = lazy_loop(), all_fails = 0;
        MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) printf("mpi_layer_check: rank 0 expects %d twins\n", expect);
        printf("mpi_layer_check: rank %d of %d: lazy, %d failures\n", rank, size, fails);
        MPI_Finalize();
        return all_fails ? 1 : 0;
    }
    blocking_routed(MPI_COMM_WORLD);
    MPI_Comm odd_even;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd_even);
    blocking_routed(odd_even);
    MPI_Comm_free(&odd_even);
    fall_through();
    nonblocking_mixed();
    comm_loop();
    vector_and_scan();
    if (all_routed) error_path();
    if (provided == MPI_THREAD_MULTIPLE) threads();
    else if (rank == 0) printf("mpi_layer_check: MPI_THREAD_MULTIPLE not provided: no threads part\n");

    int all_fails = 0;
    MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpi_layer_check: rank %d of %d: thread level %d, %d failures\n", rank, size, provided,
           fails);
    MPI_Finalize();
    return all_fails ? 1 : 0;
}
