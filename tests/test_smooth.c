/* Tests of Correct and Smooth (smooth.h): a hand-computed step, a dense double-precision reference
 * of both steps on random graphs (directed, multi-edges, self-loops, vertices without edges), the
 * same result for any thread count, the igraph wrapper against the CSR one, every error, and the
 * scores of given probabilities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/smooth.h>

void ag_i_alloc_fail_at(int64_t n);
int64_t ag_i_alloc_live(void);

#define assert_close(a, b, eps) \
    do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.9g, expected %.9g (+- %g)", #a, a_, b_, (double)(eps)); \
    } while (0)

/* One smoothing step with weight 1/2 on the path 0 - 1 - 2, vertex 0 known as class 0, by hand:
 * S = D^-1/2 A D^-1/2 has S01 = S10 = S12 = S21 = 1/sqrt(2). */
static void test_one_step_by_hand(void **state) {
    (void)state;
    igraph_t ig;
    igraph_small(&ig, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    const float probs[6] = {0.3f, 0.7f, 0.4f, 0.6f, 0.2f, 0.8f}; /* row 0 is replaced: it is known */
    const int32_t known[3] = {0, -1, -1};
    ag_smooth_config_t cfg;
    ag_smooth_config_init(&cfg);
    cfg.smooth_alpha = 0.5;
    cfg.iterations = 1;
    float out[6];
    assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &cfg, out), AG_SUCCESS);
    const double h = 0.5 * sqrt(0.5);
    const double x[3][2] = {{0.5 + h * 0.4, h * 0.6},
                            {0.2 + h * (1.0 + 0.2), 0.3 + h * (0.0 + 0.8)},
                            {0.1 + h * 0.4, 0.4 + h * 0.6}};
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 2; c++) assert_close(out[i * 2 + c], x[i][c] / (x[i][0] + x[i][1]), 1e-6);
    /* no step: the start itself, the known row one-hot */
    cfg.iterations = 0;
    assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &cfg, out), AG_SUCCESS);
    const float start[6] = {1.0f, 0.0f, 0.4f, 0.6f, 0.2f, 0.8f};
    for (int k = 0; k < 6; k++) assert_close(out[k], start[k], 1e-7);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
}

/* The dense reference: A[i][j] = entries j -> i, S = D_in^-1/2 A D_out^-1/2, both steps in double
 * with PyG's clamps and autoscale. */
static void propagate_ref(int n, int C, const double *S, const double *x0, double alpha, int iters, double lo,
                          double hi, double *x) {
    double *t = malloc(sizeof(double) * (size_t)(n * C));
    memcpy(x, x0, sizeof(double) * (size_t)(n * C));
    for (int it = 0; it < iters; it++) {
        memcpy(t, x, sizeof(double) * (size_t)(n * C));
        for (int i = 0; i < n; i++)
            for (int c = 0; c < C; c++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += S[i * n + j] * t[j * C + c];
                double y = (1.0 - alpha) * x0[i * C + c] + alpha * s;
                x[i * C + c] = y < lo ? lo : y > hi ? hi : y;
            }
    }
    free(t);
}

