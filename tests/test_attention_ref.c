/* Self-checks of the test support: hand-built graphs and the naive attention reference, checked
 * against hand-computed values, so that the fast kernels are compared with something trusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attention.h>
#include "attention_ref.h"
#include "graphs_testutil.h"
#include "fixture_testutil.h"

static void test_graph_builder_rules(void **state) {
    (void)state;
    /* undirected: {0,1} id 0, self-loop {2,2} id 1, multi {0,1} id 2, {1,2} id 3 */
    const int64_t el[] = {0, 1, 2, 2, 1, 0, 1, 2};
    const int64_t nn = 4, ne = 4;
    const int64_t *lists[] = {el};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_build(&g, 0, 1, &nn, &ne, lists), 0);
    assert_int_equal(g.n_nodes, 4);
    assert_int_equal(g.n_edges, 4);
    assert_int_equal(g.n_entries, 7); /* 2 + 1 + 2 + 2 */
    const int64_t indptr[] = {0, 2, 5, 7, 7};
    const int32_t src[] = {1, 1, 0, 0, 2, 1, 2};
    const int64_t edge[] = {0, 2, 0, 2, 3, 3, 1};
    for (int i = 0; i < 5; i++) assert_int_equal(g.indptr[i], indptr[i]);
    for (int k = 0; k < 7; k++) {
        assert_int_equal(g.src[k], src[k]);
        assert_int_equal(g.edge[k], edge[k]);
    }
    ag_test_graph_free(&g);
    /* a bad node id is refused */
    const int64_t bad[] = {0, 4};
    const int64_t one = 1;
    const int64_t *bl[] = {bad};
    assert_int_equal(ag_test_graph_build(&g, 1, 1, &nn, &one, bl), -1);
}

static void test_graph_builder_batch(void **state) {
    (void)state;
    const int64_t a[] = {0, 1, 1, 2}, b[] = {1, 0};
    const int64_t nn[] = {3, 2}, ne[] = {2, 1};
    const int64_t *lists[] = {a, b};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_build(&g, 1, 2, nn, ne, lists), 0);
    assert_int_equal(g.n_nodes, 5);
    assert_int_equal(g.n_graphs, 2);
    assert_int_equal(g.graph_ptr[1], 3);
    assert_int_equal(g.edge_ptr[1], 2);
    assert_int_equal(g.node_graph[3], 1);
    /* edge 1 -> 0 of graph 1 is batch node 4 -> 3, batch edge id 2 */
    assert_int_equal(g.indptr[4] - g.indptr[3], 1);
    assert_int_equal(g.src[g.indptr[3]], 4);
    assert_int_equal(g.edge[g.indptr[3]], 2);
    ag_test_graph_free(&g);
}

static void test_random_graph_isolated(void **state) {
    (void)state;
    const int64_t nn[] = {12, 5}, ne[] = {30, 6}, iso[] = {3, 1};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 5, 0, 2, nn, ne, iso, 0.2, 0.2), 0);
    int self = 0;
    for (int64_t i = 0; i < g.n_nodes; i++)
        for (int64_t k = g.indptr[i]; k < g.indptr[i + 1]; k++) {
            self += g.src[k] == i;
            assert_int_equal(g.node_graph[g.src[k]], g.node_graph[i]);
        }
    assert_true(self > 0);
    for (int64_t i = 9; i < 12; i++) assert_int_equal(g.indptr[i + 1] - g.indptr[i], 0);
    assert_int_equal(g.indptr[17] - g.indptr[16], 0);
    ag_test_graph_free(&g);
}

/* 0 -> 1 -> 2 -> 3, 3 -> 3 (self-loop, id 3), 0 -> 1 again (id 4); a second graph 4 <-> 5 (ids 5, 6). */
static void path_graph(ag_graph_t *g) {
    const int64_t a[] = {0, 1, 1, 2, 2, 3, 3, 3, 0, 1}, b[] = {0, 1, 1, 0};
    const int64_t nn[] = {4, 2}, ne[] = {5, 2};
    const int64_t *lists[] = {a, b};
    assert_int_equal(ag_test_graph_build(g, 1, 2, nn, ne, lists), 0);
}

