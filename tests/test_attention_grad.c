/* Gradient checks of ag_attention_backward: every parameter tensor, the input X and the edge
 * features E against central differences of the double-precision reference's loss
 * L = sum(Y .* R), for every scoring x mask x norm x edge mode (head combinations rotated); that
 * backward accumulates; and that gradients under attention dropout use the forward's draws.
 *
 * Why differences on the reference and not on the float kernel: in double a step of 1e-7 leaves a
 * rounding error near 1e-9 and no visible truncation error, so the comparison measures the kernel's
 * gradient, not the noise of float differences (near 1e-4 at a step of 1e-3). The step is that
 * small because ReLU normalisation and LeakyReLU have kinks: at 1e-5 a GAT score of about 1e-6
 * was stepped across zero and the difference averaged two slopes. The forward kernel itself is
 * tied to the reference by test_attention. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "attention_testutil.h"

typedef struct at_mask_spec_t {
    ag_mask_kind_t kind;
    int hops, self_loops;
    const char *name;
} at_mask_spec_t;
static const at_mask_spec_t MASKS[] = {
    {AG_MASK_NEIGHBOURS, 0, 1, "NEIGHBOURS+self"},
    {AG_MASK_NEIGHBOURS, 0, 0, "NEIGHBOURS"},
    {AG_MASK_KHOP, 2, 1, "KHOP2+self"},
    {AG_MASK_KHOP, 2, 0, "KHOP2"},
    {AG_MASK_FULL, 0, 1, "FULL+self"},
    {AG_MASK_FULL, 0, 0, "FULL"},
};
#define N_MASKS ((int)(sizeof MASKS / sizeof MASKS[0]))

/* A small batch: 6 nodes (a self-loop, a multi-edge), 3 nodes, and an isolated node; the first
 * half of the sweep runs it undirected, the second half directed. */
static void small_batch(ag_graph_t *g, int directed) {
    const int64_t a[] = {0, 1, 1, 2, 2, 0, 2, 3, 3, 4, 4, 5, 5, 5, 1, 2, 0, 4};
    const int64_t b[] = {0, 1, 2, 1}, c[] = {0, 0};
    const int64_t nn[] = {6, 3, 1}, ne[] = {9, 2, 0};
    const int64_t *lists[] = {a, b, c};
    assert_int_equal(ag_test_graph_build(g, directed, 3, nn, ne, lists), 0);
}

/* Compares one gradient tensor: relative error of the whole vector, and each element against an
 * absolute floor scaled by the tensor's largest entry.
 *
 * Tolerances. Softmax: 1e-4 on the norm. ReLU normalisation: 1e-3, because its backward forms
 * (dalpha - dO.o) / den, a difference of O(1) float terms whose true value is O(eps/s) when one
 * score dominates: measured on this sweep, a destination whose only positive score was 3.2e-4 gave
 * gradient errors near 2e-4 against |grad| near 2 (float rounding 1.2e-7 / 3.2e-4), not a bug. */
static void compare_grad(const char *what, const char *tensor, const float *got, const double *want, int64_t n,
                         double rtol) {
    double diff2 = 0, ref2 = 0, scale = at_max_abs(want, n);
    for (int64_t x = 0; x < n; x++) {
        double d = (double)got[x] - want[x];
        diff2 += d * d;
        ref2 += want[x] * want[x];
    }
    if (sqrt(diff2) > rtol * sqrt(ref2) + 1e-6)
        fail_msg("%s: d%s: |fast - fd| = %.3g, |fd| = %.3g", what, tensor, sqrt(diff2), sqrt(ref2));
    int64_t bad = at_mismatch(got, want, n, 10 * rtol, rtol * (scale > 1 ? scale : 1));
    if (bad >= 0)
        fail_msg("%s: d%s[%lld] = %.8g, finite differences %.8g", what, tensor, (long long)bad, (double)got[bad],
                 want[bad]);
}

static int n_checked;

/* Runs forward (training) and backward of the fast layer, then finite differences of the reference,
 * for every tensor; with dropout p (0: none). */