static void smooth_ref(const igraph_t *ig, const float *probs, int C, const int32_t *known,
                       const ag_smooth_config_t *cfg, double *out) {
    int n = (int)igraph_vcount(ig), m = (int)igraph_ecount(ig);
    double *A = calloc((size_t)(n * n), sizeof(double)), *din = calloc((size_t)n, sizeof(double)),
           *dout = calloc((size_t)n, sizeof(double)), *S = calloc((size_t)(n * n), sizeof(double));
    for (int e = 0; e < m; e++) {
        int u = (int)IGRAPH_FROM(ig, e), v = (int)IGRAPH_TO(ig, e);
        A[v * n + u] += 1.0;
        if (!igraph_is_directed(ig) && u != v) A[u * n + v] += 1.0;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) din[i] += A[i * n + j], dout[j] += A[i * n + j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (A[i * n + j] > 0) S[i * n + j] = A[i * n + j] / sqrt(din[i] * dout[j]);
    double *p = malloc(sizeof(double) * (size_t)(n * C)), *x0 = malloc(sizeof(double) * (size_t)(n * C)),
           *e = malloc(sizeof(double) * (size_t)(n * C));
    for (int k = 0; k < n * C; k++) p[k] = probs[k];
    if (cfg->correct_alpha > 0) {
        double sigma = 0.0;
        int nk = 0;
        for (int i = 0; i < n; i++) {
            nk += known[i] >= 0;
            for (int c = 0; c < C; c++) {
                x0[i * C + c] = known[i] < 0 ? 0.0 : (c == known[i]) - (double)probs[i * C + c];
                sigma += fabs(x0[i * C + c]);
            }
        }
        sigma = nk ? sigma / nk : 0.0;
        propagate_ref(n, C, S, x0, cfg->correct_alpha, (int)cfg->iterations, -1.0, 1.0, e);
        for (int i = 0; i < n; i++) {
            double norm = 0.0;
            for (int c = 0; c < C; c++) norm += fabs(e[i * C + c]);
            double scale = norm > 0 ? sigma / norm : 1.0;
            if (scale > 1000.0) scale = 1.0;
            for (int c = 0; c < C; c++) p[i * C + c] += scale * e[i * C + c];
        }
    }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++) x0[i * C + c] = known[i] >= 0 ? (double)(c == known[i]) : p[i * C + c];
    propagate_ref(n, C, S, x0, cfg->smooth_alpha, (int)cfg->iterations, 0.0, 1.0, out);
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int c = 0; c < C; c++) sum += out[i * C + c];
        for (int c = 0; c < C; c++)
            if (sum > 0) out[i * C + c] /= sum;
    }
    free(A), free(din), free(dout), free(S), free(p), free(x0), free(e);
}

/* A random graph with a multi-edge, a self-loop and a vertex without any edge; random
 * probabilities (rows summing to 1) and a third of the vertices known. */
static void random_case(igraph_t *ig, int directed, int n, int C, float *probs, int32_t *known) {
    igraph_rng_seed(igraph_rng_default(), 5 + directed);
    assert_int_equal(igraph_erdos_renyi_game_gnm(ig, n - 1, 2 * n, directed, 0), IGRAPH_SUCCESS);
    igraph_vector_int_t extra;
    igraph_vector_int_init_int(&extra, 4, 0, 1, 2, 2);
    assert_int_equal(igraph_add_edges(ig, &extra, NULL), IGRAPH_SUCCESS); /* 0 -> 1 once more, loop at 2 */
    igraph_vector_int_destroy(&extra);
    assert_int_equal(igraph_add_vertices(ig, 1, NULL), IGRAPH_SUCCESS);  /* vertex n - 1: no edge */
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < n; i++) {
        float sum = 0.0f;
        for (int c = 0; c < C; c++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            probs[i * C + c] = (float)((s >> 11) % 1000 + 1);
            sum += probs[i * C + c];
        }
        for (int c = 0; c < C; c++) probs[i * C + c] /= sum;
        known[i] = i % 3 == 0 ? (int32_t)((i / 3) % C) : -1;
    }
}

static void test_against_dense_reference(void **state) {
    (void)state;
    enum { N = 31, C = 3 };
    const double alphas[][2] = {{0.0, 0.8}, {0.0, 0.99}, {0.5, 0.7}, {0.95, 0.9}, {0.3, 0.0}};
    for (int directed = 0; directed < 2; directed++) {
        igraph_t ig;
        float probs[N * C], out[N * C];
        int32_t known[N];
        random_case(&ig, directed, N, C, probs, known);
        ag_graph_t g;
        assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
        for (size_t k = 0; k < sizeof alphas / sizeof alphas[0]; k++)
            for (int iters = 0; iters <= 30; iters += 15) {
                ag_smooth_config_t cfg = {alphas[k][0], alphas[k][1], iters};
                double ref[N * C];
                smooth_ref(&ig, probs, C, known, &cfg, ref);
                assert_int_equal(ag_label_smooth_csr(&g, probs, C, known, &cfg, out), AG_SUCCESS);
                for (int i = 0; i < N * C; i++)
                    if (fabs(out[i] - ref[i]) > 2e-5)
                        fail_msg("directed %d, alphas %g/%g, %d iterations: [%d] %.7g, reference %.7g", directed,
                                 alphas[k][0], alphas[k][1], iters, i, (double)out[i], ref[i]);
            }
        ag_graph_destroy(&g);
        igraph_destroy(&ig);
    }
}