static void expect_row(const ag_ref_mask_t *m, int64_t i, int n, const int32_t *src, const int64_t *edge) {
    assert_int_equal(m->indptr[i + 1] - m->indptr[i], n);
    for (int t = 0; t < n; t++) {
        assert_int_equal(m->src[m->indptr[i] + t], src[t]);
        assert_int_equal(m->edge[m->indptr[i] + t], edge[t]);
    }
}

static void test_ref_masks(void **state) {
    (void)state;
    ag_graph_t g;
    path_graph(&g);
    ag_ref_mask_t m;
    /* neighbours with self-loops: node 1 <- 0 (ids 0 and 4), 1 (added) */
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), 0);
    expect_row(&m, 0, 1, (int32_t[]){0}, (int64_t[]){-1});
    expect_row(&m, 1, 3, (int32_t[]){0, 0, 1}, (int64_t[]){0, 4, -1});
    expect_row(&m, 3, 2, (int32_t[]){2, 3}, (int64_t[]){2, 3}); /* the input self-loop is kept */
    assert_int_equal(m.n_cand, m.n_entries);
    ag_ref_mask_free(&m);
    /* without self-loops: node 0 has no candidate; node 3 keeps its input self-loop */
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 0), 0);
    expect_row(&m, 0, 0, NULL, NULL);
    expect_row(&m, 3, 2, (int32_t[]){2, 3}, (int64_t[]){2, 3});
    ag_ref_mask_free(&m);
    /* 2 hops: node 2 <- 0 (two steps, -1), 1 (edge 1), 2 (added); node 3 <- 1, 2 (edge 2), 3 (edge 3) */
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_KHOP, 2, 1), 0);
    expect_row(&m, 2, 3, (int32_t[]){0, 1, 2}, (int64_t[]){-1, 1, -1});
    expect_row(&m, 3, 3, (int32_t[]){1, 2, 3}, (int64_t[]){-1, 2, 3});
    expect_row(&m, 1, 2, (int32_t[]){0, 1}, (int64_t[]){0, -1}); /* multi-edge once, smallest id */
    /* 4 <-> 5: 4 reaches itself in two steps but is not its own source without self-loops */
    expect_row(&m, 4, 2, (int32_t[]){4, 5}, (int64_t[]){-1, 6});
    ag_ref_mask_free(&m);
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_KHOP, 2, 0), 0);
    expect_row(&m, 4, 1, (int32_t[]){5}, (int64_t[]){6});
    expect_row(&m, 3, 3, (int32_t[]){1, 2, 3}, (int64_t[]){-1, 2, 3});
    ag_ref_mask_free(&m);
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_KHOP, 0, 0), -1);
    /* full: candidates are the nodes of the same graph only; the CSR is the neighbour CSR */
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_FULL, 0, 1), 0);
    expect_row(&m, 1, 3, (int32_t[]){0, 0, 1}, (int64_t[]){0, 4, -1});
    assert_int_equal(m.n_cand, 16 + 4);
    assert_int_equal(m.c_indptr[5] - m.c_indptr[4], 2);
    assert_int_equal(m.c_src[m.c_indptr[4]], 4);
    assert_int_equal(m.c_src[m.c_indptr[4] + 1], 5);
    /* pair (1, 0) carries both of its edges (ids 0 and 4, entries 1 and 2 of the CSR) */
    assert_int_equal(m.c_e0[m.c_indptr[1]], 1);
    assert_int_equal(m.c_e1[m.c_indptr[1]], 3);
    assert_int_equal(m.c_e1[m.c_indptr[1] + 1] - m.c_e0[m.c_indptr[1] + 1], 1); /* (1, 1): the added entry */
    assert_int_equal(m.c_draw[m.c_indptr[5] + 1], 5 * 6 + 5);
    ag_ref_mask_free(&m);
    ag_test_graph_free(&g);
}

/* The 3-node example worked by hand (see the fixture values in the comments):
 * nodes 0, 1, 2, edges 0 -> 1 (id 0, feature 1), 2 -> 1 (id 1, feature -1), self-loops added.
 * X = [1 0; 0 1; 1 1], Wq = I, Wk = diag(0.5, 1), Wv = [1 2; 3 4], so v = [1 2; 3 4; 4 6]. */
typedef struct hand_t {
    ag_graph_t g;
    ag_ref_mask_t m;
    double X[6], E[2];
} hand_t;