static void check_grads_sampled(const ag_graph_t *g, const at_mask_spec_t *ms, ag_attention_config_t *cfg,
                                const char *what, uint64_t seed, int64_t max_samples);
static void check_grads(const ag_graph_t *g, const at_mask_spec_t *ms, ag_attention_config_t *cfg,
                        const char *what, uint64_t seed) {
    check_grads_sampled(g, ms, cfg, what, seed, 0);
}

/* max_samples > 0: differences for that many elements per tensor (spread evenly), not all. */
static void check_grads_sampled(const ag_graph_t *g, const at_mask_spec_t *ms, ag_attention_config_t *cfg,
                                const char *what, uint64_t seed, int64_t max_samples) {
    ag_attention_t layer;
    /* every configuration of the sweeps is a valid one: a refusal would leave it unchecked */
    if (ag_attention_init(&layer, cfg, seed) != AG_SUCCESS) fail_msg("%s: init: %s", what, ag_error_message());
    at_layer_randomise(&layer, 0.7f, seed);
    ag_mask_t fm;
    ag_ref_mask_t rm;
    assert_int_equal(ag_mask_build(&fm, g, ms->kind, ms->hops, ms->self_loops), AG_SUCCESS);
    assert_int_equal(ag_ref_mask_build(&rm, g, ms->kind, ms->hops, ms->self_loops), 0);
    const int64_t N = g->n_nodes, F = cfg->in_dim, Fe = cfg->edge_dim, nE = g->n_edges, O = ag_attention_out_dim(cfg);
    float *X = malloc(sizeof *X * (size_t)(N * F));     /* (N x F) */
    float *E = malloc(sizeof *E * (size_t)(nE * 3 + 1)); /* (E x Fe) */
    float *Y = malloc(sizeof *Y * (size_t)(N * O));     /* (N x O) */
    float *R = malloc(sizeof *R * (size_t)(N * O));     /* (N x O) dL/dY */
    float *dX = calloc((size_t)(N * F), sizeof *dX);
    float *dE = calloc((size_t)(nE * 3 + 1), sizeof *dE);
    ag_test_fill_uniform(X, N * F, -1, 1, seed + 1);
    ag_test_fill_uniform(E, nE * 3, -1, 1, seed + 2);
    ag_test_fill_uniform(R, N * O, -1, 1, seed + 3);
    ag_rng_t rng;
    ag_rng_init(&rng, seed);
    rng.stream = 17;
    ag_ref_dropout_t drop = {cfg->attn_dropout, rng.seed, rng.stream};
    const float *Earg = cfg->edge_mode ? E : NULL;
    if (ag_attention_forward(&layer, &fm, X, Earg, Y, 1, &rng) != AG_SUCCESS)
        fail_msg("%s: forward: %s", what, ag_error_message());
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_attention_params(&layer, &list, "attn"), AG_SUCCESS);
    ag_param_list_zero_grad(&list);
    if (ag_attention_backward(&layer, &fm, X, Earg, R, dX, cfg->edge_mode ? dE : NULL) != AG_SUCCESS)
        fail_msg("%s: backward: %s", what, ag_error_message());

    ag_ref_params_t p;
    assert_int_equal(ag_ref_params_alloc(&p, cfg), 0);
    ag_ref_params_from_layer(&p, &layer);
    double *Xd = at_to_double(X, N * F), *Ed = at_to_double(E, nE * Fe), *Rd = at_to_double(R, N * O);
    for (int w = -2; w < AG_REF_N_TENSORS; w++) {
        int64_t r, c, n;
        double *target;
        const float *got;
        const char *name;
        if (w == -2) { target = Xd; n = N * F; got = dX; name = "X"; }
        else if (w == -1) { target = cfg->edge_mode ? Ed : NULL; n = nE * Fe; got = dE; name = "E"; }
        else {
            ag_ref_tensor_shape(cfg, w, &r, &c);
            target = ag_ref_params_tensor(&p, w);
            n = r * c;
            got = ag_ref_layer_tensor(&layer, w, 1);
            name = ag_ref_tensor_name(w);
            if (target) {
                /* the parameter list names and shapes the same tensor */
                char full[64];
                snprintf(full, sizeof full, "attn.%s", name);
                ag_param_t *pe = ag_param_list_find(&list, full);
                if (!pe) fail_msg("%s: no parameter %s in the list", what, full);
                assert_int_equal(pe->shape[0] * pe->shape[1], n);
                assert_ptr_equal(pe->grad, got);
            }
        }
        if (!target || n == 0) continue;
        assert_non_null(got);
        double *fd = calloc((size_t)n, sizeof *fd);
        const double rtol = cfg->norm == AG_NORM_RELU ? 1e-3 : 1e-4;
        if (max_samples <= 0 || n <= max_samples) {
            ag_ref_fd_grad(cfg, &p, &rm, Xd, cfg->edge_mode ? Ed : NULL, Rd, &drop, target, n, 1e-7, fd);
            compare_grad(what, name, got, fd, n, rtol);
        } else {
            float *gs = malloc(sizeof *gs * (size_t)max_samples);
            for (int64_t t = 0; t < max_samples; t++) {
                int64_t x = (t * n) / max_samples + (t * 7) % (n / max_samples);
                ag_ref_fd_grad(cfg, &p, &rm, Xd, cfg->edge_mode ? Ed : NULL, Rd, &drop, target + x, 1, 1e-7, fd + t);
                gs[t] = got[x];
            }
            compare_grad(what, name, gs, fd, max_samples, rtol);
            free(gs);
        }
        free(fd);
    }
    n_checked++;
    free(X); free(E); free(Y); free(R); free(dX); free(dE); free(Xd); free(Ed); free(Rd);
    ag_ref_params_free(&p);
    ag_param_list_destroy(&list);
    ag_ref_mask_free(&rm);
    ag_mask_destroy(&fm);
    ag_attention_destroy(&layer);
}

