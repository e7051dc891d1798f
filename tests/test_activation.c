/* Tests of the vectorised GELU and ELU (activation.c): its Phi against a double-precision reference on a
 * dense grid of floats, with the error bounds docs/performance.md states; special values;
 * bit-identical results for any thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include <attngraph/layers.h>

static double phi_ref(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Every 257th float of each sign from 1e-7 to 16 (about 2 x 780,000 points, every binade with
 * 3,000 points), in chunks. Measured maxima over every 61st float: 1.53e-7 absolute for Phi,
 * 1.79e-7 for GELU's derivative; below the mean a relative error of 1.3e-6 down to -5 and 7.7e-6
 * in the far tail (rounding of x^2 in the exponent), where 0.5 (1 + erff(x / sqrt 2)) has no
 * relative accuracy left (100%). */
static void test_gelu_accuracy_dense_grid(void **state) {
    (void)state;
    enum { CH = 1 << 15 };
    float *x = malloc(CH * sizeof(float)), *y = malloc(CH * sizeof(float)), *d = malloc(CH * sizeof(float));
    float *ones = malloc(CH * sizeof(float));
    for (int k = 0; k < CH; k++) ones[k] = 1.0f;
    double max_abs = 0, max_rel_near = 0, max_rel_tail = 0, max_grad = 0;
    int64_t count = 0;
    for (int sign = 0; sign < 2; sign++) {
        uint32_t bits = 0x33d6bf95u; /* 1e-7 */
        const uint32_t end = 0x41800000u; /* 16 */
        while (bits < end) {
            int n = 0;
            for (; n < CH && bits < end; n++, bits += 257) {
                uint32_t b = bits | (sign ? 0x80000000u : 0u);
                memcpy(&x[n], &b, sizeof b);
            }
            ag_act_apply(AG_ACT_GELU, 0, 0, x, y, n);
            memset(d, 0, (size_t)n * sizeof(float));
            ag_act_grad(AG_ACT_GELU, 0, 0, x, ones, d, n);
            for (int k = 0; k < n; k++) {
                double xx = x[k], p = phi_ref(xx), ref = xx * p;
                /* Phi from GELU: y / x carries one more rounding (half an ulp of Phi) */
                double e = fabs((double)y[k] / xx - p);
                if (e > max_abs) max_abs = e;
                if (xx < 0 && p > 1e-37) {
                    double r = fabs((double)y[k] - ref) / fabs(ref);
                    if (xx >= -5.0 && r > max_rel_near) max_rel_near = r;
                    if (xx < -5.0 && r > max_rel_tail) max_rel_tail = r;
                }
                double g = p + xx * exp(-0.5 * xx * xx) / sqrt(2.0 * M_PI);
                if (fabs(d[k] - g) > max_grad) max_grad = fabs(d[k] - g);
                count++;
            }
        }
    }
    print_message("GELU over %lld floats: Phi abs %.3g, rel (-5 <= x < 0) %.3g, rel (x < -5) %.3g, grad abs %.3g\n",
                  (long long)count, max_abs, max_rel_near, max_rel_tail, max_grad);
    assert_true(count > 1000000);
    assert_true(max_abs < 1.6e-7);
    assert_true(max_rel_near < 2.5e-6);
    assert_true(max_rel_tail < 1e-5);
    assert_true(max_grad < 2e-7);
    free(x);
    free(y);
    free(d);
    free(ones);
}

static void test_gelu_special_values(void **state) {
    (void)state;
    const float x[8] = {0.0f, -0.0f, 8.0f, 100.0f, -20.0f, NAN, INFINITY, 1.0f};
    float y[8];
    ag_act_apply(AG_ACT_GELU, 0, 0, x, y, 8);
    assert_true(y[0] == 0.0f && !signbit(y[0]));
    assert_true(y[1] == 0.0f && signbit(y[1]));
    assert_float_equal(y[2], 8.0f, 0.0f);   /* Phi(8) rounds to 1 */
    assert_float_equal(y[3], 100.0f, 0.0f);
    assert_true(y[4] == 0.0f);              /* Phi(-20) = 2.8e-89: below float */
    assert_true(isnan(y[5]));
    assert_true(isinf(y[6]) && y[6] > 0);
    assert_float_equal(y[7], 0.8413447f, 1e-7f);
    /* in place */
    float z[3] = {-1.0f, 0.5f, 2.0f};
    ag_act_apply(AG_ACT_GELU, 0, 0, z, z, 3);
    assert_float_equal(z[0], -0.1586553f, 1e-7f);
    assert_float_equal(z[1], 0.3457312f, 1e-7f);
    assert_float_equal(z[2], 1.9544997f, 2e-7f);
}

