/* The fast attention layer against the naive double reference (tests/support/attention_ref.c):
 * the mask builder, the forward pass and the attention weights, for every scoring x norm x mask x
 * edge mode x head combination on random graphs with self-loops, multi-edges, isolated nodes,
 * directed edges and a batch of graphs of different sizes; and the error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "attention_testutil.h"

/* Masks of the sweep: kind, hops, self_loops. */
typedef struct at_mask_spec_t {
    ag_mask_kind_t kind;
    int hops, self_loops;
    const char *name;
} at_mask_spec_t;
static const at_mask_spec_t MASKS[] = {
    {AG_MASK_NEIGHBOURS, 0, 1, "NEIGHBOURS+self"}, {AG_MASK_NEIGHBOURS, 0, 0, "NEIGHBOURS"},
    {AG_MASK_KHOP, 2, 1, "KHOP2+self"},           {AG_MASK_KHOP, 2, 0, "KHOP2"},
    {AG_MASK_FULL, 0, 1, "FULL+self"},             {AG_MASK_FULL, 0, 0, "FULL"},
};
#define N_MASKS ((int)(sizeof MASKS / sizeof MASKS[0]))

/* The mask builder produces exactly the reference's entries, and a consistent transpose. */
static void check_mask(const ag_mask_t *fm, const ag_ref_mask_t *rm, const ag_graph_t *g, const char *what) {
    assert_int_equal(fm->n_nodes, rm->n_nodes);
    if (fm->n_entries != rm->n_entries)
        fail_msg("%s: %lld mask entries, expected %lld", what, (long long)fm->n_entries, (long long)rm->n_entries);
    assert_int_equal(fm->kind, rm->kind);
    assert_int_equal(fm->self_loops, rm->self_loops);
    for (int64_t i = 0; i <= fm->n_nodes; i++)
        if (fm->indptr[i] != rm->indptr[i]) fail_msg("%s: indptr[%lld] differs", what, (long long)i);
    for (int64_t k = 0; k < fm->n_entries; k++)
        if (fm->src[k] != rm->src[k] || fm->edge[k] != rm->edge[k])
            fail_msg("%s: entry %lld is (src %d, edge %lld), expected (src %d, edge %lld)", what, (long long)k,
                     fm->src[k], (long long)fm->edge[k], rm->src[k], (long long)rm->edge[k]);
    /* transpose: entries grouped by source, increasing within a group, each entry exactly once */
    int *seen = calloc((size_t)fm->n_entries + 1, sizeof *seen);
    assert_int_equal(fm->t_indptr[0], 0);
    assert_int_equal(fm->t_indptr[fm->n_nodes], fm->n_entries);
    for (int64_t j = 0; j < fm->n_nodes; j++)
        for (int64_t t = fm->t_indptr[j]; t < fm->t_indptr[j + 1]; t++) {
            int64_t k = fm->t_entry[t];
            assert_true(k >= 0 && k < fm->n_entries);
            assert_int_equal(fm->src[k], j);
            if (t > fm->t_indptr[j]) assert_true(fm->t_entry[t - 1] < k);
            seen[k]++;
        }
    for (int64_t k = 0; k < fm->n_entries; k++) assert_int_equal(seen[k], 1);
    free(seen);
    assert_int_equal(fm->n_graphs, g->n_graphs);
    for (int64_t x = 0; x <= g->n_graphs; x++) assert_int_equal(fm->graph_ptr[x], g->graph_ptr[x]);
    for (int64_t i = 0; i < g->n_nodes; i++) assert_int_equal(fm->node_graph[i], g->node_graph[i]);
}

static void test_mask_builder_matches_reference(void **state) {
    (void)state;
    for (int shape = 0; shape < AT_N_SHAPES; shape++) {
        ag_graph_t g;
        assert_int_equal(at_make_graph(&g, shape, 100 + (uint64_t)shape), 0);
        for (int mk = 0; mk < N_MASKS; mk++)
            for (int hops = 1; hops <= (MASKS[mk].kind == AG_MASK_KHOP ? 3 : 1); hops++) {
                ag_mask_t fm;
                ag_ref_mask_t rm;
                char what[128];
                snprintf(what, sizeof what, "%s hops %d on %s", MASKS[mk].name, hops, at_shape_name(shape));
                assert_int_equal(ag_mask_build(&fm, &g, MASKS[mk].kind, hops, MASKS[mk].self_loops), AG_SUCCESS);
                assert_int_equal(ag_ref_mask_build(&rm, &g, MASKS[mk].kind, hops, MASKS[mk].self_loops), 0);
                check_mask(&fm, &rm, &g, what);
                ag_ref_mask_free(&rm);
                ag_mask_destroy(&fm);
            }
        ag_test_graph_free(&g);
    }
}