static void sweep(int score) {
    int combo = 0;
    for (int directed = 0; directed < 2; directed++) {
        ag_graph_t g;
        small_batch(&g, directed);
        for (int mk = 0; mk < N_MASKS; mk++)
            for (int norm = 0; norm < 2; norm++)
                for (int edge = 0; edge < 3; edge++, combo++) {
                    /* every combination of the other axes meets every head combination once per
                     * direction as combo walks on */
                    int comb = (combo + directed) % AT_N_COMBINE;
                    ag_attention_config_t cfg = at_config(score, norm, edge, comb, 4);
                    char what[200];
                    snprintf(what, sizeof what, "%s %s %s edges %s %s %s", at_score_name(score), at_norm_name(norm),
                             MASKS[mk].name, at_edge_name(edge), at_combine_name(comb),
                             directed ? "directed" : "undirected");
                    check_grads(&g, &MASKS[mk], &cfg, what, 500 + (uint64_t)combo * 7 + (uint64_t)score);
                }
        ag_test_graph_free(&g);
    }
}

static void test_grad_dot(void **state) { (void)state; sweep(AG_SCORE_DOT); }
static void test_grad_gat(void **state) { (void)state; sweep(AG_SCORE_GAT); }
static void test_grad_gatv2(void **state) { (void)state; sweep(AG_SCORE_GATV2); }

/* With attention dropout on, the backward pass differentiates the forward that was run: the same
 * draws, the same 1/(1-p) scaling. */
static void test_grad_with_dropout(void **state) {
    (void)state;
    ag_graph_t g;
    small_batch(&g, 0);
    for (int score = 0; score < 3; score++)
        for (int mk = 0; mk < N_MASKS; mk++) {
            ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 4);
            cfg.attn_dropout = 0.3f;
            char what[200];
            snprintf(what, sizeof what, "%s SOFTMAX %s edges KEY CONCAT+WO dropout 0.3", at_score_name(score),
                     MASKS[mk].name);
            check_grads(&g, &MASKS[mk], &cfg, what, 900 + (uint64_t)(score * 4 + mk));
        }
    ag_test_graph_free(&g);
}

/* The full mask's fast path (dot scores, no edge features) on a graph of 300 nodes, more than one
 * block of 256 sources: differences on 12 elements of each tensor. */
