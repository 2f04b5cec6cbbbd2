/*
 * tests/unit/test_user_op.c — user-defined reduction ops below the
 * collectives: the registry (lib/core/user_op.c) and the way the reduction
 * entry points (lib/core/reduce.c) call the user's function.
 *
 * The op is a 2x2 matrix product mod 2^16 packed into each uint64 element:
 * associative, not commutative, so every operand-order mistake shows.
 * Checked: every alias form plx_reduce_local / plx_reduce_local3 allow
 * keeps "first operand = lower ranks" (x op y, never y op x); vectors
 * longer than one staging chunk and misaligned pointers; handles (live,
 * freed but still callable by collectives already started, never made),
 * commutativity, names, plx_op_valid.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plexus.h"
#include "core/reduce.h"
#include "core/user_op.h"

static uint64_t mat(uint64_t x, uint64_t y)
{
    uint64_t a = x & 0xffff, b = x >> 16 & 0xffff, c = x >> 32 & 0xffff, d = x >> 48;
    uint64_t e = y & 0xffff, f = y >> 16 & 0xffff, g = y >> 32 & 0xffff, h = y >> 48;
    return ((a * e + b * g) & 0xffff) | ((a * f + b * h) & 0xffff) << 16 |
           ((c * e + d * g) & 0xffff) << 32 | ((c * f + d * h) & 0xffff) << 48;
}

static int calls;

/* inout = in x inout (MPI's convention); pointers may be misaligned */
static void mat_fn(const void *in, void *inout, size_t n, plx_dtype_t dt, void *user)
{
    ck_assert_int_eq(dt, PLX_UINT64);
    ck_assert_ptr_eq(user, &calls);
    calls++;
    for (size_t i = 0; i < n; i++) {
        uint64_t x, y;
        memcpy(&x, (const char *)in + 8 * i, 8);
        memcpy(&y, (char *)inout + 8 * i, 8);
        y = mat(x, y);
        memcpy((char *)inout + 8 * i, &y, 8);
    }
}

static uint64_t val(int which, size_t i)
{
    uint64_t x = (uint64_t)which * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

#define N 1500   /* > one 4 KiB staging chunk of 8-byte elements */

START_TEST(test_order_all_aliases)
{
    plx_op_t op;
    ck_assert_int_eq(plx_op_create(mat_fn, 0, &calls, &op), PLX_SUCCESS);
    /* misaligned by _i bytes (0: aligned) */
    unsigned char *ba = malloc(8 * N + 8), *bb = malloc(8 * N + 8), *bd = malloc(8 * N + 8);
    uint64_t *a = (uint64_t *)(ba + _i), *b = (uint64_t *)(bb + _i), *d = (uint64_t *)(bd + _i);
#define FILL()                                                                  \
    for (size_t i = 0; i < N; i++) {                                            \
        uint64_t va = val(1, i), vb = val(2, i);                                \
        memcpy(&a[i], &va, 8);                                                  \
        memcpy(&b[i], &vb, 8);                                                  \
    }
#define EXPECT(buf, lhs, rhs)                                                   \
    for (size_t i = 0; i < N; i++) {                                            \
        uint64_t got;                                                           \
        memcpy(&got, &(buf)[i], 8);                                             \
        ck_assert_msg(got == mat(lhs, rhs), "element %zu", i);                  \
    }
    FILL();
    plx_reduce_local(a, b, N, PLX_UINT64, op);               /* a = a op b */
    EXPECT(a, val(1, i), val(2, i));
    FILL();
    plx_reduce_local(a, a, N, PLX_UINT64, op);               /* a = a op a */
    EXPECT(a, val(1, i), val(1, i));
    FILL();
    plx_reduce_local3(d, a, b, N, PLX_UINT64, op);           /* d = a op b */
    EXPECT(d, val(1, i), val(2, i));
    for (size_t i = 0; i < N; i++) {                         /* the inputs are kept */
        uint64_t got;
        memcpy(&got, &b[i], 8);
        ck_assert(got == val(2, i));
    }
    FILL();
    plx_reduce_local3(a, a, b, N, PLX_UINT64, op);           /* dst == a */
    EXPECT(a, val(1, i), val(2, i));
    FILL();
    plx_reduce_local3(b, a, b, N, PLX_UINT64, op);           /* dst == b */
    EXPECT(b, val(1, i), val(2, i));
    FILL();
    plx_reduce_local3(a, a, a, N, PLX_UINT64, op);           /* dst == a == b */
    EXPECT(a, val(1, i), val(1, i));
    ck_assert_int_gt(calls, 0);
    ck_assert_int_eq(plx_op_free(&op), PLX_SUCCESS);
    free(ba);
    free(bb);
    free(bd);
}
END_TEST

START_TEST(test_handles)
{
    plx_op_t op, op2;
    ck_assert_int_eq(plx_op_create(mat_fn, 0, &calls, &op), PLX_SUCCESS);
    ck_assert_int_eq(plx_op_create(mat_fn, 1, &calls, &op2), PLX_SUCCESS);
    ck_assert(op != op2);
    ck_assert(plx_op_is_user(op) && (unsigned)op >= PLX_OP_USER_BASE);
    ck_assert_int_eq(plx_op_commutative(op), 0);
    ck_assert_int_eq(plx_op_commutative(op2), 1);
    ck_assert_int_eq(plx_op_commutative(PLX_SUM), 1);
    ck_assert(plx_op_valid(PLX_UINT64, op) && plx_op_valid(PLX_FLOAT16, op));
    ck_assert(!plx_op_valid(PLX_DTYPE_COUNT, op));
    ck_assert_str_eq(plx_op_name(op), "user");
    ck_assert(plx_reduce_fn(PLX_UINT64, op) == NULL);

    plx_op_t stale = op;
    ck_assert_int_eq(plx_op_free(&op), PLX_SUCCESS);
    ck_assert(op == PLX_OP_NULL);
    ck_assert(!plx_op_valid(PLX_UINT64, stale));          /* no new calls ... */
    ck_assert(plx_user_op_live(stale) == NULL);
    ck_assert(plx_user_op_get(stale) != NULL);             /* ... but started ones go on */
    uint64_t x = val(1, 0), y = val(2, 0);
    plx_reduce_local(&x, &y, 1, PLX_UINT64, stale);
    ck_assert(x == mat(val(1, 0), val(2, 0)));
    ck_assert_int_eq(plx_op_free(&stale), PLX_ERR_INVALID_ARG);   /* twice */
    plx_op_t builtin = PLX_MAX;
    ck_assert_int_eq(plx_op_free(&builtin), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_op_create(NULL, 0, NULL, &op), PLX_ERR_INVALID_ARG);
    ck_assert_int_eq(plx_op_create(mat_fn, 0, NULL, NULL), PLX_ERR_INVALID_ARG);
    /* never created, and out of range */
    plx_op_t never = (plx_op_t)(PLX_OP_USER_BASE + 16000);
    ck_assert(plx_user_op_get(never) == NULL && !plx_op_valid(PLX_INT32, never));
    ck_assert(plx_user_op_get(PLX_OP_NULL) == NULL);
    ck_assert_str_eq(plx_op_name(PLX_OP_NULL), "unknown");
    ck_assert_int_eq(plx_op_free(&op2), PLX_SUCCESS);
}
END_TEST

static Suite *user_op_suite(void)
{
    Suite *s = suite_create("user_op");
    TCase *tc = tcase_create("user_op");
    tcase_add_loop_test(tc, test_order_all_aliases, 0, 3);
    tcase_add_test(tc, test_handles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(user_op_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