static void test_mask_errors(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(at_make_graph(&g, AT_UNDIRECTED, 1), 0);
    ag_mask_t m;
    ag_error_clear();
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_KHOP, 0, 1), AG_EINVAL);
    assert_int_equal(ag_error_code(), AG_EINVAL);
    assert_true(strlen(ag_error_message()) > 0);
    ag_test_graph_free(&g);
}

/* Counters of the sweep, printed at the end so the report can say what ran. */
static int n_checked, n_refused;

/* One configuration on one graph and mask: forward output and weights against the reference.
 * Mismatches are printed and counted, so one run lists every failing combination. */
static int n_failed;
static void check_forward(const ag_graph_t *g, const ag_mask_t *fm, const ag_ref_mask_t *rm,
                          const ag_attention_config_t *cfg, const char *what, uint64_t seed) {
    ag_attention_t layer;
    ag_error_t rc = ag_attention_init(&layer, cfg, seed);
    if (rc != AG_SUCCESS) {
        /* only refusals the header allows; every DOT configuration must be accepted */
        assert_int_equal(rc, AG_EINVAL);
        assert_int_not_equal(cfg->score, AG_SCORE_DOT);
        n_refused++;
        return;
    }
    at_layer_randomise(&layer, 0.7f, seed);
    const int64_t N = g->n_nodes, F = cfg->in_dim, Fe = cfg->edge_dim, H = cfg->heads;
    const int64_t O = ag_attention_out_dim(cfg);
    assert_int_equal(O, ag_ref_out_dim(cfg));
    float *X = malloc(sizeof *X * (size_t)(N * F));             /* (N x F) */
    float *E = malloc(sizeof *E * (size_t)(g->n_edges * 3 + 1)); /* (E x Fe) */
    float *Y = malloc(sizeof *Y * (size_t)(N * O));             /* (N x O) */
    float *A = malloc(sizeof *A * (size_t)(fm->n_entries * H + 1)); /* (M x H) */
    ag_test_fill_uniform(X, N * F, -1, 1, seed + 1);
    ag_test_fill_uniform(E, g->n_edges * 3, -1, 1, seed + 2);
    ag_rng_t rng;
    ag_rng_init(&rng, 5);
    rc = ag_attention_forward(&layer, fm, X, cfg->edge_mode ? E : NULL, Y, 0, &rng);
    if (rc != AG_SUCCESS) fail_msg("%s: forward failed: %s", what, ag_error_message());

    ag_ref_params_t p;
    assert_int_equal(ag_ref_params_alloc(&p, cfg), 0);
    ag_ref_params_from_layer(&p, &layer);
    double *Xd = at_to_double(X, N * F), *Ed = at_to_double(E, g->n_edges * Fe);
    double *Yr = calloc((size_t)(N * O), sizeof *Yr);
    double *al = calloc((size_t)(rm->n_cand * H + 1), sizeof *al);
    double *ae = calloc((size_t)(rm->n_entries * H + 1), sizeof *ae);
    assert_int_equal(ag_ref_attention_forward(cfg, &p, rm, Xd, cfg->edge_mode ? Ed : NULL, Yr, al, NULL), 0);
    const double atol = 1e-5 * (at_max_abs(Yr, N * O) > 1 ? at_max_abs(Yr, N * O) : 1);
    int64_t bad = at_mismatch(Y, Yr, N * O, 1e-5, atol);
    int failed = 0;
    if (bad >= 0) {
        print_message("MISMATCH %s: Y[node %lld, col %lld] = %.8g, reference %.8g\n", what, (long long)(bad / O),
                      (long long)(bad % O), (double)Y[bad], Yr[bad]);
        failed = 1;
    }

    /* the weights of the mask entries, mapped back to input edges */
    assert_int_equal(ag_attention_weights(&layer, fm, A), AG_SUCCESS);
    ag_ref_entry_weights(rm, H, al, ae);
    /* Weights lie in [0, 1]; the absolute floor covers ReLU normalisation of scores near zero, where
     * a float score of 3e-4 carries a relative rounding error near 1e-4 (measured: alpha 0.0185
     * from scores 3.1e-4 and 1.6e-2 differed by 1.7e-6 from the double reference). */
    bad = at_mismatch(A, ae, fm->n_entries * H, 1e-5, 1e-5);
    if (bad >= 0) {
        int64_t k = bad / H, i = 0;
        while (fm->indptr[i + 1] <= k) i++;
        print_message("MISMATCH %s: alpha of entry %lld (dst %lld, src %d, edge %lld), head %lld = %.8g, "
                      "reference %.8g\n", what, (long long)k, (long long)i, fm->src[k], (long long)fm->edge[k],
                      (long long)(bad % H), (double)A[bad], ae[bad]);
        failed = 1;
    }
    n_checked++;
    n_failed += failed;
    free(X); free(E); free(Y); free(A); free(Xd); free(Ed); free(Yr); free(al); free(ae);
    ag_ref_params_free(&p);
    ag_attention_destroy(&layer);
}