/* One vertex per iteration, each sum in the CSR's order: bit for bit the same on 1 and 4 threads;
 * and the igraph wrapper gives the CSR function's values. */
static void test_threads_and_wrapper(void **state) {
    (void)state;
    enum { N = 31, C = 3 };
    igraph_t ig;
    float probs[N * C], one[N * C], four[N * C];
    int32_t known[N];
    random_case(&ig, 0, N, C, probs, known);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    ag_smooth_config_t cfg = {0.9, 0.8, 50};
    ag_threads_set(1);
    assert_int_equal(ag_label_smooth_csr(&g, probs, C, known, &cfg, one), AG_SUCCESS);
    ag_threads_set(4);
    assert_int_equal(ag_label_smooth_csr(&g, probs, C, known, &cfg, four), AG_SUCCESS);
    ag_threads_set(0);
    assert_memory_equal(one, four, sizeof one);
    igraph_matrix_t P, R;
    igraph_vector_int_t K;
    igraph_matrix_init(&P, N, C);
    igraph_matrix_init(&R, 0, 0);
    igraph_vector_int_init(&K, N);
    for (int i = 0; i < N; i++) {
        VECTOR(K)[i] = known[i];
        for (int c = 0; c < C; c++) MATRIX(P, i, c) = probs[i * C + c];
    }
    assert_int_equal(ag_label_smooth(&ig, &P, &K, &cfg, &R), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&R), N);
    assert_int_equal(igraph_matrix_ncol(&R), C);
    for (int i = 0; i < N; i++) {
        double sum = 0.0;
        for (int c = 0; c < C; c++) {
            assert_true(MATRIX(R, i, c) == (double)one[i * C + c]);
            sum += MATRIX(R, i, c);
        }
        assert_close(sum, 1.0, 1e-6);
    }
    /* the errors of the wrapper's own checks, and the shared ones through it */
    igraph_matrix_t short_p;
    igraph_matrix_init(&short_p, N - 1, C);
    assert_int_equal(ag_label_smooth(&ig, &short_p, &K, &cfg, &R), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "the probabilities have 30 rows for a graph of 31 vertices"));
    igraph_vector_int_resize(&K, N - 2);
    assert_int_equal(ag_label_smooth(&ig, &P, &K, &cfg, &R), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "the known classes have 29 entries for a graph of 31 vertices"));
    igraph_vector_int_resize(&K, N);
    VECTOR(K)[7] = 3;
    assert_int_equal(ag_label_smooth(&ig, &P, &K, &cfg, &R), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "vertex 7: known class 3 is not in 0..2 (or -1: unknown)"));
    igraph_matrix_destroy(&short_p);
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&R);
    igraph_vector_int_destroy(&K);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
}

static void test_errors(void **state) {
    (void)state;
    igraph_t ig;
    igraph_small(&ig, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    float probs[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, out[6];
    int32_t known[3] = {0, -1, 1};
    struct {
        ag_smooth_config_t cfg;
        const char *message;
    } bad[] = {{{1.0, 0.5, 5}, "correct alpha 1 is not in [0, 1)"},
               {{-0.1, 0.5, 5}, "correct alpha -0.1 is not in [0, 1)"},
               {{0.0, 1.0, 5}, "smooth alpha 1 is not in [0, 1)"},
               {{0.0, NAN, 5}, "smooth alpha nan is not in [0, 1)"},
               {{0.0, 0.5, -1}, "-1 iterations (at least 0)"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &bad[k].cfg, out), AG_EINVAL);
        if (!strstr(ag_error_message(), bad[k].message)) fail_msg("%zu: %s", k, ag_error_message());
    }
    ag_smooth_config_t cfg;
    ag_smooth_config_init(&cfg);
    assert_int_equal(ag_label_smooth_csr(&g, probs, 0, known, &cfg, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "0 classes (at least 1)"));
    known[1] = 2;
    assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &cfg, out), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "vertex 1: known class 2 is not in 0..1"));
    known[1] = -1;
    probs[5] = -0.25f;
    assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &cfg, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "vertex 2: probability -0.25 of class 1 is not a finite non-negative"));
    probs[5] = NAN;
    assert_int_equal(ag_label_smooth_csr(&g, probs, 2, known, &cfg, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "vertex 2: probability nan of class 1"));
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
}