static void test_gelu_threads_bit_identical(void **state) {
    (void)state;
    const int64_t n = 100003; /* parallel from 16,384 elements; not a multiple of the block */
    float *x = malloc((size_t)n * sizeof(float)), *y1 = malloc((size_t)n * sizeof(float));
    float *y2 = malloc((size_t)n * sizeof(float)), *d1 = calloc((size_t)n, sizeof(float));
    float *d2 = calloc((size_t)n, sizeof(float));
    for (int64_t k = 0; k < n; k++) x[k] = (float)((k * 7919) % 2001 - 1000) / 150.0f;
    ag_threads_set(1);
    ag_act_apply(AG_ACT_GELU, 0, 0, x, y1, n);
    ag_act_grad(AG_ACT_GELU, 0, 0, x, x, d1, n);
    ag_threads_set(2);
    ag_act_apply(AG_ACT_GELU, 0, 0, x, y2, n);
    ag_act_grad(AG_ACT_GELU, 0, 0, x, x, d2, n);
    ag_threads_set(0);
    assert_memory_equal(y1, y2, (size_t)n * sizeof(float));
    assert_memory_equal(d1, d2, (size_t)n * sizeof(float));
    /* and the elements are right */
    for (int64_t k = 0; k < n; k += 997)
        assert_float_equal(y1[k], (float)(x[k] * phi_ref(x[k])), 1.6e-7f * fabsf(x[k]) + 1e-30f);
    free(x);
    free(y1);
    free(y2);
    free(d1);
    free(d2);
}

/* ELU (alpha 1.3) against double-precision expm1 on every 257th negative float from -1e-7 to
 * -128, and its derivative alpha e^x; special values; in place; identical for 1 and 2 threads. */
static void test_elu_accuracy_and_special_values(void **state) {
    (void)state;
    enum { CH = 1 << 15 };
    const float alpha = 1.3f;
    float *x = malloc(CH * sizeof(float)), *y = malloc(CH * sizeof(float)), *d = malloc(CH * sizeof(float));
    float *ones = malloc(CH * sizeof(float));
    for (int k = 0; k < CH; k++) ones[k] = 1.0f;
    double max_rel = 0, max_grad_rel = 0;
    int64_t count = 0;
    uint32_t bits = 0xb3d6bf95u;       /* -1e-7 */
    const uint32_t end = 0xc3000000u;  /* -128 */
    while (bits < end) {
        int n = 0;
        for (; n < CH && bits < end; n++, bits += 257) memcpy(&x[n], &bits, sizeof bits);
        ag_act_apply(AG_ACT_ELU, 0, alpha, x, y, n);
        memset(d, 0, (size_t)n * sizeof(float));
        ag_act_grad(AG_ACT_ELU, 0, alpha, x, ones, d, n);
        for (int k = 0; k < n; k++) {
            double ref = (double)alpha * expm1((double)x[k]);
            double r = fabs((double)y[k] - ref) / fabs(ref);
            if (r > max_rel) max_rel = r;
            double g = (double)alpha * exp((double)x[k]);
            if (g > 1e-37) {
                double rg = fabs((double)d[k] - g) / g;
                if (rg > max_grad_rel) max_grad_rel = rg;
            } else {
                assert_true(d[k] >= 0.0f && d[k] < 1e-36f);
            }
            count++;
        }
    }
    print_message("ELU over %lld floats: rel %.3g, grad rel %.3g\n", (long long)count, max_rel, max_grad_rel);
    assert_true(count > 500000);
    assert_true(max_rel < 1e-6);
    assert_true(max_grad_rel < 1e-6);
    const float sx[7] = {0.0f, -0.0f, 2.5f, INFINITY, -INFINITY, NAN, -1000.0f};
    float sy[7];
    ag_act_apply(AG_ACT_ELU, 0, alpha, sx, sy, 7);
    assert_true(sy[0] == 0.0f && sy[1] == 0.0f);
    assert_float_equal(sy[2], 2.5f, 0.0f);
    assert_true(isinf(sy[3]) && sy[3] > 0);
    assert_float_equal(sy[4], -alpha, 0.0f);
    assert_true(isnan(sy[5]));
    assert_float_equal(sy[6], -alpha, 0.0f);
    float z[2] = {-1.0f, 0.75f};
    ag_act_apply(AG_ACT_ELU, 0, 1.0f, z, z, 2);
    assert_float_equal(z[0], -0.63212056f, 1e-7f);
    assert_float_equal(z[1], 0.75f, 0.0f);
    /* identical for any thread count (parallel from 16,384 elements) */
    const int64_t n = 100003;
    float *x2 = malloc((size_t)n * sizeof(float)), *y1 = malloc((size_t)n * sizeof(float));
    float *y2 = malloc((size_t)n * sizeof(float)), *d1 = calloc((size_t)n, sizeof(float));
    float *d2 = calloc((size_t)n, sizeof(float));
    for (int64_t k = 0; k < n; k++) x2[k] = (float)((k * 7919) % 2001 - 1000) / 150.0f;
    ag_threads_set(1);
    ag_act_apply(AG_ACT_ELU, 0, alpha, x2, y1, n);
    ag_act_grad(AG_ACT_ELU, 0, alpha, x2, x2, d1, n);
    ag_threads_set(2);
    ag_act_apply(AG_ACT_ELU, 0, alpha, x2, y2, n);
    ag_act_grad(AG_ACT_ELU, 0, alpha, x2, x2, d2, n);
    ag_threads_set(0);
    assert_memory_equal(y1, y2, (size_t)n * sizeof(float));
    assert_memory_equal(d1, d2, (size_t)n * sizeof(float));
    free(x2);
    free(y1);
    free(y2);
    free(d1);
    free(d2);
    free(x);
    free(y);
    free(d);
    free(ones);
}