static void sweep_shape(int shape) {
    /* One thread: on a loaded machine OpenMP's spinning barriers cost ten times the work of these
     * small layers (measured: 22 s instead of 2 s at load 9 on two cores). test_attention_determinism
     * shows that two threads give these results bit for bit. */
    ag_threads_set(1);
    n_failed = 0;
    ag_graph_t g;
    assert_int_equal(at_make_graph(&g, shape, 7 + (uint64_t)shape), 0);
    for (int mk = 0; mk < N_MASKS; mk++) {
        ag_mask_t fm;
        ag_ref_mask_t rm;
        assert_int_equal(ag_mask_build(&fm, &g, MASKS[mk].kind, MASKS[mk].hops, MASKS[mk].self_loops), AG_SUCCESS);
        assert_int_equal(ag_ref_mask_build(&rm, &g, MASKS[mk].kind, MASKS[mk].hops, MASKS[mk].self_loops), 0);
        for (int score = 0; score < 3; score++)
            for (int norm = 0; norm < 2; norm++)
                for (int edge = 0; edge < 3; edge++)
                    for (int comb = 0; comb < AT_N_COMBINE; comb++) {
                        ag_attention_config_t cfg = at_config(score, norm, edge, comb, 5);
                        char what[200];
                        snprintf(what, sizeof what, "%s %s %s edges %s %s on %s", at_score_name(score),
                                 at_norm_name(norm), MASKS[mk].name, at_edge_name(edge), at_combine_name(comb),
                                 at_shape_name(shape));
                        check_forward(&g, &fm, &rm, &cfg, what,
                                      1000 + (uint64_t)(((mk * 3 + score) * 2 + norm) * 3 + edge) * 3 + (uint64_t)comb);
                    }
        ag_ref_mask_free(&rm);
        ag_mask_destroy(&fm);
    }
    ag_test_graph_free(&g);
    ag_threads_set(0);
    if (n_failed) fail_msg("%d configurations on %s differ from the reference", n_failed, at_shape_name(shape));
}

static void test_forward_undirected(void **state) { (void)state; sweep_shape(AT_UNDIRECTED); }
static void test_forward_directed(void **state) { (void)state; sweep_shape(AT_DIRECTED); }
static void test_forward_batch(void **state) { (void)state; sweep_shape(AT_BATCH); }
static void test_forward_large(void **state) { (void)state; sweep_shape(AT_LARGE); }

/* Each input edge appears in the neighbour mask's weights as often as graph.h says (directed: once,
 * undirected: twice, a self-loop: once), added self-loops are flagged -1, and every destination's
 * softmax weights sum to one. */
