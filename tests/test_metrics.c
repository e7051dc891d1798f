/* Tests of the metrics: hand-computed values (scikit-learn's where it defines them), ties, NaN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/metrics.h>
#include <attngraph/rng.h>

/* cmocka 1.1.5's assert_float_equal compares in float; metrics are doubles */
#define assert_close(a, b, eps) \
    do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.15g, expected %.15g (+- %g)", #a, a_, b_, (double)(eps)); \
    } while (0)

static void test_accuracy_and_macro_f1(void **state) {
    (void)state;
    /* row 5 is unlabelled: its prediction (class 3) counts nowhere, so class 3 is absent */
    const int32_t truth[7] = {0, 0, 1, 1, 2, -1, 2};
    const int32_t pred[7] = {0, 1, 1, 1, 0, 3, 2};
    double r;
    assert_int_equal(ag_metric_accuracy(truth, pred, 7, &r), AG_SUCCESS);
    assert_close(r, 4.0 / 6.0, 1e-15); /* rows 0, 2, 3, 6 of 6 labelled */
    /* class 0: TP 1, FP 1 (row 4), FN 1 (row 1) -> 2/4 = 0.5
     * class 1: TP 2, FP 1 (row 1), FN 0         -> 4/5 = 0.8
     * class 2: TP 1, FP 0, FN 1 (row 4)         -> 2/3
     * class 3: absent from truth and prediction -> skipped
     * macro = (0.5 + 0.8 + 2/3) / 3 = 0.6555555556 = sklearn f1_score(average="macro") */
    assert_int_equal(ag_metric_macro_f1(truth, pred, 7, 4, &r), AG_SUCCESS);
    assert_close(r, 0.6555555555555556, 1e-12);
    /* a class predicted but never true counts, with F1 = 0: (2/3 + 1 + 0) / 3 = 0.5555555556 */
    const int32_t t2[3] = {0, 0, 1}, p2[3] = {0, 2, 1};
    assert_int_equal(ag_metric_macro_f1(t2, p2, 3, 3, &r), AG_SUCCESS);
    assert_close(r, 5.0 / 9.0, 1e-12);
    /* nothing labelled: NaN, not an error */
    const int32_t none[2] = {-1, -1};
    assert_int_equal(ag_metric_accuracy(none, p2, 2, &r), AG_SUCCESS);
    assert_true(isnan(r));
    assert_int_equal(ag_metric_macro_f1(none, p2, 2, 3, &r), AG_SUCCESS);
    assert_true(isnan(r));
    /* errors */
    const int32_t badp[3] = {0, 5, 1};
    assert_int_equal(ag_metric_macro_f1(t2, badp, 3, 3, &r), AG_EVALUE);
    assert_string_equal(ag_error_message(), "macro-F1: row 1 has predicted class 5, outside 0 .. 2");
    assert_int_equal(ag_metric_macro_f1(badp, t2, 3, 3, &r), AG_EVALUE);
    assert_string_equal(ag_error_message(), "macro-F1: row 1 has true class 5, outside 0 .. 2");
    assert_int_equal(ag_metric_accuracy(t2, p2, -1, &r), AG_EINVAL);
}

static void test_roc_auc_ties(void **state) {
    (void)state;
    double r;
    /* scikit-learn's documentation example: roc_auc_score([0,0,1,1], [0.1,0.4,0.35,0.8]) = 0.75 */
    const float s0[4] = {0.1f, 0.4f, 0.35f, 0.8f}, y0[4] = {0, 0, 1, 1};
    assert_int_equal(ag_metric_roc_auc(s0, y0, 4, &r), AG_SUCCESS);
    assert_close(r, 0.75, 1e-15);
    /* a tie across the classes and a missing target:
     * positives {0.35, 0.8, 0.4} vs negatives {0.1, 0.4}: 0.35 beats 1, 0.8 beats 2, 0.4 beats 0.1
     * and ties 0.4 (1.5): 4.5 / 6 = 0.75. By ranks: sorted 0.1(1) 0.35(2) 0.4,0.4(3.5 each) 0.8(5),
     * R+ = 2 + 3.5 + 5 = 10.5, (10.5 - 3*4/2) / (3*2) = 0.75 */
    const float s1[6] = {0.1f, 0.4f, 0.35f, 0.8f, 0.4f, 0.9f}, y1[6] = {0, 0, 1, 1, 1, NAN};
    assert_int_equal(ag_metric_roc_auc(s1, y1, 6, &r), AG_SUCCESS);
    assert_close(r, 0.75, 1e-15);
    /* every score equal: 0.5 */
    const float s2[4] = {2, 2, 2, 2}, y2[4] = {1, 0, 0, 1};
    assert_int_equal(ag_metric_roc_auc(s2, y2, 4, &r), AG_SUCCESS);
    assert_close(r, 0.5, 1e-15);
    /* perfect and inverted rankings; infinities are ordinary scores */
    const float s3[4] = {-INFINITY, 0, 1, INFINITY}, y3[4] = {0, 0, 1, 1}, y3r[4] = {1, 1, 0, 0};
    assert_int_equal(ag_metric_roc_auc(s3, y3, 4, &r), AG_SUCCESS);
    assert_close(r, 1.0, 0.0);
    assert_int_equal(ag_metric_roc_auc(s3, y3r, 4, &r), AG_SUCCESS);
    assert_close(r, 0.0, 0.0);
    /* one class present: undefined, NaN (scikit-learn raises ValueError here) */
    const float y4[4] = {1, 1, NAN, 1};
    assert_int_equal(ag_metric_roc_auc(s0, y4, 4, &r), AG_SUCCESS);
    assert_true(isnan(r));
    assert_int_equal(ag_metric_roc_auc(s0, y0, 0, &r), AG_SUCCESS);
    assert_true(isnan(r));
}

