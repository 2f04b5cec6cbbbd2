/*
 * examples/hello_allreduce.c — the README's example, complete: every rank
 * contributes its rank number to a sum over all ranks, and checks the
 * result.  Every call's status is checked, as a real code should.
 *
 *   cc hello_allreduce.c $(pkg-config --cflags --libs plexus) -o hello_allreduce
 *   plexusrun -n 4 ./hello_allreduce
 */
#include <plexus.h>

#include <stdio.h>
#include <stdlib.h>

/* Stop with the call and Plexus' explanation when a call fails. */
#define PLX_CHECK_CALL(call)                                                     \
    do {                                                                         \
        plx_status_t st_ = (call);                                               \
        if (st_ != PLX_SUCCESS) {                                                \
            fprintf(stderr, "%s failed: %s\n", #call, plx_strerror(st_));        \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

int main(void)
{
    plx_context_t ctx;
    plx_comm_t world;
    int rank, size;

    PLX_CHECK_CALL(plx_init(&ctx));
    PLX_CHECK_CALL(plx_comm_world(ctx, &world));
    PLX_CHECK_CALL(plx_comm_rank(world, &rank));
    PLX_CHECK_CALL(plx_comm_size(world, &size));

    float grads[4] = { (float)rank, 1.0f, 2.0f * (float)rank, 0.5f };
    PLX_CHECK_CALL(plx_allreduce(PLX_IN_PLACE, grads, 4, PLX_FLOAT32, PLX_SUM, world));

    /* sum of 0..size-1, computed once more by hand */
    float ranks = (float)size * (float)(size - 1) / 2;
    int ok = grads[0] == ranks && grads[1] == (float)size && grads[2] == 2 * ranks &&
             grads[3] == 0.5f * (float)size;
    printf("rank %d of %d: sum = {%g, %g, %g, %g} %s\n", rank, size, grads[0], grads[1], grads[2],
           grads[3], ok ? "ok" : "WRONG");

    PLX_CHECK_CALL(plx_finalize(&ctx));
    return ok ? 0 : 1;
}