static void test_weights_map_to_edges(void **state) {
    (void)state;
    for (int directed = 0; directed < 2; directed++) {
        ag_graph_t g;
        assert_int_equal(at_make_graph(&g, directed ? AT_DIRECTED : AT_UNDIRECTED, 3), 0);
        ag_mask_t fm;
        assert_int_equal(ag_mask_build(&fm, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
        ag_attention_config_t cfg = at_config(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT, 5);
        ag_attention_t layer;
        assert_int_equal(ag_attention_init(&layer, &cfg, 1), AG_SUCCESS);
        const int64_t N = g.n_nodes, H = cfg.heads;
        float *X = malloc(sizeof *X * (size_t)(N * 5)), *Y = malloc(sizeof *Y * (size_t)(N * 6));
        float *A = malloc(sizeof *A * (size_t)(fm.n_entries * H));
        ag_test_fill_uniform(X, N * 5, -1, 1, 2);
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        assert_int_equal(ag_attention_forward(&layer, &fm, X, NULL, Y, 0, &rng), AG_SUCCESS);
        assert_int_equal(ag_attention_weights(&layer, &fm, A), AG_SUCCESS);
        int64_t *count = calloc((size_t)g.n_edges + 1, sizeof *count);
        for (int64_t i = 0; i < N; i++) {
            double sum[2] = {0, 0};
            int added = 0;
            for (int64_t k = fm.indptr[i]; k < fm.indptr[i + 1]; k++) {
                if (fm.edge[k] < 0) {
                    assert_int_equal(fm.src[k], i);
                    added++;
                } else {
                    count[fm.edge[k]]++;
                }
                for (int h = 0; h < H; h++) sum[h] += A[k * H + h];
            }
            assert_true(added <= 1);
            for (int h = 0; h < H; h++) assert_float_equal(sum[h], 1.0, 1e-5);
        }
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = g.indptr[i]; k < g.indptr[i + 1]; k++) {
                int64_t e = g.edge[k];
                int self = g.src[k] == i;
                assert_int_equal(count[e], (directed || self) ? 1 : 2);
            }
        free(count); free(X); free(Y); free(A);
        ag_attention_destroy(&layer);
        ag_mask_destroy(&fm);
        ag_test_graph_free(&g);
    }
}

static void test_forward_errors(void **state) {
    (void)state;
    ag_graph_t g, small;
    assert_int_equal(at_make_graph(&g, AT_UNDIRECTED, 1), 0);
    const int64_t nn = 3, ne = 1, el[] = {0, 1};
    const int64_t *lists[] = {el};
    assert_int_equal(ag_test_graph_build(&small, 0, 1, &nn, &ne, lists), 0);
    ag_mask_t m, ms;
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    assert_int_equal(ag_mask_build(&ms, &small, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    ag_attention_config_t cfg = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 5);
    ag_attention_t layer;
    assert_int_equal(ag_attention_init(&layer, &cfg, 1), AG_SUCCESS);
    float X[18 * 5] = {0}, Y[18 * 4], E[30 * 3] = {0};
    /* missing edge features */
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    ag_error_clear();
    assert_int_equal(ag_attention_forward(&layer, &m, X, NULL, Y, 0, &rng), AG_EINVAL);
    assert_true(strlen(ag_error_message()) > 0);
    /* with them, the same layer runs on another (smaller) mask */
    assert_int_equal(ag_attention_forward(&layer, &ms, X, E, Y, 0, &rng), AG_SUCCESS);
    /* the rng is needed only for dropout: NULL for inference and for training without it, refused
     * with it */
    assert_int_equal(ag_attention_forward(&layer, &ms, X, E, Y, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_attention_forward(&layer, &ms, X, E, Y, 1, NULL), AG_SUCCESS);
    layer.cfg.attn_dropout = 0.5f;
    assert_int_equal(ag_attention_forward(&layer, &ms, X, E, Y, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_attention_forward(&layer, &ms, X, E, Y, 1, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "needs an rng"));
    layer.cfg.attn_dropout = 0.0f;
    /* bad configurations */
    ag_attention_t bad;
    ag_attention_config_t c2 = cfg;
    c2.heads = 0;
    assert_int_equal(ag_attention_init(&bad, &c2, 1), AG_EINVAL);
    assert_true(strlen(ag_error_message()) > 0);
    c2 = cfg;
    c2.edge_dim = 0;
    assert_int_equal(ag_attention_init(&bad, &c2, 1), AG_EINVAL);
    c2 = cfg;
    c2.in_dim = -1;
    assert_int_equal(ag_attention_init(&bad, &c2, 1), AG_EINVAL);
    ag_attention_destroy(&layer);
    ag_mask_destroy(&m);
    ag_mask_destroy(&ms);
    ag_test_graph_free(&g);
    ag_test_graph_free(&small);
}

static void expect_error(ag_error_t rc, ag_error_t code, const char *fragment) {
    assert_int_equal(rc, code);
    assert_int_equal(ag_error_code(), code);
    if (!strstr(ag_error_message(), fragment))
        fail_msg("message '%s' does not say '%s'", ag_error_message(), fragment);
}

/* Backward and weights refuse what they cannot differentiate or report; init and the mask builder
 * refuse bad configurations and graphs; each with its code and a message saying why. */
static void test_error_paths(void **state) {
    (void)state;
    ag_graph_t g, small;
    assert_int_equal(at_make_graph(&g, AT_UNDIRECTED, 1), 0);
    const int64_t nn = 3, ne = 1, el[] = {0, 1};
    const int64_t *lists[] = {el};
    assert_int_equal(ag_test_graph_build(&small, 0, 1, &nn, &ne, lists), 0);
    ag_mask_t m, ms;
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    assert_int_equal(ag_mask_build(&ms, &small, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    ag_attention_config_t cfg = at_config(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_BIAS, AT_CONCAT, 5);
    ag_attention_t layer;
    assert_int_equal(ag_attention_init(&layer, &cfg, 1), AG_SUCCESS);
    float X[18 * 5] = {0}, Y[18 * 6], E[30 * 3] = {0}, dY[18 * 6] = {0}, dX[18 * 5] = {0}, A[400];
    expect_error(ag_attention_backward(&layer, &m, X, E, dY, dX, NULL), AG_EINVAL, "no forward pass");
    expect_error(ag_attention_weights(&layer, &m, A), AG_EINVAL, "no forward pass");
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    assert_int_equal(ag_attention_forward(&layer, &m, X, E, Y, 1, &rng), AG_SUCCESS);
    expect_error(ag_attention_backward(&layer, &ms, X, E, dY, dX, NULL), AG_EINVAL, "not the forward");
    expect_error(ag_attention_backward(&layer, &m, X, NULL, dY, dX, NULL), AG_EINVAL, "edge features");
    expect_error(ag_attention_weights(&layer, &ms, A), AG_EINVAL, "this mask");
    assert_int_equal(ag_attention_backward(&layer, &m, X, E, dY, dX, NULL), AG_SUCCESS);
    /* an inference pass of concatenated heads without W^O writes them into Y and keeps no copy:
     * nothing to differentiate, but the weights are there */
    assert_int_equal(ag_attention_forward(&layer, &m, X, E, Y, 0, &rng), AG_SUCCESS);
    expect_error(ag_attention_backward(&layer, &m, X, E, dY, dX, NULL), AG_EINVAL, "inference pass");
    assert_int_equal(ag_attention_weights(&layer, &m, A), AG_SUCCESS);
    assert_int_equal(ag_attention_forward(&layer, &m, X, E, Y, 1, &rng), AG_SUCCESS);
    assert_int_equal(ag_attention_backward(&layer, &m, X, E, dY, dX, NULL), AG_SUCCESS);
    ag_attention_destroy(&layer);

    cfg.attn_dropout = 0.5f;
    assert_int_equal(ag_attention_init(&layer, &cfg, 1), AG_SUCCESS);
    expect_error(ag_attention_forward(&layer, &m, X, E, Y, 1, NULL), AG_EINVAL, "rng");
    ag_attention_destroy(&layer);

    ag_attention_config_t c2 = cfg;
    c2.attn_dropout = 1.0f;
    expect_error(ag_attention_init(&layer, &c2, 1), AG_EINVAL, "dropout");
    c2 = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT_WO, 5);
    c2.out_dim = 0;
    expect_error(ag_attention_init(&layer, &c2, 1), AG_EINVAL, "out_dim");
    c2 = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT_WO, 5);
    c2.score = (ag_score_t)7;
    expect_error(ag_attention_init(&layer, &c2, 1), AG_EINVAL, "score");

    ag_mask_t bad;
    expect_error(ag_mask_build(&bad, &g, (ag_mask_kind_t)9, 1, 1), AG_EINVAL, "kind");
    small.src[0] = 7; /* a source outside the graph */
    expect_error(ag_mask_build(&bad, &small, AG_MASK_NEIGHBOURS, 0, 1), AG_EINVAL, "out of range");
    ag_mask_destroy(&m);
    ag_mask_destroy(&ms);
    ag_test_graph_free(&g);
    ag_test_graph_free(&small);
}

void ag_i_alloc_fail_at(int64_t n);

/* Allocation-failure injection: failing the n-th allocation of mask building, init, a training
 * forward, backward and weights returns AG_ENOMEM and leaks nothing (ASan checks), for every n. */
static void test_allocation_failures(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(at_make_graph(&g, AT_BATCH, 2), 0);
    const int64_t N = g.n_nodes;
    float *X = calloc((size_t)(N * 5), sizeof *X), *E = calloc((size_t)(g.n_edges * 3 + 1), sizeof *E);
    float *Y = calloc((size_t)(N * 4), sizeof *Y), *dX = calloc((size_t)(N * 5), sizeof *dX);
    ag_test_fill_uniform(X, N * 5, -1, 1, 1);
    for (int kind = 0; kind < 3; kind++) {
        int completed = 0, failures = 0;
        for (int64_t n = 1; n < 500 && !completed; n++) {
            ag_attention_config_t cfg = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 5);
            cfg.attn_dropout = 0.2f;
            ag_mask_t m;
            ag_attention_t layer;
            ag_rng_t rng;
            ag_rng_init(&rng, 1);
            int have_mask = 0, have_layer = 0;
            ag_i_alloc_fail_at(n);
            ag_error_t rc = ag_mask_build(&m, &g, (ag_mask_kind_t)kind, 2, 1);
            if (rc == AG_SUCCESS) { have_mask = 1; rc = ag_attention_init(&layer, &cfg, 1); }
            if (rc == AG_SUCCESS) { have_layer = 1; rc = ag_attention_forward(&layer, &m, X, E, Y, 1, &rng); }
            if (rc == AG_SUCCESS) rc = ag_attention_backward(&layer, &m, X, E, Y, dX, NULL);
            float *A = have_mask ? malloc(sizeof *A * (size_t)(m.n_entries * 2 + 1)) : NULL;
            if (rc == AG_SUCCESS) rc = ag_attention_weights(&layer, &m, A);
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) completed = 1;
            else {
                if (rc != AG_ENOMEM) fail_msg("mask %d, allocation %lld failed: %s, not AG_ENOMEM", kind, (long long)n, ag_error_name(rc));
                assert_true(strlen(ag_error_message()) > 0);
                failures++;
            }
            free(A);
            if (have_layer) ag_attention_destroy(&layer);
            if (have_mask) ag_mask_destroy(&m);
        }
        assert_true(completed);
        assert_true(failures > 2);
    }
    free(X); free(E); free(Y); free(dX);
    ag_test_graph_free(&g);
}

/* The 3-node example of test_attention_ref.c worked by hand, on the fast layer: nodes 0, 1, 2,
 * edges 0 -> 1 (feature 1) and 2 -> 1 (feature -1), self-loops added; X = [1 0; 0 1; 1 1],
 * Wq = I, Wk = diag(0.5, 1), Wv = [1 2; 3 4]; node 1 attends to 0, 1, 2 with values (1 2), (3 4),
 * (4 6) (plus e W^e in KEY mode). */
static void hand_case(ag_score_t score, ag_norm_t norm, ag_edge_mode_t em, const float *w1, const float *y1) {
    const int64_t el[] = {0, 1, 2, 1};
    const int64_t nn = 3, ne = 2;
    const int64_t *lists[] = {el};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_build(&g, 1, 1, &nn, &ne, lists), 0);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    ag_attention_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.in_dim = 2; cfg.heads = 1; cfg.head_dim = 2; cfg.score = score; cfg.norm = norm;
    cfg.combine = AG_HEADS_CONCAT; cfg.edge_mode = em; cfg.edge_dim = em ? 1 : 0; cfg.negative_slope = 0.2f;
    ag_attention_t l;
    assert_int_equal(ag_attention_init(&l, &cfg, 1), AG_SUCCESS);
    const float Wq[4] = {1, 0, 0, 1}, Wk[4] = {0.5f, 0, 0, 1}, Wv[4] = {1, 2, 3, 4};
    if (l.Wq) memcpy(l.Wq, Wq, sizeof Wq);
    if (l.Wk) memcpy(l.Wk, Wk, sizeof Wk);
    memcpy(l.Wv, Wv, sizeof Wv);
    if (l.a_src) { l.a_src[0] = 1; l.a_src[1] = -1; l.a_dst[0] = 0.5f; l.a_dst[1] = 0.25f; }
    if (l.a) { l.a[0] = 1; l.a[1] = -0.5f; }
    if (em == AG_EDGE_KEY) { l.We[0] = 0.5f; l.We[1] = -1; }
    if (em == AG_EDGE_BIAS) l.We[0] = 2;
    const float X[6] = {1, 0, 0, 1, 1, 1}, E[2] = {1, -1};
    float Y[6], A[5];
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    assert_int_equal(ag_attention_forward(&l, &m, X, em ? E : NULL, Y, 0, &rng), AG_SUCCESS);
    assert_int_equal(ag_attention_weights(&l, &m, A), AG_SUCCESS);
    assert_int_equal(m.n_entries, 5); /* 0 <- 0; 1 <- 0, 1, 2; 2 <- 2 */
    for (int k = 0; k < 3; k++) assert_float_equal(A[1 + k], w1[k], 1e-6);
    assert_float_equal(Y[2], y1[0], 1e-5);
    assert_float_equal(Y[3], y1[1], 1e-5);
    if (norm == AG_NORM_SOFTMAX) { /* lone sources: weight 1, own value */
        assert_float_equal(A[0], 1.0f, 1e-7);
        assert_float_equal(Y[0], 1.0f, 1e-6);
        assert_float_equal(Y[5], 6.0f, 1e-6);
    }
    ag_attention_destroy(&l);
    ag_mask_destroy(&m);
    ag_test_graph_free(&g);
}

static void test_hand_example(void **state) {
    (void)state;
    hand_case(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE, (float[]){0.19777581f, 0.40111209f, 0.40111209f},
              (float[]){3.00556046f, 4.40667256f});
    hand_case(AG_SCORE_DOT, AG_NORM_RELU, AG_EDGE_NONE, (float[]){0.0f, 0.49999965f, 0.49999965f},
              (float[]){3.49999753f, 4.99999646f});
    hand_case(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY, (float[]){0.07431963f, 0.30569525f, 0.61998512f},
              (float[]){3.19851311f, 5.63699646f});
    hand_case(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE, (float[]){0.42231880f, 0.42231880f, 0.15536240f},
              (float[]){2.31072481f, 3.46608721f});
    hand_case(AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_BIAS, (float[]){0.87560060f, 0.11849965f, 0.00589975f},
              (float[]){1.25469856f, 2.26059831f});
    hand_case(AG_SCORE_GATV2, AG_NORM_SOFTMAX, AG_EDGE_NONE, (float[]){0.15536240f, 0.42231880f, 0.42231880f},
              (float[]){3.11159399f, 4.53391279f});
    hand_case(AG_SCORE_GATV2, AG_NORM_RELU, AG_EDGE_NONE, (float[]){0.0f, 0.49999950f, 0.49999950f},
              (float[]){3.49999650f, 4.99999500f});
}

/* The parameter list names every tensor of the layer under the prefix, with its shape, its value
 * and gradient pointers, and weight decay on weights but not on the bias. */
static void test_param_list(void **state) {
    (void)state;
    for (int score = 0; score < 3; score++)
        for (int edge = 0; edge < 3; edge++)
            for (int comb = 0; comb < AT_N_COMBINE; comb++) {
                ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, edge, comb, 5);
                ag_attention_t l;
                assert_int_equal(ag_attention_init(&l, &cfg, 1), AG_SUCCESS);
                ag_param_list_t list;
                ag_param_list_init(&list);
                assert_int_equal(ag_attention_params(&l, &list, "blocks.0.attn"), AG_SUCCESS);
                int64_t expected = 0, total = 0;
                for (int w = 0; w < AG_REF_N_TENSORS; w++) {
                    int64_t r, c;
                    ag_ref_tensor_shape(&cfg, w, &r, &c);
                    char name[80];
                    snprintf(name, sizeof name, "blocks.0.attn.%s", ag_ref_tensor_name(w));
                    ag_param_t *pe = ag_param_list_find(&list, name);
                    if (r * c == 0) {
                        assert_null(pe);
                        assert_null(ag_ref_layer_tensor(&l, w, 0));
                        continue;
                    }
                    if (!pe) fail_msg("%s %s %s: no %s", at_score_name(score), at_edge_name(edge), at_combine_name(comb), name);
                    assert_int_equal(pe->shape[0] * pe->shape[1], r * c);
                    if (c > 1) { assert_int_equal(pe->shape[0], r); assert_int_equal(pe->shape[1], c); }
                    assert_ptr_equal(pe->value, ag_ref_layer_tensor(&l, w, 0));
                    assert_ptr_equal(pe->grad, ag_ref_layer_tensor(&l, w, 1));
                    if (w == 8) assert_int_equal(pe->decay, 0);
                    if (w == 0 || w == 1 || w == 2 || w == 7) assert_int_equal(pe->decay, 1);
                    /* biases start at zero */
                    if (w == 8)
                        for (int64_t x = 0; x < r * c; x++) assert_float_equal(pe->value[x], 0.0f, 0.0f);
                    expected++;
                    total += r * c;
                }
                assert_int_equal(list.count, expected);
                assert_int_equal(ag_param_list_size(&list), total);
                ag_param_list_destroy(&list);
                ag_attention_destroy(&l);
            }
}