static void test_grad_full_fast_path(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(at_make_graph(&g, AT_LARGE, 4), 0);
    const at_mask_spec_t full = {AG_MASK_FULL, 0, 1, "FULL+self"};
    for (int v = 0; v < 4; v++) {
        ag_attention_config_t cfg = at_config(AG_SCORE_DOT, v & 1 ? AG_NORM_RELU : AG_NORM_SOFTMAX, AG_EDGE_NONE,
                                              v < 2 ? AT_CONCAT_WO : AT_MEAN, 4);
        cfg.attn_dropout = v == 3 ? 0.2f : 0.0f;
        char what[160];
        snprintf(what, sizeof what, "DOT %s FULL+self NONE %s dropout %.1f on 300 nodes", at_norm_name(cfg.norm),
                 at_combine_name(v < 2 ? AT_CONCAT_WO : AT_MEAN), (double)cfg.attn_dropout);
        check_grads_sampled(&g, &full, &cfg, what, 50 + (uint64_t)v, 12);
    }
    ag_test_graph_free(&g);
}

/* The forward output of the fast layer (training, dropout drawn from seed and stream 17 as in
 * check_grads_sampled) against the reference's. */
static void check_forward(const ag_graph_t *g, const at_mask_spec_t *ms, const ag_attention_config_t *cfg,
                          const char *what, uint64_t seed) {
    ag_attention_t layer;
    assert_int_equal(ag_attention_init(&layer, cfg, seed), AG_SUCCESS);
    at_layer_randomise(&layer, 0.7f, seed);
    ag_mask_t fm;
    ag_ref_mask_t rm;
    assert_int_equal(ag_mask_build(&fm, g, ms->kind, ms->hops, ms->self_loops), AG_SUCCESS);
    assert_int_equal(ag_ref_mask_build(&rm, g, ms->kind, ms->hops, ms->self_loops), 0);
    const int64_t N = g->n_nodes, F = cfg->in_dim, O = ag_attention_out_dim(cfg);
    float *X = malloc(sizeof *X * (size_t)(N * F)); /* (N x F) */
    float *Y = malloc(sizeof *Y * (size_t)(N * O)); /* (N x O) */
    double *Yr = malloc(sizeof *Yr * (size_t)(N * O));
    ag_test_fill_uniform(X, N * F, -1, 1, seed + 1);
    ag_rng_t rng;
    ag_rng_init(&rng, seed);
    rng.stream = 17;
    ag_ref_dropout_t drop = {cfg->attn_dropout, rng.seed, rng.stream};
    assert_int_equal(ag_attention_forward(&layer, &fm, X, NULL, Y, 1, &rng), AG_SUCCESS);
    ag_ref_params_t p;
    assert_int_equal(ag_ref_params_alloc(&p, cfg), 0);
    ag_ref_params_from_layer(&p, &layer);
    double *Xd = at_to_double(X, N * F);
    assert_int_equal(ag_ref_attention_forward(cfg, &p, &rm, Xd, NULL, Yr, NULL, &drop), 0);
    /* ReLU normalisation: the tolerance of compare_grad, for the same reason (a small denominator
     * amplifies the float rounding of the scores) */
    double rtol = cfg->norm == AG_NORM_RELU ? 1e-3 : 1e-4;
    int64_t bad = at_mismatch(Y, Yr, N * O, rtol, rtol / 10);
    if (bad >= 0) fail_msg("%s: Y[%lld] = %.8g, reference %.8g", what, (long long)bad, (double)Y[bad], Yr[bad]);
    free(X); free(Y); free(Yr); free(Xd);
    ag_ref_params_free(&p);
    ag_ref_mask_free(&rm);
    ag_mask_destroy(&fm);
    ag_attention_destroy(&layer);
}

/* The neighbour and k-hop kernels with the heads in vector lanes (attention_csr.c: DOT and GAT
 * without edge features) in each of their shapes: eight heads of eight (the specialised loops), with
 * softmax on 318 nodes (several tasks of 64 nodes, prefetches across node boundaries), three heads of five
 * (the generic loops), 65 heads of one (more heads than the lanes take: the scalar kernels), and
 * four heads of 16 (the molecule models' blocks: a forward of its own for GAT scores);
 * softmax and ReLU, with and without attention dropout. Forward against the reference; gradients
 * against differences on 6 elements of each tensor. */