/* ag_scores_from_probs against hand-computed figures: 5 rows, one unlabelled. */
static void test_scores_from_probs(void **state) {
    (void)state;
    ag_trainset_t set;
    ag_trainset_init(&set, AG_TASK_NODE_CLASSIFICATION);
    assert_int_equal(ag_trainset_resize(&set, 0, 5, 1), AG_SUCCESS);
    set.n_classes = 2;
    const float y[5] = {0, 1, 1, NAN, 0};
    memcpy(set.targets, y, sizeof y);
    const float probs[10] = {0.9f, 0.1f, 0.4f, 0.6f, 0.7f, 0.3f, 0.5f, 0.5f, 0.2f, 0.8f};
    const int64_t idx[5] = {0, 1, 2, 3, 4};
    ag_scores_t s;
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 5, &s), AG_SUCCESS);
    assert_int_equal(s.n, 4);
    assert_close(s.accuracy, 0.5, 1e-12);            /* rows 0 and 1 right, 2 and 4 wrong */
    assert_close(s.macro_f1, 0.5, 1e-12);            /* each class: TP 1, FP 1, FN 1 */
    assert_close(s.roc_auc, 0.5, 1e-12); /* positives 0.6, 0.3 over negatives 0.1, 0.8: 2 of 4 pairs */
    assert_close(s.loss, -(log(0.9) + log(0.6) + log(0.3) + log(0.2)) / 4.0, 1e-6);
    assert_true(isnan(s.rmse) && isnan(s.mae));
    /* one class among the rows: no ROC-AUC; an index out of range; not a classification set */
    assert_int_equal(ag_scores_from_probs(probs, &set, idx + 1, 2, &s), AG_SUCCESS);
    assert_true(isnan(s.roc_auc));
    const int64_t far[1] = {5};
    assert_int_equal(ag_scores_from_probs(probs, &set, far, 1, &s), AG_EINVAL);
    set.task = AG_TASK_NODE_REGRESSION;
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 5, &s), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "not a classification set"));
    ag_trainset_destroy(&set);
}

/* The n-th allocation failing, for every n: AG_ENOMEM with a message and nothing left allocated,
 * until the path (the igraph wrapper and the scores) runs through with the uninjected results. */
static void test_allocation_failures(void **state) {
    (void)state;
    enum { N = 31, C = 3 };
    igraph_t ig;
    float probs[N * C];
    int32_t known[N];
    random_case(&ig, 1, N, C, probs, known);
    igraph_matrix_t P, R, want;
    igraph_vector_int_t K;
    igraph_matrix_init(&P, N, C);
    igraph_matrix_init(&R, 0, 0);
    igraph_matrix_init(&want, 0, 0);
    igraph_vector_int_init(&K, N);
    for (int i = 0; i < N; i++) {
        VECTOR(K)[i] = known[i];
        for (int c = 0; c < C; c++) MATRIX(P, i, c) = probs[i * C + c];
    }
    ag_smooth_config_t cfg = {0.5, 0.8, 10};
    const int64_t live0 = ag_i_alloc_live();
    assert_int_equal(ag_label_smooth(&ig, &P, &K, &cfg, &want), AG_SUCCESS);
    int64_t n;
    for (n = 1; n < 1000; n++) {
        ag_error_clear();
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_label_smooth(&ig, &P, &K, &cfg, &R);
        ag_i_alloc_fail_at(0);
        if (ag_i_alloc_live() != live0)
            fail_msg("allocation %lld: %lld blocks leaked", (long long)n, (long long)(ag_i_alloc_live() - live0));
        if (rc == AG_SUCCESS) break;
        if (rc != AG_ENOMEM) fail_msg("allocation %lld: %s: %s", (long long)n, ag_error_name(rc), ag_error_message());
        assert_true(ag_error_message()[0] != '\0');
    }
    assert_true(n > 5); /* the CSR, three copies and the smoothing buffers each failed once */
    assert_true(igraph_matrix_all_e(&R, &want));
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&R);
    igraph_matrix_destroy(&want);
    igraph_vector_int_destroy(&K);
    igraph_destroy(&ig);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_step_by_hand),
        cmocka_unit_test(test_against_dense_reference),
        cmocka_unit_test(test_threads_and_wrapper),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_scores_from_probs),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
