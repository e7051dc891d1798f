/* Tests of the losses: hand-computed values, finite-difference gradients, masking, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/loss.h>
#include <attngraph/rng.h>

/* cmocka 1.1.5's assert_float_equal compares in float; losses are doubles */
#define assert_close(a, b, eps) \
    do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.12g, expected %.12g (+- %g)", #a, a_, b_, (double)(eps)); \
    } while (0)

/* Four rows, three classes; row 2 is unlabelled. */
static const float Z[4 * 3] = {1, 2, 3, 1, 2, 3, 5, -1, 0, 0, 0, 0};
static const int32_t LAB[4] = {2, 0, -1, 1};

static void test_cross_entropy_values(void **state) {
    (void)state;
    double loss;
    int64_t counted;
    float dz[12];
    for (int i = 0; i < 12; i++) dz[i] = 99.0f; /* overwritten, not accumulated */
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, 4, 3, NULL, 1.0f, dz, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 3);
    double lse = log(exp(1.0) + exp(2.0) + exp(3.0)); /* 3.4076059644 */
    double l0 = lse - 3.0, l1 = lse - 1.0, l3 = log(3.0);
    /* (0.4076059644 + 2.4076059644 + 1.0986122887) / 3 = 1.3046080725; PyTorch's
     * cross_entropy(ignore_index=-1) gives 1.30460799 in float32 */
    assert_close(loss, 1.3046080725, 1e-7);
    assert_close(loss, (l0 + l1 + l3) / 3.0, 1e-7);
    /* softmax([1,2,3]) = [0.0900306, 0.2447285, 0.6652410]; row 0's gradient is (p - onehot(2)) / 3 */
    assert_float_equal(dz[0], 0.0900306 / 3, 1e-7);
    assert_float_equal(dz[1], 0.2447285 / 3, 1e-7);
    assert_float_equal(dz[2], (0.6652410 - 1) / 3, 1e-7);
    assert_float_equal(dz[3], (0.0900306 - 1) / 3, 1e-7);
    for (int c = 0; c < 3; c++) assert_float_equal(dz[6 + c], 0.0f, 0.0f); /* unlabelled row */
    assert_float_equal(dz[9], 1.0 / 9, 1e-7);
    assert_float_equal(dz[10], (1.0 / 3 - 1) / 3, 1e-7);

    /* class weights [2, 1, 0.5]: (0.5 l0 + 2 l1 + 1 l3) / (0.5 + 2 + 1) = 6.1176271997 / 3.5 = 1.7478934856
     * (PyTorch: 1.74789345) */
    const float w[3] = {2, 1, 0.5f};
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, 4, 3, w, 1.0f, NULL, &loss, NULL), AG_SUCCESS);
    assert_close(loss, 1.7478934856, 1e-7);
    assert_close(loss, (0.5 * l0 + 2 * l1 + l3) / 3.5, 1e-9);

    /* logits of +-1000 neither overflow nor give NaN */
    const float big[3] = {1000, 0, -1000};
    int32_t y = 0;
    assert_int_equal(ag_loss_cross_entropy(big, &y, 1, 3, NULL, 1.0f, dz, &loss, NULL), AG_SUCCESS);
    assert_close(loss, 0.0, 1e-12);
    y = 2;
    assert_int_equal(ag_loss_cross_entropy(big, &y, 1, 3, NULL, 1.0f, dz, &loss, NULL), AG_SUCCESS);
    assert_close(loss, 2000.0, 1e-9);
    assert_float_equal(dz[0], 1.0f, 0.0f);
    assert_float_equal(dz[2], -1.0f, 0.0f);
}

static void test_cross_entropy_gradient_fd(void **state) {
    (void)state;
    enum { N = 6, C = 4 };
    float z[N * C], dz[N * C];
    const int32_t lab[N] = {0, 3, -1, 2, 2, 1};
    const float w[C] = {1.5f, 0.5f, 2.0f, 1.0f};
    for (int i = 0; i < N * C; i++) z[i] = 3.0f * ag_rng_normal(11, 0, (uint64_t)i);
    double loss, lp, lm;
    const float scale = 2.0f;
    assert_int_equal(ag_loss_cross_entropy(z, lab, N, C, w, scale, dz, &loss, NULL), AG_SUCCESS);
    const float h = 1e-2f;
    for (int i = 0; i < N * C; i++) {
        float keep = z[i];
        z[i] = keep + h;
        ag_loss_cross_entropy(z, lab, N, C, w, scale, NULL, &lp, NULL);
        z[i] = keep - h;
        ag_loss_cross_entropy(z, lab, N, C, w, scale, NULL, &lm, NULL);
        z[i] = keep;
        assert_close(dz[i], scale * (lp - lm) / (2.0 * h), 1e-4);
    }
}