static void test_grad_lane_kernels(void **state) {
    (void)state;
    ag_graph_t large, small;
    assert_int_equal(at_make_graph(&large, AT_LARGE, 6), 0);
    small_batch(&small, 1);
    const at_mask_spec_t masks[] = {{AG_MASK_NEIGHBOURS, 0, 1, "NEIGHBOURS+self"}, {AG_MASK_KHOP, 2, 0, "KHOP2"}};
    const int64_t shapes[4][2] = {{8, 8}, {3, 5}, {65, 1}, {4, 16}};
    int v = 0;
    for (int sh = 0; sh < 4; sh++)
        for (int mk = 0; mk < 2; mk++)
            for (int score = 0; score < 2; score++)
                for (int norm = 0; norm < 2; norm++)
                    for (int dropout = 0; dropout < 2; dropout++, v++) {
                        /* ReLU on the large graph: some destination's only positive score is tiny
                         * (gradients near 3e3, float rounding above the tolerance, the same with
                         * the scalar kernels), so ReLU runs on the small batch */
                        const ag_graph_t *g = sh == 0 && mk == 0 && norm == AG_NORM_SOFTMAX ? &large : &small;
                        ag_attention_config_t cfg = at_config(score, norm, AG_EDGE_NONE, v % AT_N_COMBINE, 4);
                        cfg.heads = shapes[sh][0];
                        cfg.head_dim = shapes[sh][1];
                        cfg.attn_dropout = dropout ? 0.3f : 0.0f;
                        char what[200];
                        snprintf(what, sizeof what, "%s %s %s NONE %s H %lld D %lld dropout %d", at_score_name(score),
                                 at_norm_name(norm), masks[mk].name, at_combine_name(v % AT_N_COMBINE),
                                 (long long)cfg.heads, (long long)cfg.head_dim, dropout);
                        check_forward(g, &masks[mk], &cfg, what, 1200 + (uint64_t)v);
                        check_grads_sampled(g, &masks[mk], &cfg, what, 1200 + (uint64_t)v, 6);
                    }
    ag_test_graph_free(&large);
    ag_test_graph_free(&small);
}

/* GATv2's lane loops (attention_kernels.c: the score terms in chunks of a 512-float buffer, the
 * gradients over all H*D lanes): eight heads of eight (the ESOL model), three heads of 200 (the
 * second head straddles two chunks), and two heads of 520 (each wider than a chunk); every mask
 * kind, no, KEY and BIAS edge features, with attention dropout. Sampled differences on 5 elements
 * of each tensor (the wide heads make full sweeps slow). */
static void test_grad_gatv2_lanes(void **state) {
    (void)state;
    ag_graph_t g;
    small_batch(&g, 0);
    const int64_t shapes[3][2] = {{8, 8}, {3, 200}, {2, 520}};
    const int masks[3] = {0, 3, 4}; /* NEIGHBOURS+self, KHOP2, FULL+self */
    int v = 0;
    for (int sh = 0; sh < 3; sh++)
        for (int mk = 0; mk < 3; mk++)
            for (int edge = 0; edge < 3; edge++, v++) {
                ag_attention_config_t cfg = at_config(AG_SCORE_GATV2, AG_NORM_SOFTMAX, edge, v % AT_N_COMBINE, 4);
                cfg.heads = shapes[sh][0];
                cfg.head_dim = shapes[sh][1];
                cfg.attn_dropout = v % 2 ? 0.3f : 0.0f;
                char what[200];
                snprintf(what, sizeof what, "GATV2 SOFTMAX %s edges %s %s H %lld D %lld dropout %.1f",
                         MASKS[masks[mk]].name, at_edge_name(edge), at_combine_name(v % AT_N_COMBINE),
                         (long long)cfg.heads, (long long)cfg.head_dim, (double)cfg.attn_dropout);
                check_grads_sampled(&g, &MASKS[masks[mk]], &cfg, what, 1400 + (uint64_t)v, 5);
            }
    ag_test_graph_free(&g);
}