/* Glorot uniform initialisation as attention.h states: U(-b, b), b = sqrt(6 / (fan_in + fan_out))
 * with rows and columns as fans (H and D for the attention vectors), each tensor its own stream. */
static void check_glorot(const char *name, const float *w, int64_t n, double fan_in, double fan_out) {
    const double b = sqrt(6.0 / (fan_in + fan_out));
    double mx = 0, sum2 = 0, sum = 0;
    for (int64_t x = 0; x < n; x++) {
        if (fabs(w[x]) > b) fail_msg("%s[%lld] = %g outside +-%g", name, (long long)x, (double)w[x], b);
        mx = fabs(w[x]) > mx ? fabs(w[x]) : mx;
        sum += w[x];
        sum2 += (double)w[x] * w[x];
    }
    if (n >= 64 && mx < 0.9 * b) fail_msg("%s: largest |w| %g, bound %g", name, mx, b);
    if (n >= 1000) {
        /* variance b^2/3 and mean 0, within a few standard errors */
        double var = sum2 / (double)n, mean = sum / (double)n;
        if (fabs(var / (b * b / 3) - 1) > 0.1) fail_msg("%s: variance %g, expected %g", name, var, b * b / 3);
        if (fabs(mean) > 4 * b / sqrt(3.0 * (double)n)) fail_msg("%s: mean %g", name, mean);
    }
}

