/* Tests of the graph readouts: hand-computed values, empty graphs, ties, finite differences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/readout.h>
#include <attngraph/rng.h>

/* Three graphs, the middle one empty: rows 0..2, none, rows 3..4; F = 2. */
static const int64_t PTR[4] = {0, 3, 3, 5};
static const float X5[5 * 2] = {
    1, -2,
    3, 5,
    3, 0,   /* ties row 1 on feature 0: the max goes to row 1 */
    -1, 4,
    2, 4,   /* ties row 3 on feature 1: the max goes to row 3 */
};

static void run(ag_readout_kind_t kind, float *Y) {
    ag_readout_t ro;
    assert_int_equal(ag_readout_init(&ro, kind, 2, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    ag_readout_destroy(&ro);
}

static void test_sum_mean_max_values(void **state) {
    (void)state;
    float Y[3 * 2];
    run(AG_READOUT_SUM, Y);
    const float sum[6] = {7, 3, 0, 0, 1, 8};
    for (int i = 0; i < 6; i++) assert_float_equal(Y[i], sum[i], 0.0f);
    run(AG_READOUT_MEAN, Y);
    const float mean[6] = {7.0f / 3.0f, 1, 0, 0, 0.5f, 4};
    for (int i = 0; i < 6; i++) assert_float_equal(Y[i], mean[i], 1e-7f);
    run(AG_READOUT_MAX, Y);
    const float mx[6] = {3, 5, 0, 0, 2, 4};
    for (int i = 0; i < 6; i++) assert_float_equal(Y[i], mx[i], 0.0f);
}

static void test_max_backward_routes_to_first_argmax(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], dX[10];
    const float dY[6] = {1, 2, 7, 7, 3, 4};
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_MAX, 2, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    for (int i = 0; i < 10; i++) dX[i] = 0.5f; /* backward accumulates */
    assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, dY, dX), AG_SUCCESS);
    /* g0: feature 0 -> row 1 (first of rows 1 and 2), feature 1 -> row 1; g2: f0 -> row 4, f1 -> row 3 */
    const float want[10] = {0.5f, 0.5f, 1.5f, 2.5f, 0.5f, 0.5f, 0.5f, 4.5f, 3.5f, 0.5f};
    for (int i = 0; i < 10; i++) assert_float_equal(dX[i], want[i], 0.0f);
    ag_readout_destroy(&ro);
}

static void test_mean_sum_backward(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], dX[10];
    const float dY[6] = {3, 6, 100, 100, 2, -4};
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_MEAN, 2, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    memset(dX, 0, sizeof dX);
    assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, dY, dX), AG_SUCCESS);
    const float want[10] = {1, 2, 1, 2, 1, 2, 1, -2, 1, -2}; /* dY / n_g; the empty graph's 100s go nowhere */
    for (int i = 0; i < 10; i++) assert_float_equal(dX[i], want[i], 1e-7f);
    ag_readout_destroy(&ro);
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_SUM, 2, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    memset(dX, 0, sizeof dX);
    assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, dY, dX), AG_SUCCESS);
    const float want_sum[10] = {3, 6, 3, 6, 3, 6, 2, -4, 2, -4};
    for (int i = 0; i < 10; i++) assert_float_equal(dX[i], want_sum[i], 0.0f);
    ag_readout_destroy(&ro);
}