static void hand_setup(hand_t *t) {
    const int64_t el[] = {0, 1, 2, 1};
    const int64_t nn = 3, ne = 2;
    const int64_t *lists[] = {el};
    assert_int_equal(ag_test_graph_build(&t->g, 1, 1, &nn, &ne, lists), 0);
    assert_int_equal(ag_ref_mask_build(&t->m, &t->g, AG_MASK_NEIGHBOURS, 0, 1), 0);
    const double X[6] = {1, 0, 0, 1, 1, 1}, E[2] = {1, -1};
    memcpy(t->X, X, sizeof X);
    memcpy(t->E, E, sizeof E);
}

static void hand_cfg(ag_attention_config_t *cfg, ag_score_t score, ag_norm_t norm, ag_edge_mode_t em) {
    memset(cfg, 0, sizeof *cfg);
    cfg->in_dim = 2;
    cfg->heads = 1;
    cfg->head_dim = 2;
    cfg->score = score;
    cfg->norm = norm;
    cfg->combine = AG_HEADS_CONCAT;
    cfg->edge_mode = em;
    cfg->edge_dim = em == AG_EDGE_NONE ? 0 : 1;
    cfg->negative_slope = 0.2f;
}

static void hand_check(ag_score_t score, ag_norm_t norm, ag_edge_mode_t em, const double *w_node1,
                       const double *y_node1) {
    hand_t t;
    hand_setup(&t);
    ag_attention_config_t cfg;
    hand_cfg(&cfg, score, norm, em);
    ag_ref_params_t p;
    assert_int_equal(ag_ref_params_alloc(&p, &cfg), 0);
    const double Wq[4] = {1, 0, 0, 1}, Wk[4] = {0.5, 0, 0, 1}, Wv[4] = {1, 2, 3, 4};
    if (p.Wq) memcpy(p.Wq, Wq, sizeof Wq);
    if (p.Wk) memcpy(p.Wk, Wk, sizeof Wk);
    memcpy(p.Wv, Wv, sizeof Wv);
    if (p.a_src) { p.a_src[0] = 1; p.a_src[1] = -1; p.a_dst[0] = 0.5; p.a_dst[1] = 0.25; }
    if (p.a) { p.a[0] = 1; p.a[1] = -0.5; }
    if (em == AG_EDGE_KEY) { p.We[0] = 0.5; p.We[1] = -1; }
    if (em == AG_EDGE_BIAS) p.We[0] = 2;
    double Y[6], alpha[5];
    assert_int_equal(ag_ref_attention_forward(&cfg, &p, &t.m, t.X, em ? t.E : NULL, Y, alpha, NULL), 0);
    /* node 1's entries are (src 0, edge 0), (src 1, added), (src 2, edge 1) */
    for (int k = 0; k < 3; k++) assert_float_equal(alpha[1 + k], w_node1[k], 1e-6);
    assert_float_equal(Y[2], y_node1[0], 1e-6);
    assert_float_equal(Y[3], y_node1[1], 1e-6);
    /* nodes 0 and 2 attend to themselves only: weight 1 under softmax, value v_i */
    if (norm == AG_NORM_SOFTMAX) {
        assert_float_equal(alpha[0], 1.0, 1e-12);
        assert_float_equal(Y[0], 1.0, 1e-12);
        assert_float_equal(Y[5], 6.0, 1e-12);
    }
    ag_ref_params_free(&p);
    ag_ref_mask_free(&t.m);
    ag_test_graph_free(&t.g);
}

static void test_hand_dot(void **state) {
    (void)state;
    /* scores 0, 1/sqrt2, 1/sqrt2 */
    hand_check(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE,
               (double[]){0.1977758146404282, 0.4011120926797859, 0.4011120926797859},
               (double[]){3.00556046339893, 4.406672556078716});
    hand_check(AG_SCORE_DOT, AG_NORM_RELU, AG_EDGE_NONE,
               (double[]){0.0, 0.49999964644685946, 0.49999964644685946},
               (double[]){3.499997525128016, 4.999996464468595});
    /* keys and values shifted by e W^e = +-(0.5, -1): scores -1/sqrt2, 1/sqrt2, sqrt2 */
    hand_check(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY,
               (double[]){0.07431963111601946, 0.3056952508389744, 0.619985118045006},
               (double[]){3.198513112348473, 5.636996460786959});
}