static void test_cross_entropy_nothing_labelled_and_errors(void **state) {
    (void)state;
    const int32_t none[4] = {-1, -1, -1, -1};
    float dz[12];
    double loss = 5;
    int64_t counted = 7;
    for (int i = 0; i < 12; i++) dz[i] = 99.0f;
    assert_int_equal(ag_loss_cross_entropy(Z, none, 4, 3, NULL, 1.0f, dz, &loss, &counted), AG_SUCCESS);
    assert_close(loss, 0.0, 0.0);
    assert_int_equal(counted, 0);
    for (int i = 0; i < 12; i++) assert_float_equal(dz[i], 0.0f, 0.0f);

    /* no rows at all */
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, 0, 3, NULL, 1.0f, dz, &loss, &counted), AG_SUCCESS);
    assert_close(loss, 0.0, 0.0);
    assert_int_equal(counted, 0);
    assert_int_equal(ag_loss_mse(Z, Z, 0, 3, 1.0f, dz, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 0);
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, -1, 3, NULL, 1.0f, dz, &loss, &counted), AG_EINVAL);
    assert_string_equal(ag_error_message(), "cross-entropy: negative number of rows (-1)");

    const int32_t bad[4] = {2, 3, -1, 1};
    assert_int_equal(ag_loss_cross_entropy(Z, bad, 4, 3, NULL, 1.0f, dz, &loss, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "cross-entropy: row 1 has label 3, outside 0 .. 2 (or -1 for none)");
    const int32_t neg[4] = {2, -2, -1, 1};
    assert_int_equal(ag_loss_cross_entropy(Z, neg, 4, 3, NULL, 1.0f, dz, &loss, NULL), AG_EVALUE);
    const float w[3] = {1, -1, 1};
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, 4, 3, w, 1.0f, dz, &loss, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "cross-entropy: weight of class 1 is -1 (must be finite and >= 0)");
    assert_int_equal(ag_loss_cross_entropy(Z, LAB, 4, 0, NULL, 1.0f, dz, &loss, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "cross-entropy: number of classes must be at least 1, not 0");
}

/* Two rows, three tasks; one label missing, two logits far in the tails. */
static const float BX[6] = {0, 2, -3, 100, -100, 0.5f};