static void test_attention_values(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], alpha[5];
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_ATTENTION, 2, 1), AG_SUCCESS);
    ro.w_gate[0] = 0.5f;
    ro.w_gate[1] = -0.25f;
    ro.b_gate[0] = 0.1f;
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    /* scores: row0 0.5+0.5+0.1 = 1.1, row1 1.5-1.25+0.1 = 0.35, row2 1.5+0.1 = 1.6;
     *         row3 -0.5-1+0.1 = -1.4, row4 1-1+0.1 = 0.1 */
    double e0 = exp(1.1), e1 = exp(0.35), e2 = exp(1.6), z = e0 + e1 + e2;
    double a0 = e0 / z, a1 = e1 / z, a2 = e2 / z;
    double a3 = exp(-1.4) / (exp(-1.4) + exp(0.1)), a4 = 1.0 - a3;
    assert_float_equal(Y[0], a0 * 1 + a1 * 3 + a2 * 3, 1e-6);
    assert_float_equal(Y[1], a0 * -2 + a1 * 5 + a2 * 0, 1e-6);
    assert_float_equal(Y[2], 0.0f, 0.0f); /* empty graph: zeros, not NaN */
    assert_float_equal(Y[3], 0.0f, 0.0f);
    assert_float_equal(Y[4], a3 * -1 + a4 * 2, 1e-6);
    assert_float_equal(Y[5], 4.0f, 1e-6); /* both rows have 4 */
    assert_int_equal(ag_readout_gate_weights(&ro, 5, alpha), AG_SUCCESS);
    assert_float_equal(alpha[0], a0, 1e-7);
    assert_float_equal(alpha[2], a2, 1e-7);
    assert_float_equal(alpha[3], a3, 1e-7);
    assert_float_equal(alpha[0] + alpha[1] + alpha[2], 1.0f, 1e-6f);
    /* huge scores do not overflow: the softmax subtracts the maximum */
    ro.b_gate[0] = 1000.0f;
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    assert_float_equal(Y[0], a0 * 1 + a1 * 3 + a2 * 3, 1e-5);
    ag_readout_destroy(&ro);
}

/* The same example through PyTorch autograd (a per-graph softmax gate as PyG's GlobalAttention),
 * dY = [[1, 2], [7, 7], [3, 4]]: the values below were printed by torch 1.13. */
static void test_attention_matches_pytorch(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], dX[10] = {0};
    const float dY[6] = {1, 2, 7, 7, 3, 4};
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_ATTENTION, 2, 1), AG_SUCCESS);
    ro.w_gate[0] = 0.5f;
    ro.w_gate[1] = -0.25f;
    ro.b_gate[0] = 0.1f;
    ro.dw_gate[0] = ro.dw_gate[1] = ro.db_gate[0] = 0.0f;
    assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
    assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, dY, dX), AG_SUCCESS);
    const float y_torch[6] = {2.35919785f, 0.11593169f, 0, 0, 1.45272338f, 3.99999976f};
    const float dx_torch[10] = {-0.57528996f, 1.08864772f, 0.93902647f, -0.09114629f, 0.63626355f,
                                1.00249851f,  -0.12388235f, 1.06528151f, 3.12388253f, 2.93471813f};
    for (int i = 0; i < 6; i++) assert_float_equal(Y[i], y_torch[i], 1e-6f);
    for (int i = 0; i < 10; i++) assert_float_equal(dX[i], dx_torch[i], 2e-6f);
    assert_float_equal(ro.dw_gate[0], 7.60971928f, 1e-5f);
    assert_float_equal(ro.dw_gate[1], 11.45956421f, 1e-5f);
    /* a softmax does not see a shift of every score: the bias gradient is zero up to rounding */
    assert_float_equal(ro.db_gate[0], 0.0f, 1e-5f);
    ag_readout_destroy(&ro);
}

/* L = sum_gf Y_gf R_gf, so dL/dY = R. */
static double loss_of(ag_readout_t *ro, const int64_t *ptr, int64_t G, const float *X, const float *R, float *Y) {
    assert_int_equal(ag_readout_forward(ro, ptr, G, X, Y), AG_SUCCESS);
    double l = 0.0;
    for (int64_t i = 0; i < G * ro->dim; i++) l += (double)Y[i] * R[i];
    return l;
}