/* Backward adds into the gradients and into dX and dE: a second call doubles them. */
static void test_backward_accumulates(void **state) {
    (void)state;
    ag_graph_t g;
    small_batch(&g, 0);
    for (int score = 0; score < 3; score++) {
        ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 4);
        ag_attention_t layer;
        assert_int_equal(ag_attention_init(&layer, &cfg, 3), AG_SUCCESS);
        at_layer_randomise(&layer, 0.7f, 3);
        ag_mask_t fm;
        assert_int_equal(ag_mask_build(&fm, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
        const int64_t N = g.n_nodes, nE = g.n_edges, O = ag_attention_out_dim(&cfg);
        float X[10 * 4], E[11 * 3], Y[10 * 6], R[10 * 6], dX[10 * 4], dE[11 * 3], dX1[10 * 4], dE1[11 * 3];
        ag_test_fill_uniform(X, N * 4, -1, 1, 1);
        ag_test_fill_uniform(E, nE * 3, -1, 1, 2);
        ag_test_fill_uniform(R, N * O, -1, 1, 3);
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        assert_int_equal(ag_attention_forward(&layer, &fm, X, E, Y, 1, &rng), AG_SUCCESS);
        ag_param_list_t list;
        ag_param_list_init(&list);
        assert_int_equal(ag_attention_params(&layer, &list, ""), AG_SUCCESS);
        ag_param_list_zero_grad(&list);
        memset(dX, 0, sizeof dX);
        memset(dE, 0, sizeof dE);
        assert_int_equal(ag_attention_backward(&layer, &fm, X, E, R, dX, dE), AG_SUCCESS);
        memcpy(dX1, dX, sizeof dX);
        memcpy(dE1, dE, sizeof dE);
        int64_t total = ag_param_list_size(&list);
        float *g1 = malloc(sizeof *g1 * (size_t)total);
        int64_t off = 0;
        for (int64_t t = 0; t < list.count; t++) {
            int64_t n = list.items[t].shape[0] * list.items[t].shape[1];
            memcpy(g1 + off, list.items[t].grad, sizeof *g1 * (size_t)n);
            off += n;
        }
        assert_int_equal(ag_attention_backward(&layer, &fm, X, E, R, dX, dE), AG_SUCCESS);
        double nz = 0;
        off = 0;
        for (int64_t t = 0; t < list.count; t++) {
            int64_t n = list.items[t].shape[0] * list.items[t].shape[1];
            for (int64_t x = 0; x < n; x++) {
                assert_float_equal(list.items[t].grad[x], 2 * g1[off + x], 1e-6 * (1 + fabs(g1[off + x])));
                nz += fabs(g1[off + x]);
            }
            off += n;
        }
        assert_true(nz > 0);
        for (int64_t x = 0; x < N * 4; x++) assert_float_equal(dX[x], 2 * dX1[x], 1e-6 * (1 + fabs(dX1[x])));
        for (int64_t x = 0; x < nE * 3; x++) assert_float_equal(dE[x], 2 * dE1[x], 1e-6 * (1 + fabs(dE1[x])));
        free(g1);
        ag_param_list_destroy(&list);
        ag_mask_destroy(&fm);
        ag_attention_destroy(&layer);
    }
    ag_test_graph_free(&g);
}

static int teardown_report(void **state) {
    (void)state;
    printf("# gradient sweep: %d configurations checked\n", n_checked);
    return 0;
}

int main(void) {
    /* One thread: see test_attention.c; two threads are tied to one by test_attention_determinism. */
    ag_threads_set(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_dot),
        cmocka_unit_test(test_grad_gat),
        cmocka_unit_test(test_grad_gatv2),
        cmocka_unit_test(test_backward_accumulates),
        cmocka_unit_test(test_grad_with_dropout),
        cmocka_unit_test(test_grad_full_fast_path),
        cmocka_unit_test(test_grad_lane_kernels),
        cmocka_unit_test(test_grad_gatv2_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_report);
}