static void test_bce_values(void **state) {
    (void)state;
    const float y[6] = {1, 0, NAN, 0, 0, 1};
    double loss;
    int64_t counted;
    float dx[6];
    for (int i = 0; i < 6; i++) dx[i] = 99.0f;
    assert_int_equal(ag_loss_bce_logits(BX, y, 2, 3, NULL, 1.0f, dx, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 5);
    /* softplus(-0)=log 2=0.6931471806, softplus(2)=2.1269280110, softplus(100)=100,
     * softplus(-100)=3.7e-44, softplus(-0.5)=0.4740769842: mean 103.2941521758/5 = 20.6588304352
     * (PyTorch on the present labels: 20.6588306) */
    assert_close(loss, 20.6588304352, 1e-9);
    assert_float_equal(dx[0], (0.5 - 1) / 5, 1e-7);                       /* (sigmoid(0) - 1) / 5 */
    assert_float_equal(dx[1], 0.8807970780 / 5, 1e-7);                    /* sigmoid(2) / 5 */
    assert_float_equal(dx[2], 0.0f, 0.0f);                                /* missing */
    assert_float_equal(dx[3], 1.0 / 5, 1e-7);                             /* sigmoid(100) = 1 */
    assert_close(dx[4], 0.0, 1e-30);                                /* sigmoid(-100) */
    assert_float_equal(dx[5], (0.6224593312 - 1) / 5, 1e-7);
    /* pos_weight [2, 1, 3] multiplies the positive terms: (2 log 2 + 2.1269280110 + 100 + 0
     * + 3 * 0.4740769842) / 5 = 104.9354533248 / 5 = 20.9870906650 (PyTorch pos_weight=, masked mean: 20.9870911) */
    const float pw[3] = {2, 1, 3};
    assert_int_equal(ag_loss_bce_logits(BX, y, 2, 3, pw, 1.0f, dx, &loss, NULL), AG_SUCCESS);
    assert_close(loss, 20.9870906650, 1e-9);
    assert_float_equal(dx[0], 2 * (0.5 - 1) / 5, 1e-7);
    assert_float_equal(dx[5], 3 * (0.6224593312 - 1) / 5, 1e-7);
    assert_true(isfinite(loss));
}

static void test_bce_gradient_fd(void **state) {
    (void)state;
    enum { N = 5, T = 3 };
    float x[N * T], y[N * T], dx[N * T];
    const float pw[T] = {0.5f, 2.0f, 1.0f};
    for (int i = 0; i < N * T; i++) {
        x[i] = 2.0f * ag_rng_normal(12, 0, (uint64_t)i);
        float u = ag_rng_uniform(12, 1, (uint64_t)i);
        y[i] = u < 0.25f ? NAN : (u < 0.6f ? 0.0f : 1.0f);
    }
    double loss, lp, lm;
    int64_t counted;
    assert_int_equal(ag_loss_bce_logits(x, y, N, T, pw, 0.5f, dx, &loss, &counted), AG_SUCCESS);
    assert_true(counted > 5 && counted < N * T);
    const float h = 1e-2f;
    for (int i = 0; i < N * T; i++) {
        float keep = x[i];
        x[i] = keep + h;
        ag_loss_bce_logits(x, y, N, T, pw, 0.5f, NULL, &lp, NULL);
        x[i] = keep - h;
        ag_loss_bce_logits(x, y, N, T, pw, 0.5f, NULL, &lm, NULL);
        x[i] = keep;
        assert_close(dx[i], 0.5 * (lp - lm) / (2.0 * h), 1e-4);
        if (isnan(y[i])) assert_float_equal(dx[i], 0.0f, 0.0f);
    }
}

static void test_bce_errors(void **state) {
    (void)state;
    const float y[6] = {1, 0, NAN, 2, 0, 1};
    double loss;
    assert_int_equal(ag_loss_bce_logits(BX, y, 2, 3, NULL, 1.0f, NULL, &loss, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "binary cross-entropy: row 1, task 0 has target 2 (must be in [0, 1], or NaN if missing)");
    const float ok[6] = {1, 0, NAN, 0, 0, 1};
    const float pw[3] = {1, NAN, 1};
    assert_int_equal(ag_loss_bce_logits(BX, ok, 2, 3, pw, 1.0f, NULL, &loss, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "binary cross-entropy: pos_weight of task 1 is nan (must be finite and >= 0)");
    const float allnan[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    int64_t counted = 3;
    assert_int_equal(ag_loss_bce_logits(BX, allnan, 2, 3, NULL, 1.0f, NULL, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 0);
    assert_close(loss, 0.0, 0.0);
}

/* The regression loss at x: mean squared error for delta 0, else Huber's with that delta. */
static double regression_at(const float *x, const float *t, int64_t N, int64_t T, double delta) {
    double l;
    ag_error_t rc = delta > 0.0 ? ag_loss_huber(x, t, N, T, delta, 1.0f, NULL, &l, NULL)
                                : ag_loss_mse(x, t, N, T, 1.0f, NULL, &l, NULL);
    assert_int_equal(rc, AG_SUCCESS);
    return l;
}

/* Checks dx, the gradient of scale times the regression loss at x (N x T), against central
 * differences, passing over entries within 2h of a Huber kink (where the difference straddles two
 * slopes); a missing target's gradient must be exactly 0. Returns how many of the entries checked
 * lie beyond delta (Huber's linear branch). */
static int check_regression_fd(float *x, const float *t, int64_t N, int64_t T, double delta, float scale,
                               const float *dx) {
    const float h = 1e-2f;
    int outside = 0;
    for (int64_t i = 0; i < N * T; i++) {
        const double r = fabs((double)x[i] - t[i]);
        if (delta > 0.0 && !isnan(t[i]) && fabs(r - delta) < 2 * h) continue;
        outside += delta > 0.0 && !isnan(t[i]) && r > delta;
        const float keep = x[i];
        x[i] = keep + h;
        const double lp = regression_at(x, t, N, T, delta);
        x[i] = keep - h;
        const double lm = regression_at(x, t, N, T, delta);
        x[i] = keep;
        assert_close(dx[i], scale * (lp - lm) / (2.0 * h), 1e-4);
        if (isnan(t[i])) assert_float_equal(dx[i], 0.0f, 0.0f);
    }
    return outside;
}

/* Predictions and targets (a fifth missing) for the finite-difference checks, from seed. */
static void regression_data(float *x, float *t, int n, uint64_t seed) {
    for (int i = 0; i < n; i++) {
        x[i] = 2.0f * ag_rng_normal(seed, 0, (uint64_t)i);
        t[i] = ag_rng_uniform(seed, 1, (uint64_t)i) < 0.2f ? NAN : ag_rng_normal(seed, 2, (uint64_t)i);
    }
}

static void test_mse_gradient_fd(void **state) {
    (void)state;
    enum { N = 6, T = 2 };
    float x[N * T], t[N * T], dx[N * T];
    regression_data(x, t, N * T, 15);
    double loss;
    int64_t counted;
    assert_int_equal(ag_loss_mse(x, t, N, T, 0.5f, dx, &loss, &counted), AG_SUCCESS);
    assert_true(counted > N && counted < N * T); /* missing targets among the present ones */
    assert_int_equal(check_regression_fd(x, t, N, T, 0.0, 0.5f, dx), 0);
}

static void test_mse(void **state) {
    (void)state;
    const float p[4] = {1, 2, 3, 4}, y[4] = {1.5f, NAN, 1, 4};
    float d[4];
    double loss;
    int64_t counted;
    /* (0.25 + 4 + 0) / 3 = 1.4166666667 */
    assert_int_equal(ag_loss_mse(p, y, 2, 2, 3.0f, d, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 3);
    assert_close(loss, 4.25 / 3, 1e-12);
    assert_float_equal(d[0], 3.0 * 2 * -0.5 / 3, 1e-7);
    assert_float_equal(d[1], 0.0f, 0.0f);
    assert_float_equal(d[2], 3.0 * 2 * 2 / 3, 1e-7);
    assert_float_equal(d[3], 0.0f, 0.0f);
    const float inf[4] = {1, INFINITY, 1, 1};
    assert_int_equal(ag_loss_mse(p, inf, 2, 2, 1.0f, d, &loss, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "mean squared error: row 0, target 1 is infinite");
}

/* Huber: the two branches by hand, the gradient against finite differences away from the kinks,
 * a large delta as half the squared error, and its errors. */
static void test_huber(void **state) {
    (void)state;
    const float p[4] = {1, 2, 3, 4}, y[4] = {1.5f, NAN, 1, 4};
    float d[4];
    double loss;
    int64_t counted;
    /* delta 1: 0.5 * 0.25 inside, 1 * (2 - 0.5) beyond, 0: (0.125 + 1.5 + 0) / 3 */
    assert_int_equal(ag_loss_huber(p, y, 2, 2, 1.0, 3.0f, d, &loss, &counted), AG_SUCCESS);
    assert_int_equal(counted, 3);
    assert_close(loss, 1.625 / 3, 1e-12);
    assert_float_equal(d[0], 3.0 * -0.5 / 3, 1e-7);
    assert_float_equal(d[1], 0.0f, 0.0f);
    assert_float_equal(d[2], 3.0 * 1.0 / 3, 1e-7); /* beyond delta: delta sign(d) */
    assert_float_equal(d[3], 0.0f, 0.0f);
    /* every residual within delta: half the mean squared error, half its gradient */
    double mse;
    float dm[4];
    assert_int_equal(ag_loss_huber(p, y, 2, 2, 10.0, 1.0f, d, &loss, NULL), AG_SUCCESS);
    assert_int_equal(ag_loss_mse(p, y, 2, 2, 1.0f, dm, &mse, NULL), AG_SUCCESS);
    assert_close(loss, mse / 2, 1e-12);
    for (int i = 0; i < 4; i++) assert_float_equal(d[i], dm[i] / 2, 1e-7);
    enum { N = 6, T = 2 };
    float x[N * T], t[N * T], dx[N * T];
    regression_data(x, t, N * T, 14);
    const double delta = 0.7;
    assert_int_equal(ag_loss_huber(x, t, N, T, delta, 0.5f, dx, &loss, &counted), AG_SUCCESS);
    const int outside = check_regression_fd(x, t, N, T, delta, 0.5f, dx);
    assert_true(outside >= 2 && outside < counted); /* both branches were checked */
    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ag_loss_huber(p, y, 2, 2, bad[i], 1.0f, d, &loss, NULL), AG_EINVAL);
        assert_non_null(strstr(ag_error_message(), "Huber loss: delta"));
    }
    const float inf[4] = {1, INFINITY, 1, 1};
    assert_int_equal(ag_loss_huber(p, inf, 2, 2, 1.0, 1.0f, d, &loss, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "Huber loss: row 0, target 1 is infinite");
}

static void test_probabilities(void **state) {
    (void)state;
    float p[6] = {1, 2, 3, 1000, 1000, -1000};
    ag_softmax_rows(p, 2, 3, p); /* in place */
    assert_float_equal(p[0], 0.0900306, 1e-7);
    assert_float_equal(p[1], 0.2447285, 1e-7);
    assert_float_equal(p[2], 0.6652410, 1e-7);
    assert_float_equal(p[3], 0.5f, 1e-7);
    assert_float_equal(p[4], 0.5f, 1e-7);
    assert_float_equal(p[5], 0.0f, 0.0f);
    /* logits near float32's limit: m + log(2) rounds back to m, which made these 1 and 1 */
    float big[2] = {3e38f, 3e38f};
    ag_softmax_rows(big, 1, 2, big);
    assert_float_equal(big[0], 0.5f, 1e-7);
    assert_float_equal(big[1], 0.5f, 1e-7);
    float s[4] = {0, 100, -100, 2};
    ag_sigmoid_apply(s, 4, s);
    assert_float_equal(s[0], 0.5f, 0.0f);
    assert_float_equal(s[1], 1.0f, 0.0f);
    assert_true(s[2] >= 0.0f && s[2] < 1e-40f);
    assert_float_equal(s[3], 0.8807970780, 1e-7);
    const float sc[6] = {1, 3, 3, -1, -2, -1};
    int32_t pred[2];
    ag_argmax_rows(sc, 2, 3, pred);
    assert_int_equal(pred[0], 1); /* first of the tied maxima */
    assert_int_equal(pred[1], 0);
}

/* Losses and gradients bit for bit the same on 1 and 2 threads. */
static void test_losses_do_not_depend_on_threads(void **state) {
    (void)state;
    enum { N = 3001, C = 5 };
    float *z = malloc(N * C * sizeof(float)), *y = malloc(N * C * sizeof(float));
    int32_t *lab = malloc(N * sizeof(int32_t));
    for (int i = 0; i < N * C; i++) {
        z[i] = 4.0f * ag_rng_normal(13, 0, (uint64_t)i);
        y[i] = ag_rng_uniform(13, 1, (uint64_t)i) < 0.5f ? 1.0f : 0.0f;
    }
    for (int i = 0; i < N; i++) lab[i] = (int32_t)(ag_rng_u64(13, 2, (uint64_t)i) % (C + 1)) - 1;
    double l[4][2];
    float *g[4][2];
    for (int t = 0; t < 2; t++) {
        for (int k = 0; k < 4; k++) {
            g[k][t] = malloc(N * C * sizeof(float));
            assert_non_null(g[k][t]);
        }
        ag_threads_set(t + 1);
        assert_int_equal(ag_loss_cross_entropy(z, lab, N, C, NULL, 1.0f, g[0][t], &l[0][t], NULL), AG_SUCCESS);
        assert_int_equal(ag_loss_bce_logits(z, y, N, C, NULL, 1.0f, g[1][t], &l[1][t], NULL), AG_SUCCESS);
        assert_int_equal(ag_loss_mse(z, y, N, C, 1.0f, g[2][t], &l[2][t], NULL), AG_SUCCESS);
        assert_int_equal(ag_loss_huber(z, y, N, C, 1.5, 1.0f, g[3][t], &l[3][t], NULL), AG_SUCCESS);
    }
    ag_threads_set(0);
    for (int k = 0; k < 4; k++) {
        assert_memory_equal(&l[k][0], &l[k][1], sizeof(double));
        if (memcmp(g[k][0], g[k][1], N * C * sizeof(float)) != 0) fail_msg("loss %d: gradients differ", k);
        free(g[k][0]);
        free(g[k][1]);
    }
    free(z);
    free(y);
    free(lab);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_entropy_values),
        cmocka_unit_test(test_cross_entropy_gradient_fd),
        cmocka_unit_test(test_cross_entropy_nothing_labelled_and_errors),
        cmocka_unit_test(test_bce_values),
        cmocka_unit_test(test_bce_gradient_fd),
        cmocka_unit_test(test_bce_errors),
        cmocka_unit_test(test_mse),
        cmocka_unit_test(test_mse_gradient_fd),
        cmocka_unit_test(test_huber),
        cmocka_unit_test(test_probabilities),
        cmocka_unit_test(test_losses_do_not_depend_on_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