static void check_gradients(ag_readout_kind_t kind) {
    enum { G = 4, N = 9, F = 3 };
    const int64_t ptr[G + 1] = {0, 4, 4, 5, 9}; /* sizes 4, 0, 1, 4 */
    float X[N * F], R[G * F], Y[G * F], dX[N * F];
    /* distinct values 0.1 apart in scrambled order, so no max is within h of a tie */
    for (int i = 0; i < N * F; i++) X[i] = 0.1f * (float)((i * 7) % (N * F)) - 1.3f;
    for (int i = 0; i < G * F; i++) R[i] = 2.0f * ag_rng_uniform(3, 1, (uint64_t)i) - 1.0f;
    ag_readout_t ro;
    assert_int_equal(ag_readout_init(&ro, kind, F, 42), AG_SUCCESS);
    if (kind == AG_READOUT_ATTENTION) ro.b_gate[0] = 0.3f;
    for (int i = 0; i < N * F; i++) dX[i] = 0.25f;
    if (ro.grads) {
        ro.dw_gate[0] = 1.0f; /* accumulation: the result must be added to it */
        for (int f = 1; f <= F; f++) ro.grads[f] = 0.0f;
    }
    loss_of(&ro, ptr, G, X, R, Y);
    assert_int_equal(ag_readout_backward(&ro, ptr, G, X, R, dX), AG_SUCCESS);
    const float h = 1e-2f;
    for (int i = 0; i < N * F; i++) {
        float keep = X[i];
        X[i] = keep + h;
        double lp = loss_of(&ro, ptr, G, X, R, Y);
        X[i] = keep - h;
        double lm = loss_of(&ro, ptr, G, X, R, Y);
        X[i] = keep;
        double num = (lp - lm) / (2.0 * h);
        assert_float_equal(dX[i] - 0.25f, num, 2e-3);
    }
    if (kind == AG_READOUT_ATTENTION) {
        for (int p = 0; p <= F; p++) { /* w_gate[0..F-1], then b_gate */
            float keep = ro.params[p];
            ro.params[p] = keep + h;
            double lp = loss_of(&ro, ptr, G, X, R, Y);
            ro.params[p] = keep - h;
            double lm = loss_of(&ro, ptr, G, X, R, Y);
            ro.params[p] = keep;
            double num = (lp - lm) / (2.0 * h);
            assert_float_equal(ro.grads[p] - (p == 0 ? 1.0f : 0.0f), num, 2e-3);
        }
        assert_true(fabsf(ro.grads[1]) > 1e-3f); /* the gate really gets a gradient */
    }
    ag_readout_destroy(&ro);
}

static void test_gradients_mean(void **state) { (void)state; check_gradients(AG_READOUT_MEAN); }
static void test_gradients_sum(void **state) { (void)state; check_gradients(AG_READOUT_SUM); }
static void test_gradients_max(void **state) { (void)state; check_gradients(AG_READOUT_MAX); }
static void test_gradients_attention(void **state) { (void)state; check_gradients(AG_READOUT_ATTENTION); }

static void test_thread_count_does_not_change_results(void **state) {
    (void)state;
    enum { G = 300, F = 8 };
    int64_t ptr[G + 1];
    ptr[0] = 0;
    for (int g = 0; g < G; g++) ptr[g + 1] = ptr[g] + (g % 7 == 3 ? 0 : 5 + g % 11);
    int64_t N = ptr[G];
    float *X = malloc((size_t)(N * F) * sizeof(float));
    float *dY = malloc((size_t)(G * F) * sizeof(float));
    float *out[2][2];
    for (int64_t i = 0; i < N * F; i++) X[i] = ag_rng_normal(5, 0, (uint64_t)i);
    for (int64_t i = 0; i < G * F; i++) dY[i] = ag_rng_normal(5, 1, (uint64_t)i);
    for (int kind = 0; kind < AG_READOUT_COUNT; kind++) {
        float dw[2][F + 1];
        for (int t = 0; t < 2; t++) {
            ag_threads_set(t + 1);
            ag_readout_t ro;
            assert_int_equal(ag_readout_init(&ro, (ag_readout_kind_t)kind, F, 9), AG_SUCCESS);
            out[t][0] = calloc((size_t)(G * F), sizeof(float));
            out[t][1] = calloc((size_t)(N * F), sizeof(float));
            assert_int_equal(ag_readout_forward(&ro, ptr, G, X, out[t][0]), AG_SUCCESS);
            assert_int_equal(ag_readout_backward(&ro, ptr, G, X, dY, out[t][1]), AG_SUCCESS);
            if (ro.grads) memcpy(dw[t], ro.grads, sizeof dw[t]);
            ag_readout_destroy(&ro);
        }
        assert_memory_equal(out[0][0], out[1][0], (size_t)(G * F) * sizeof(float));
        assert_memory_equal(out[0][1], out[1][1], (size_t)(N * F) * sizeof(float));
        if (kind == AG_READOUT_ATTENTION) assert_memory_equal(dw[0], dw[1], sizeof dw[0]);
        for (int t = 0; t < 2; t++) {
            free(out[t][0]);
            free(out[t][1]);
        }
    }
    ag_threads_set(0);
    free(X);
    free(dY);
}

