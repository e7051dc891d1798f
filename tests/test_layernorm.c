/* Tests of the layer norm's row kernel (layernorm.c, summed in 8 lanes of double): against a
 * double-precision reference for widths around the lane count and with a large common offset,
 * rows split between threads with the same bits, the statistics cached for the backward. */
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
#include <attngraph/rng.h>

static void check_widths(int64_t F, float offset) {
    const int64_t N = 300; /* more than one block of 64 rows, not a multiple */
    ag_layernorm_t ln;
    ag_layernorm_config_t cfg = {F, 1e-5f};
    assert_int_equal(ag_layernorm_init(&ln, &cfg, 0), AG_SUCCESS);
    for (int64_t c = 0; c < F; c++) {
        ln.gamma[c] = 0.5f + 0.01f * (float)c;
        ln.beta[c] = -0.25f + 0.02f * (float)c;
    }
    float *X = malloc((size_t)(N * F) * sizeof(float)), *Y1 = malloc((size_t)(N * F) * sizeof(float));
    float *Y2 = malloc((size_t)(N * F) * sizeof(float));
    for (int64_t k = 0; k < N * F; k++) X[k] = offset + 4.0f * ag_rng_uniform(21, (uint64_t)F, (uint64_t)k) - 2.0f;
    ag_threads_set(1);
    assert_int_equal(ag_layernorm_forward(&ln, X, Y1, N, 1, NULL), AG_SUCCESS);
    ag_threads_set(2);
    assert_int_equal(ag_layernorm_forward(&ln, X, Y2, N, 0, NULL), AG_SUCCESS);
    ag_threads_set(0);
    assert_memory_equal(Y1, Y2, (size_t)(N * F) * sizeof(float));
    for (int64_t r = 0; r < N; r++) {
        const float *x = X + r * F;
        double m = 0, v = 0;
        for (int64_t c = 0; c < F; c++) m += x[c];
        m /= (double)F;
        for (int64_t c = 0; c < F; c++) v += (x[c] - m) * (x[c] - m);
        v /= (double)F;
        double rs = 1.0 / sqrt(v + 1e-5);
        assert_float_equal(ln.mean[r], (float)m, 1e-7f * fabsf(offset) + 1e-7f);
        assert_float_equal(ln.rstd[r], (float)rs, 1e-6f * (float)rs);
        for (int64_t c = 0; c < F; c++) {
            /* the input's own rounding at the offset bounds what any float kernel can do */
            double want = (x[c] - m) * rs * ln.gamma[c] + ln.beta[c];
            double tol = 4e-6 + 1.2e-7 * fabs(offset) * rs;
            if (fabs(Y1[r * F + c] - want) > tol)
                fail_msg("F %lld offset %g: Y[%lld,%lld] = %.9g, want %.9g", (long long)F, offset, (long long)r,
                         (long long)c, Y1[r * F + c], want);
        }
    }
    free(X);
    free(Y1);
    free(Y2);
    ag_layernorm_destroy(&ln);
}

static void test_layernorm_rows_against_reference(void **state) {
    (void)state;
    const int64_t widths[] = {1, 7, 8, 9, 16, 19, 64, 130};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        check_widths(widths[w], 0.0f);
        check_widths(widths[w], 1000.0f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layernorm_rows_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