static void test_hand_gat(void **state) {
    (void)state;
    /* LeakyReLU(a_dst.z_1 + a_src.z_j) = 1.5, 1.5, 0.5 */
    hand_check(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE,
               (double[]){0.4223187982515182, 0.4223187982515182, 0.15536240349696362},
               (double[]){2.3107248069939272, 3.466087210490891});
    /* plus 2 e: 3.5, 1.5, -1.5 */
    hand_check(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_BIAS,
               (double[]){0.8756005950630876, 0.11849965453500959, 0.005899750401902781},
               (double[]){1.2546985602757275, 2.26059831067763});
}

static void test_hand_gatv2(void **state) {
    (void)state;
    /* a . LeakyReLU(q_1 + z_j) = -0.5, 0.5, 0.5 */
    hand_check(AG_SCORE_GATV2, AG_NORM_SOFTMAX, AG_EDGE_NONE,
               (double[]){0.15536240349696362, 0.4223187982515182, 0.4223187982515182},
               (double[]){3.1115939912575907, 4.53391278950911});
    hand_check(AG_SCORE_GATV2, AG_NORM_RELU, AG_EDGE_NONE,
               (double[]){0.0, 0.49999950000050003, 0.49999950000050003},
               (double[]){3.4999965000035003, 4.999995000005001});
}

/* On a random batch: softmax rows sum to one, ReLU rows to at most one, an isolated destination
 * gets exactly the bias, and a destination's output ignores every node outside its candidates. */
static void test_ref_invariants(void **state) {
    (void)state;
    const int64_t nn[] = {9, 4}, ne[] = {14, 3}, iso[] = {2, 0};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 11, 1, 2, nn, ne, iso, 0.1, 0.1), 0);
    const int64_t N = g.n_nodes, F = 3, Fe = 2;
    for (int kind = 0; kind < 3; kind++)
        for (int score = 0; score < 3; score++)
            for (int norm = 0; norm < 2; norm++) {
                ag_attention_config_t cfg;
                memset(&cfg, 0, sizeof cfg);
                cfg.in_dim = F;
                cfg.heads = 2;
                cfg.head_dim = 2;
                cfg.out_dim = 3;
                cfg.score = (ag_score_t)score;
                cfg.norm = (ag_norm_t)norm;
                cfg.combine = AG_HEADS_CONCAT;
                cfg.out_proj = 1;
                cfg.bias = 1;
                cfg.edge_mode = AG_EDGE_KEY;
                cfg.edge_dim = Fe;
                cfg.negative_slope = 0.2f;
                ag_ref_mask_t m;
                assert_int_equal(ag_ref_mask_build(&m, &g, (ag_mask_kind_t)kind, 2, 0), 0);
                ag_ref_params_t p;
                assert_int_equal(ag_ref_params_alloc(&p, &cfg), 0);
                ag_ref_params_random(&p, 0.8, 3 + (uint64_t)score);
                double X[13 * 3], X2[13 * 3], E[17 * 2], Y[13 * 3], Y2[13 * 3];
                double *alpha = calloc((size_t)(m.n_cand * 2 + 1), sizeof *alpha);
                ag_test_fill_uniform_d(X, N * F, -1, 1, 4);
                ag_test_fill_uniform_d(E, g.n_edges * Fe, -1, 1, 5);
                assert_int_equal(ag_ref_attention_forward(&cfg, &p, &m, X, E, Y, alpha, NULL), 0);
                for (int64_t i = 0; i < N; i++) {
                    for (int h = 0; h < 2; h++) {
                        double sum = 0;
                        for (int64_t c = m.c_indptr[i]; c < m.c_indptr[i + 1]; c++) {
                            assert_true(alpha[c * 2 + h] >= 0);
                            sum += alpha[c * 2 + h];
                        }
                        if (m.c_indptr[i + 1] == m.c_indptr[i]) assert_float_equal(sum, 0, 0);
                        else if (norm == AG_NORM_SOFTMAX) assert_float_equal(sum, 1.0, 1e-12);
                        else assert_true(sum <= 1.0 + 1e-12);
                    }
                    if (m.c_indptr[i + 1] == m.c_indptr[i])
                        for (int o = 0; o < 3; o++) assert_float_equal(Y[i * 3 + o], p.bo[o], 1e-15);
                }
                /* node 0's candidates; perturb every other node in turn */
                for (int64_t j = 0; j < N; j++) {
                    int cand = 0;
                    for (int64_t c = m.c_indptr[0]; c < m.c_indptr[1]; c++) cand |= m.c_src[c] == j;
                    memcpy(X2, X, sizeof X);
                    for (int f = 0; f < F; f++) X2[j * F + f] += 0.5;
                    assert_int_equal(ag_ref_attention_forward(&cfg, &p, &m, X2, E, Y2, NULL, NULL), 0);
                    int changed = 0;
                    for (int o = 0; o < 3; o++) changed |= Y2[o] != Y[o];
                    if (!cand && j != 0) assert_false(changed);
                    if (kind == AG_MASK_FULL && norm == AG_NORM_SOFTMAX && j < 9) assert_true(changed);
                }
                free(alpha);
                ag_ref_params_free(&p);
                ag_ref_mask_free(&m);
            }
    ag_test_graph_free(&g);
}