static void test_params_and_names(void **state) {
    (void)state;
    ag_readout_t ro;
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_ATTENTION, 5, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_params(&ro, &list, "readout"), AG_SUCCESS);
    assert_int_equal(list.count, 2);
    assert_string_equal(list.items[0].name, "readout.gate.w");
    assert_int_equal(list.items[0].shape[0], 5);
    assert_true(list.items[0].value == ro.w_gate && list.items[0].grad == ro.dw_gate);
    assert_int_equal(list.items[0].decay, 1);
    assert_string_equal(list.items[1].name, "readout.gate.b");
    assert_int_equal(list.items[1].decay, 0);
    float limit = sqrtf(6.0f / 6.0f);
    for (int f = 0; f < 5; f++) assert_true(fabsf(ro.w_gate[f]) <= limit && ro.w_gate[f] != 0.0f);
    assert_float_equal(ro.b_gate[0], 0.0f, 0.0f);
    ag_readout_destroy(&ro);
    ag_readout_destroy(&ro); /* idempotent */
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_MEAN, 5, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_params(&ro, &list, "x"), AG_SUCCESS);
    assert_int_equal(list.count, 2); /* mean has no parameters */
    ag_readout_destroy(&ro);
    ag_param_list_destroy(&list);

    ag_readout_kind_t k;
    assert_int_equal(ag_readout_kind_from_name("attention", &k), AG_SUCCESS);
    assert_int_equal(k, AG_READOUT_ATTENTION);
    assert_string_equal(ag_readout_kind_name(AG_READOUT_MAX), "max");
    assert_int_equal(ag_readout_kind_from_name("median", &k), AG_EINVAL);
    assert_string_equal(ag_error_message(), "unknown readout 'median' (valid: mean, sum, max, attention, vnode)");

    /* lists: in the order written, each kind once */
    ag_readout_kind_t kinds[AG_READOUT_COUNT];
    int n;
    assert_int_equal(ag_readout_kinds_from_list("vnode,sum,max", kinds, &n), AG_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(kinds[0], AG_READOUT_VNODE);
    assert_int_equal(kinds[1], AG_READOUT_SUM);
    assert_int_equal(kinds[2], AG_READOUT_MAX);
    assert_int_equal(ag_readout_kinds_from_list("attention", kinds, &n), AG_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(kinds[0], AG_READOUT_ATTENTION);
    assert_int_equal(ag_readout_kinds_from_list("max,vnode,attention,mean,sum", kinds, &n), AG_SUCCESS);
    assert_int_equal(n, 5);
    static const struct { const char *list, *message; } bad[] = {
        {"sum,summ", "unknown readout 'summ' in 'sum,summ' (valid: mean, sum, max, attention, vnode)"},
        {"sum,", "unknown readout '' in 'sum,' (valid: mean, sum, max, attention, vnode)"},
        {",sum", "unknown readout '' in ',sum' (valid: mean, sum, max, attention, vnode)"},
        {"mean,max,mean", "readout 'mean' given twice in 'mean,max,mean'"},
        {"", "empty readout list (valid: mean, sum, max, attention, vnode)"},
        {NULL, "empty readout list (valid: mean, sum, max, attention, vnode)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ag_readout_kinds_from_list(bad[i].list, kinds, &n), AG_EINVAL);
        assert_string_equal(ag_error_message(), bad[i].message);
    }
}

static void test_errors(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], dX[10] = {0}, alpha[5];
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_MEAN, 0, 1), AG_EINVAL);
    assert_string_equal(ag_error_message(), "readout width must be at least 1, not 0");
    assert_int_equal(ag_readout_init(&ro, (ag_readout_kind_t)17, 2, 1), AG_EINVAL);
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_MAX, 2, 1), AG_SUCCESS);
    assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, Y, dX), AG_EINVAL);
    assert_string_equal(ag_error_message(), "readout backward: no forward pass on 5 nodes in 3 graphs to differentiate");
    const int64_t bad0[3] = {1, 3, 5};
    assert_int_equal(ag_readout_forward(&ro, bad0, 2, X5, Y), AG_EINVAL);
    assert_string_equal(ag_error_message(), "readout: graph_ptr[0] is 1, not 0");
    const int64_t dec[3] = {0, 3, 2};
    assert_int_equal(ag_readout_forward(&ro, dec, 2, X5, Y), AG_EINVAL);
    assert_string_equal(ag_error_message(), "readout: graph_ptr decreases at graph 1 (2 after 3)");
    assert_int_equal(ag_readout_gate_weights(&ro, 5, alpha), AG_EINVAL);
    assert_string_equal(ag_error_message(), "readout: max pooling has no gate weights");
    /* zero graphs is fine and writes nothing */
    const int64_t none[1] = {0};
    assert_int_equal(ag_readout_forward(&ro, none, 0, X5, Y), AG_SUCCESS);
    ag_readout_destroy(&ro);
}