static void test_roc_auc_errors(void **state) {
    (void)state;
    double r;
    const float s[3] = {0.1f, NAN, 0.3f}, y[3] = {0, 1, 1}, ybad[3] = {0, 0.5f, 1};
    assert_int_equal(ag_metric_roc_auc(s, y, 3, &r), AG_EVALUE);
    assert_string_equal(ag_error_message(), "ROC-AUC: row 1 has a NaN score");
    const float yskip[3] = {0, NAN, 1};
    assert_int_equal(ag_metric_roc_auc(s, yskip, 3, &r), AG_SUCCESS); /* NaN score of a missing target is fine */
    assert_close(r, 1.0, 0.0);
    const float s2[3] = {0.1f, 0.2f, 0.3f};
    assert_int_equal(ag_metric_roc_auc(s2, ybad, 3, &r), AG_EVALUE);
    assert_string_equal(ag_error_message(), "ROC-AUC: row 1 has target 0.5 (must be 0, 1 or NaN)");
    assert_int_equal(ag_metric_roc_auc(s2, y, -1, &r), AG_EINVAL);
}

/* The definition itself: over all (positive, negative) pairs, 1 if the positive scores higher,
 * 1/2 on a tie. O(P Q), the reference the rank formula must agree with. */
static double naive_auc(const float *s, const float *y, int64_t n) {
    double wins = 0.0;
    int64_t pairs = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            if (isnan(y[i]) || isnan(y[j]) || y[i] != 1.0f || y[j] != 0.0f) continue;
            pairs++;
            wins += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
        }
    return pairs ? wins / (double)pairs : NAN;
}

static void test_roc_auc_matches_pairwise_definition(void **state) {
    (void)state;
    enum { N = 400 };
    float s[N], y[N];
    for (int trial = 0; trial < 5; trial++) {
        for (int i = 0; i < N; i++) {
            /* coarse scores (20 levels) so that there are many ties */
            s[i] = (float)(ag_rng_u64(21, (uint64_t)trial, (uint64_t)i) % 20) * 0.05f;
            float u = ag_rng_uniform(22, (uint64_t)trial, (uint64_t)i);
            y[i] = u < 0.1f ? NAN : (u < 0.3f + 0.02f * s[i] * 20 ? 1.0f : 0.0f);
        }
        double r;
        assert_int_equal(ag_metric_roc_auc(s, y, N, &r), AG_SUCCESS);
        assert_close(r, naive_auc(s, y, N), 1e-12);
        assert_true(r > 0.55); /* the positives do lean to high scores */
    }
}

static void test_roc_auc_tasks(void **state) {
    (void)state;
    /* 4 rows x 3 tasks. task 0: perfect (1.0); task 1: only positives present (undefined);
     * task 2: all scores tied (0.5). Mean over the 2 defined tasks: 0.75. */
    const float s[12] = {
        0.1f, 0.5f, 0.3f,
        0.2f, 0.6f, 0.3f,
        0.8f, 0.7f, 0.3f,
        0.9f, 0.8f, 0.3f,
    };
    const float y[12] = {
        0, NAN, 1,
        0, 1, 0,
        1, NAN, NAN,
        1, 1, 0,
    };
    double per[3], mean;
    int64_t defined;
    assert_int_equal(ag_metric_roc_auc_tasks(s, y, 4, 3, per, &mean, &defined), AG_SUCCESS);
    assert_close(per[0], 1.0, 0.0);
    assert_true(isnan(per[1]));
    assert_close(per[2], 0.5, 0.0);
    assert_close(mean, 0.75, 1e-15);
    assert_int_equal(defined, 2);
    /* no task defined: mean is NaN */
    const float yone[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(ag_metric_roc_auc_tasks(s, yone, 4, 3, NULL, &mean, &defined), AG_SUCCESS);
    assert_true(isnan(mean));
    assert_int_equal(defined, 0);
    const float ybad[12] = {0, NAN, 1, 0, 1, 0, 1, NAN, 3, 1, 1, 0};
    assert_int_equal(ag_metric_roc_auc_tasks(s, ybad, 4, 3, per, &mean, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "ROC-AUC: row 2, task 2 has target 3 (must be 0, 1 or NaN)");
}

static void test_rmse_mae(void **state) {
    (void)state;
    const float p[4] = {1, 2, 3, 4}, y[4] = {1.5f, NAN, 1, 4};
    double r;
    assert_int_equal(ag_metric_rmse(p, y, 4, &r), AG_SUCCESS);
    assert_close(r, sqrt(4.25 / 3.0), 1e-15); /* 1.1902380714 */
    assert_int_equal(ag_metric_mae(p, y, 4, &r), AG_SUCCESS);
    assert_close(r, 2.5 / 3.0, 1e-15);
    const float yn[2] = {NAN, NAN};
    assert_int_equal(ag_metric_rmse(p, yn, 2, &r), AG_SUCCESS);
    assert_true(isnan(r));
    assert_int_equal(ag_metric_mae(p, y, -2, &r), AG_EINVAL);
    assert_string_equal(ag_error_message(), "MAE: negative number of values (-2)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accuracy_and_macro_f1),
        cmocka_unit_test(test_roc_auc_ties),
        cmocka_unit_test(test_roc_auc_errors),
        cmocka_unit_test(test_roc_auc_matches_pairwise_definition),
        cmocka_unit_test(test_roc_auc_tasks),
        cmocka_unit_test(test_rmse_mae),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