/* Dropout in the reference: p = 0.5 drops about half of the weights and the loss changes. */
static void test_ref_dropout(void **state) {
    (void)state;
    const int64_t nn[] = {30}, ne[] = {120}, iso[] = {0};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 3, 0, 1, nn, ne, iso, 0.0, 0.0), 0);
    ag_ref_mask_t m;
    assert_int_equal(ag_ref_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), 0);
    int64_t dropped = 0, total = m.n_cand * 4;
    for (int64_t c = 0; c < total; c++) dropped += ag_rng_uniform(9, 2, (uint64_t)c) < 0.5f;
    assert_true(fabs((double)dropped / (double)total - 0.5) < 0.05);
    ag_attention_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.in_dim = 4; cfg.heads = 4; cfg.head_dim = 2; cfg.score = AG_SCORE_DOT; cfg.combine = AG_HEADS_MEAN;
    ag_ref_params_t p;
    assert_int_equal(ag_ref_params_alloc(&p, &cfg), 0);
    ag_ref_params_random(&p, 1.0, 1);
    double X[30 * 4], R[30 * 2];
    ag_test_fill_uniform_d(X, 120, -1, 1, 2);
    ag_test_fill_uniform_d(R, 60, -1, 1, 3);
    ag_ref_dropout_t none = {0.0, 9, 2}, half = {0.5, 9, 2};
    double l0 = ag_ref_loss(&cfg, &p, &m, X, NULL, R, &none);
    double l1 = ag_ref_loss(&cfg, &p, &m, X, NULL, R, &half);
    assert_float_equal(l0, ag_ref_loss(&cfg, &p, &m, X, NULL, R, NULL), 0);
    assert_true(fabs(l0 - l1) > 1e-6);
    ag_ref_params_free(&p);
    ag_ref_mask_free(&m);
    ag_test_graph_free(&g);
}

/* The reference against the independent PyTorch implementation of tests/golden: outputs, weights
 * of the mask entries, and the reference's finite-difference gradients against autograd's. */
static void expect_close(const char *what, const double *got, const double *want, int64_t n, double tol) {
    for (int64_t x = 0; x < n; x++)
        if (fabs(got[x] - want[x]) > tol * (1.0 + fabs(want[x])))
            fail_msg("%s[%lld]: %.10g, expected %.10g", what, (long long)x, got[x], want[x]);
}