void ag_i_alloc_fail_at(int64_t n);

static void test_allocation_failures(void **state) {
    (void)state;
    ag_readout_t ro;
    float Y[6], dX[10] = {0};
    for (int k = 1; k <= 3; k++) { /* cache, gate values, gate gradients */
        ag_i_alloc_fail_at(k);
        assert_int_equal(ag_readout_init(&ro, AG_READOUT_ATTENTION, 2, 1), AG_ENOMEM);
        ag_i_alloc_fail_at(0);
        assert_null(ro.params);
        assert_null(ro.cache);
    }
    for (int kind = AG_READOUT_MAX; kind <= AG_READOUT_ATTENTION; kind++) {
        assert_int_equal(ag_readout_init(&ro, (ag_readout_kind_t)kind, 2, 1), AG_SUCCESS);
        ag_i_alloc_fail_at(1); /* the forward cache */
        assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_ENOMEM);
        ag_i_alloc_fail_at(0);
        /* a failed forward cannot be differentiated; a retry works */
        assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, Y, dX), AG_EINVAL);
        assert_int_equal(ag_readout_forward(&ro, PTR, 3, X5, Y), AG_SUCCESS);
        assert_int_equal(ag_readout_backward(&ro, PTR, 3, X5, Y, dX), AG_SUCCESS);
        ag_readout_destroy(&ro);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_mean_max_values),
        cmocka_unit_test(test_max_backward_routes_to_first_argmax),
        cmocka_unit_test(test_mean_sum_backward),
        cmocka_unit_test(test_attention_values),
        cmocka_unit_test(test_attention_matches_pytorch),
        cmocka_unit_test(test_gradients_mean),
        cmocka_unit_test(test_gradients_sum),
        cmocka_unit_test(test_gradients_max),
        cmocka_unit_test(test_gradients_attention),
        cmocka_unit_test(test_thread_count_does_not_change_results),
        cmocka_unit_test(test_params_and_names),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