/* The fused activation and residual sum of inference: Y = f(X) + R bit for bit as the activation
 * then the sum, for every kind, over several blocks (the parallel path) and a ragged tail, on 1
 * and 2 threads; and each kind applied to a few hand-picked values. */
static void test_apply_add_matches_apply_then_add(void **state) {
    (void)state;
    const int64_t n = 5 * 4096 + 37;
    float *X = malloc(sizeof *X * (size_t)n), *R = malloc(sizeof *R * (size_t)n);
    float *Y1 = malloc(sizeof *Y1 * (size_t)n), *Y2 = malloc(sizeof *Y2 * (size_t)n);
    for (int64_t k = 0; k < n; k++) {
        X[k] = (float)((k * 7919) % 2001 - 1000) / 125.0f; /* -8 .. 8 */
        R[k] = (float)((k * 104729) % 997) / 997.0f - 0.5f;
    }
    for (int kind = AG_ACT_IDENTITY; kind <= AG_ACT_GELU; kind++)
        for (int threads = 1; threads <= 2; threads++) {
            ag_threads_set(threads);
            ag_act_apply((ag_act_kind_t)kind, 0.01f, 1.0f, X, Y1, n);
            for (int64_t k = 0; k < n; k++) Y1[k] = Y1[k] + R[k];
            ag_act_apply_add((ag_act_kind_t)kind, 0.01f, 1.0f, X, R, Y2, n);
            if (memcmp(Y1, Y2, sizeof *Y1 * (size_t)n) != 0) fail_msg("%s, %d threads", ag_act_name((ag_act_kind_t)kind), threads);
        }
    ag_threads_set(1);
    const float x[3] = {-1.0f, 0.0f, 2.0f}, r[3] = {0.5f, 0.25f, -1.0f};
    float y[3];
    ag_act_apply_add(AG_ACT_RELU, 0.01f, 1.0f, x, r, y, 3);
    assert_float_equal(y[0], 0.5f, 0);
    assert_float_equal(y[1], 0.25f, 0);
    assert_float_equal(y[2], 1.0f, 0);
    ag_act_apply_add(AG_ACT_LEAKY_RELU, 0.25f, 1.0f, x, r, y, 3);
    assert_float_equal(y[0], 0.25f, 0);
    ag_act_apply_add(AG_ACT_ELU, 0.01f, 1.0f, x, r, y, 3);
    assert_float_equal(y[0], expf(-1.0f) - 1.0f + 0.5f, 1e-6);
    free(X); free(R); free(Y1); free(Y2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gelu_accuracy_dense_grid),
        cmocka_unit_test(test_gelu_special_values),
        cmocka_unit_test(test_gelu_threads_bit_identical),
        cmocka_unit_test(test_elu_accuracy_and_special_values),
        cmocka_unit_test(test_apply_add_matches_apply_then_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