static void test_init_glorot(void **state) {
    (void)state;
    for (int score = 0; score < 3; score++) {
        ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 64);
        cfg.heads = 4;
        cfg.head_dim = 16;
        cfg.out_dim = 32;
        cfg.edge_dim = 8;
        ag_attention_t l;
        assert_int_equal(ag_attention_init(&l, &cfg, 11), AG_SUCCESS);
        for (int w = 0; w < 8; w++) {
            int64_t r, c;
            ag_ref_tensor_shape(&cfg, w, &r, &c);
            const float *t = ag_ref_layer_tensor(&l, w, 0);
            if (!t) continue;
            if (w >= 3 && w <= 5) check_glorot(ag_ref_tensor_name(w), t, r * c, 4, 16);
            else check_glorot(ag_ref_tensor_name(w), t, r * c, (double)r, (double)c);
        }
        /* Wq and Wk (DOT) and a_src and a_dst (GAT) come from different streams */
        if (l.Wk) assert_false(memcmp(l.Wq, l.Wk, 64 * 64 * sizeof(float)) == 0);
        if (l.a_dst) assert_false(memcmp(l.a_src, l.a_dst, 64 * sizeof(float)) == 0);
        ag_attention_destroy(&l);
    }
}

static void test_config_default(void **state) {
    (void)state;
    ag_attention_config_t c;
    ag_attention_config_default(&c, 16);
    assert_int_equal(c.in_dim, 16);
    assert_int_equal(c.heads, 4);
    assert_int_equal(c.head_dim, 4);
    assert_int_equal(c.out_dim, 16);
    assert_int_equal(c.score, AG_SCORE_DOT);
    assert_int_equal(c.norm, AG_NORM_SOFTMAX);
    assert_int_equal(c.combine, AG_HEADS_CONCAT);
    assert_int_equal(c.out_proj, 1);
    assert_int_equal(c.bias, 1);
    assert_int_equal(c.edge_mode, AG_EDGE_NONE);
    assert_float_equal(c.negative_slope, 0.2f, 0);
    assert_float_equal(c.attn_dropout, 0.0f, 0);
    assert_int_equal(ag_attention_out_dim(&c), 16);
    ag_attention_config_default(&c, 2);
    assert_true(c.head_dim >= 1);
}

static int teardown_report(void **state) {
    (void)state;
    printf("# attention sweep: %d configurations checked against the reference, %d refused by init\n",
           n_checked, n_refused);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_builder_matches_reference),
        cmocka_unit_test(test_mask_errors),
        cmocka_unit_test(test_config_default),
        cmocka_unit_test(test_hand_example),
        cmocka_unit_test(test_param_list),
        cmocka_unit_test(test_init_glorot),
        cmocka_unit_test(test_forward_undirected),
        cmocka_unit_test(test_forward_directed),
        cmocka_unit_test(test_forward_batch),
        cmocka_unit_test(test_forward_large),
        cmocka_unit_test(test_weights_map_to_edges),
        cmocka_unit_test(test_forward_errors),
        cmocka_unit_test(test_error_paths),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_report);
}
