/* The attention layer against golden values from an independent PyTorch implementation
 * (tests/golden/make_attention_fixture.py; the fixture is committed, CI does not run PyTorch):
 * the fixture's weights are copied into the layer, then outputs, attention weights (matched by
 * destination, source and edge id) and every gradient for a fixed upstream gradient must agree
 * within 1e-4. Cases: GAT (neighbours + self-loops, 3 heads concatenated), Transformer (dot
 * scores, edge features as keys, W^O, bias) on the neighbour and on the full mask, and GATv2
 * (ReLU normalisation, edge score biases, heads averaged, no added self-loops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "attention_testutil.h"
#include "fixture_testutil.h"

static float *to_float(const ag_fixture_tensor_t *t) {
    float *f = malloc(sizeof *f * (size_t)(t->rows * t->cols + 1));
    for (int64_t x = 0; x < t->rows * t->cols; x++) f[x] = (float)t->v[x];
    return f;
}

static void expect_golden(const char *cs, const char *what, const float *got, const ag_fixture_tensor_t *want) {
    assert_non_null(want);
    for (int64_t x = 0; x < want->rows * want->cols; x++)
        if (!(fabs((double)got[x] - want->v[x]) <= 1e-4 * (1.0 + fabs(want->v[x]))))
            fail_msg("%s: %s[%lld] = %.8g, PyTorch %.8g", cs, what, (long long)x, (double)got[x], want->v[x]);
}

static void run_case(const ag_fixture_case_t *fc) {
    ag_graph_t g;
    assert_int_equal(ag_fixture_graph(fc, &g), 0);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &g, fc->mask, fc->hops, fc->self_loops), AG_SUCCESS);
    ag_attention_t layer;
    if (ag_attention_init(&layer, &fc->cfg, 1) != AG_SUCCESS) fail_msg("%s: init: %s", fc->name, ag_error_message());
    /* every tensor the layer has comes from the fixture, and the fixture has no other */
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        float *dst = ag_ref_layer_tensor(&layer, w, 0);
        const ag_fixture_tensor_t *t = ag_fixture_get(fc, ag_ref_tensor_name(w));
        if ((dst == NULL) != (t == NULL)) fail_msg("%s: tensor %s present on one side only", fc->name, ag_ref_tensor_name(w));
        if (dst)
            for (int64_t x = 0; x < t->rows * t->cols; x++) dst[x] = (float)t->v[x];
    }
    const ag_fixture_tensor_t *tX = ag_fixture_get(fc, "X"), *tE = ag_fixture_get(fc, "E"), *tR = ag_fixture_get(fc, "R");
    const ag_fixture_tensor_t *tA = ag_fixture_get(fc, "alpha"), *md = ag_fixture_get(fc, "mask_dst");
    const ag_fixture_tensor_t *ms = ag_fixture_get(fc, "mask_src"), *me = ag_fixture_get(fc, "mask_edge");
    float *X = to_float(tX), *E = tE ? to_float(tE) : NULL, *R = to_float(tR);
    const int64_t N = g.n_nodes, H = fc->cfg.heads, O = ag_attention_out_dim(&fc->cfg);
    assert_int_equal(tR->rows * tR->cols, N * O);
    float *Y = malloc(sizeof *Y * (size_t)(N * O));
    float *A = malloc(sizeof *A * (size_t)(m.n_entries * H + 1));
    float *dX = calloc((size_t)(tX->rows * tX->cols), sizeof *dX);
    float *dE = tE ? calloc((size_t)(tE->rows * tE->cols), sizeof *dE) : NULL;
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    assert_int_equal(ag_attention_forward(&layer, &m, X, E, Y, 1, &rng), AG_SUCCESS);
    expect_golden(fc->name, "Y", Y, ag_fixture_get(fc, "Y"));

    /* weights: each fixture entry (dst, src, edge) found among the mask's entries */
    assert_int_equal(ag_attention_weights(&layer, &m, A), AG_SUCCESS);
    assert_int_equal(m.n_entries, md->rows);
    for (int64_t r = 0; r < md->rows; r++) {
        int64_t i = (int64_t)md->v[r], k;
        for (k = m.indptr[i]; k < m.indptr[i + 1]; k++)
            if (m.src[k] == (int32_t)ms->v[r] && m.edge[k] == (int64_t)me->v[r]) break;
        if (k == m.indptr[i + 1])
            fail_msg("%s: no mask entry (dst %lld, src %d, edge %lld)", fc->name, (long long)i, (int)ms->v[r],
                     (long long)me->v[r]);
        for (int64_t h = 0; h < H; h++)
            if (!(fabs((double)A[k * H + h] - tA->v[r * H + h]) <= 1e-4))
                fail_msg("%s: alpha (dst %lld, src %d, edge %lld) head %lld = %.8g, PyTorch %.8g", fc->name, (long long)i,
                         (int)ms->v[r], (long long)me->v[r], (long long)h, (double)A[k * H + h], tA->v[r * H + h]);
    }

    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_attention_params(&layer, &list, ""), AG_SUCCESS);
    ag_param_list_zero_grad(&list);
    assert_int_equal(ag_attention_backward(&layer, &m, X, E, R, dX, dE), AG_SUCCESS);
    expect_golden(fc->name, "dX", dX, ag_fixture_get(fc, "dX"));
    if (tE) expect_golden(fc->name, "dE", dE, ag_fixture_get(fc, "dE"));
    int checked = 0;
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        const float *grad = ag_ref_layer_tensor(&layer, w, 1);
        if (!ag_ref_layer_tensor(&layer, w, 0)) continue;
        char name[40];
        snprintf(name, sizeof name, "d%s", ag_ref_tensor_name(w));
        expect_golden(fc->name, name, grad, ag_fixture_get(fc, name));
        checked++;
    }
    assert_int_equal(checked, list.count);
    ag_param_list_destroy(&list);
    free(X); free(E); free(R); free(Y); free(A); free(dX); free(dE);
    ag_attention_destroy(&layer);
    ag_mask_destroy(&m);
    ag_test_graph_free(&g);
}

static ag_fixture_case_t *cases;
static int n_cases;

static int load(void **state) {
    (void)state;
    char err[256];
    if (ag_fixture_load(AG_SOURCE_DIR "/tests/golden/attention_fixture.txt", &cases, &n_cases, err)) {
        print_error("%s\n", err);
        return -1;
    }
    return 0;
}

static int unload(void **state) {
    (void)state;
    ag_fixture_free(cases, n_cases);
    return 0;
}

static void run_named(const char *name) {
    for (int c = 0; c < n_cases; c++)
        if (!strcmp(cases[c].name, name)) {
            run_case(&cases[c]);
            return;
        }
    fail_msg("fixture case %s missing", name);
}

static void test_gat(void **state) { (void)state; run_named("gat"); }
static void test_transformer_neighbours(void **state) { (void)state; run_named("transformer_neighbours"); }
static void test_transformer_full(void **state) { (void)state; run_named("transformer_full"); }
static void test_gatv2_mean_relu(void **state) { (void)state; run_named("gatv2_mean_relu"); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gat),
        cmocka_unit_test(test_transformer_neighbours),
        cmocka_unit_test(test_transformer_full),
        cmocka_unit_test(test_gatv2_mean_relu),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