static void test_ref_matches_pytorch(void **state) {
    (void)state;
    ag_fixture_case_t *cases;
    int n_cases;
    char err[256];
    assert_int_equal(ag_fixture_load(AG_SOURCE_DIR "/tests/golden/attention_fixture.txt", &cases, &n_cases, err), 0);
    assert_true(n_cases >= 4);
    for (int c = 0; c < n_cases; c++) {
        const ag_fixture_case_t *fc = &cases[c];
        ag_graph_t g;
        assert_int_equal(ag_fixture_graph(fc, &g), 0);
        ag_ref_mask_t m;
        assert_int_equal(ag_ref_mask_build(&m, &g, fc->mask, fc->hops, fc->self_loops), 0);
        ag_ref_params_t p;
        assert_int_equal(ag_ref_params_alloc(&p, &fc->cfg), 0);
        for (int w = 0; w < AG_REF_N_TENSORS; w++) {
            double *dst = ag_ref_params_tensor(&p, w);
            const ag_fixture_tensor_t *t = ag_fixture_get(fc, ag_ref_tensor_name(w));
            assert_true((dst == NULL) == (t == NULL));
            if (dst) memcpy(dst, t->v, sizeof *dst * (size_t)(t->rows * t->cols));
        }
        const ag_fixture_tensor_t *X = ag_fixture_get(fc, "X"), *E = ag_fixture_get(fc, "E");
        const ag_fixture_tensor_t *R = ag_fixture_get(fc, "R"), *Y = ag_fixture_get(fc, "Y");
        const ag_fixture_tensor_t *A = ag_fixture_get(fc, "alpha");
        const ag_fixture_tensor_t *md = ag_fixture_get(fc, "mask_dst"), *ms = ag_fixture_get(fc, "mask_src");
        const ag_fixture_tensor_t *me = ag_fixture_get(fc, "mask_edge");
        assert_non_null(X); assert_non_null(R); assert_non_null(Y); assert_non_null(A);
        const int64_t H = fc->cfg.heads;
        /* the mask entries, in attention.h's order */
        assert_int_equal(m.n_entries, md->rows);
        for (int64_t i = 0; i < m.n_nodes; i++)
            for (int64_t k = m.indptr[i]; k < m.indptr[i + 1]; k++) {
                assert_int_equal(md->v[k], i);
                assert_int_equal(ms->v[k], m.src[k]);
                assert_int_equal(me->v[k], m.edge[k]);
            }
        double *Yr = calloc((size_t)(Y->rows * Y->cols), sizeof *Yr);
        double *al = calloc((size_t)(m.n_cand * H), sizeof *al);
        double *ae = calloc((size_t)(m.n_entries * H), sizeof *ae);
        double *Xd = malloc(sizeof *Xd * (size_t)(X->rows * X->cols));
        double *Ed = E ? malloc(sizeof *Ed * (size_t)(E->rows * E->cols)) : NULL;
        memcpy(Xd, X->v, sizeof *Xd * (size_t)(X->rows * X->cols));
        if (E) memcpy(Ed, E->v, sizeof *Ed * (size_t)(E->rows * E->cols));
        assert_int_equal(ag_ref_attention_forward(&fc->cfg, &p, &m, Xd, Ed, Yr, al, NULL), 0);
        ag_ref_entry_weights(&m, H, al, ae);
        expect_close(fc->name, Yr, Y->v, Y->rows * Y->cols, 1e-8);
        expect_close("alpha", ae, A->v, m.n_entries * H, 1e-8);
        /* every gradient by central differences on the reference */
        for (int w = -2; w < AG_REF_N_TENSORS; w++) {
            double *target = w == -2 ? Xd : w == -1 ? Ed : ag_ref_params_tensor(&p, w);
            char gname[40];
            snprintf(gname, sizeof gname, "d%s", w == -2 ? "X" : w == -1 ? "E" : ag_ref_tensor_name(w));
            const ag_fixture_tensor_t *gt = ag_fixture_get(fc, gname);
            if (!target) continue;
            assert_non_null(gt);
            double *fd = calloc((size_t)(gt->rows * gt->cols), sizeof *fd);
            ag_ref_fd_grad(&fc->cfg, &p, &m, Xd, Ed, R->v, NULL, target, gt->rows * gt->cols, 1e-6, fd);
            expect_close(gname, fd, gt->v, gt->rows * gt->cols, 1e-6);
            free(fd);
        }
        free(Yr); free(al); free(ae); free(Xd); free(Ed);
        ag_ref_params_free(&p);
        ag_ref_mask_free(&m);
        ag_test_graph_free(&g);
    }
    ag_fixture_free(cases, n_cases);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_builder_rules),
        cmocka_unit_test(test_graph_builder_batch),
        cmocka_unit_test(test_random_graph_isolated),
        cmocka_unit_test(test_ref_masks),
        cmocka_unit_test(test_hand_dot),
        cmocka_unit_test(test_hand_gat),
        cmocka_unit_test(test_hand_gatv2),
        cmocka_unit_test(test_ref_invariants),
        cmocka_unit_test(test_ref_dropout),
        cmocka_unit_test(test_ref_matches_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
