/* The attention layer's sparse input path: a mostly-zero X (2% nonzeros, like a bag of words)
 * takes the CSR products for q, k, v and for the weight gradients X^T dP. Checked against the
 * dense path on the same values (zeros replaced by 1e-30, which keeps the products within
 * rounding and makes X dense): outputs, every parameter gradient and dX agree; the sparse path is
 * really taken (the cache holds X's CSR) and is bit-identical for 1 and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "attention_internal.h"
#include "attention_testutil.h"

/* Everything one forward + backward of the layer produces. */
typedef struct out_t {
    float *Y, *dX, *grads;
    int64_t nY, nX, nG;
    int64_t csr_nnz; /* nonzeros of the layer's cached CSR of X; 0 when the dense path ran */
} out_t;

static void out_free(out_t *o) {
    free(o->Y);
    free(o->dX);
    free(o->grads);
    memset(o, 0, sizeof *o);
}

static void run(out_t *o, const ag_mask_t *m, const ag_attention_config_t *cfg, const float *X, const float *dY,
                int threads) {
    ag_threads_set(threads);
    ag_attention_t layer;
    assert_int_equal(ag_attention_init(&layer, cfg, 11), AG_SUCCESS);
    int64_t N = m->n_nodes, F = cfg->in_dim, O = ag_attention_out_dim(cfg);
    o->nY = N * O;
    o->nX = N * F;
    o->Y = malloc(sizeof *o->Y * (size_t)o->nY);       /* (N x O) */
    o->dX = calloc((size_t)o->nX, sizeof *o->dX);      /* (N x F) */
    assert_non_null(o->Y);
    assert_non_null(o->dX);
    assert_int_equal(ag_attention_forward(&layer, m, X, NULL, o->Y, 1, NULL), AG_SUCCESS);
    const ag_attn_cache_t *k = layer.cache;
    o->csr_nnz = k->xs.indptr ? k->xs.nnz : 0;
    assert_int_equal(ag_attention_backward(&layer, m, X, NULL, dY, o->dX, NULL), AG_SUCCESS);
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_attention_params(&layer, &list, "attn"), AG_SUCCESS);
    o->nG = 0;
    for (int64_t t = 0; t < list.count; t++) o->nG += list.items[t].shape[0] * list.items[t].shape[1];
    o->grads = malloc(sizeof *o->grads * (size_t)o->nG);
    assert_non_null(o->grads);
    int64_t at = 0;
    for (int64_t t = 0; t < list.count; t++) {
        int64_t n = list.items[t].shape[0] * list.items[t].shape[1];
        memcpy(o->grads + at, list.items[t].grad, sizeof(float) * (size_t)n);
        at += n;
    }
    ag_param_list_destroy(&list);
    ag_attention_destroy(&layer);
    ag_threads_set(0);
}

/* max |a - b| <= tol * max(1, max |b|) */
static void assert_close(const float *a, const float *b, int64_t n, double tol, const char *what) {
    double md = 0.0, mb = 1.0;
    for (int64_t t = 0; t < n; t++) {
        double d = fabs((double)a[t] - (double)b[t]);
        if (d > md) md = d;
        if (fabs((double)b[t]) > mb) mb = fabs((double)b[t]);
    }
    if (md > tol * mb) fail_msg("%s: max difference %g exceeds %g", what, md, tol * mb);
}

static void check_score(ag_score_t score) {
    /* 512 nodes, F = 128, 8 heads of 8: N F H D = 2^22, the smallest product the sparse path takes */
    const int64_t nn[] = {512}, ne[] = {3000}, iso[] = {4};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 77, 1, 1, nn, ne, iso, 0.02, 0.02), 0);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 1, 1), AG_SUCCESS);
    ag_attention_config_t cfg;
    ag_attention_config_default(&cfg, 128);
    cfg.heads = 8;
    cfg.head_dim = 8;
    cfg.score = score;
    int64_t N = g.n_nodes, F = 128, O = ag_attention_out_dim(&cfg);
    float *Xs = malloc(sizeof *Xs * (size_t)(N * F)); /* (N x F) 2% nonzeros */
    float *Xd = malloc(sizeof *Xd * (size_t)(N * F)); /* (N x F) the same, zeros -> 1e-30 */
    float *dY = malloc(sizeof *dY * (size_t)(N * O)); /* (N x O) */
    assert_non_null(Xs);
    assert_non_null(Xd);
    assert_non_null(dY);
    int64_t nnz = 0;
    for (int64_t t = 0; t < N * F; t++) {
        /* one sure nonzero per row: an all-zero row would put GAT's scores exactly on the
         * LeakyReLU's kink (0) in the sparse run and a hair beside it in the dense one */
        int on = ag_rng_uniform(5, 1, (uint64_t)t) < 0.02f || t % F == (t / F) % F;
        Xs[t] = on ? 2.0f * ag_rng_uniform(5, 2, (uint64_t)t) - 1.0f : 0.0f;
        if (Xs[t] != 0.0f) nnz++;
        Xd[t] = Xs[t] != 0.0f ? Xs[t] : 1e-30f;
    }
    for (int64_t t = 0; t < N * O; t++) dY[t] = ag_rng_uniform(5, 3, (uint64_t)t) - 0.5f;

    out_t s1, s2, d1;
    run(&s1, &m, &cfg, Xs, dY, 1);
    run(&s2, &m, &cfg, Xs, dY, 2);
    run(&d1, &m, &cfg, Xd, dY, 1);
    assert_int_equal(s1.csr_nnz, nnz); /* the sparse path ran, on exactly X's nonzeros */
    assert_int_equal(d1.csr_nnz, 0);   /* a dense X takes the dense products */
    assert_true(nnz > 0);
    /* sparse against dense: rounding only */
    assert_close(s1.Y, d1.Y, s1.nY, 1e-5, "output Y");
    assert_close(s1.grads, d1.grads, s1.nG, 1e-4, "parameter gradients");
    assert_close(s1.dX, d1.dX, s1.nX, 1e-5, "input gradient dX");
    /* 1 and 2 threads: the same bits */
    assert_memory_equal(s1.Y, s2.Y, sizeof(float) * (size_t)s1.nY);
    assert_memory_equal(s1.grads, s2.grads, sizeof(float) * (size_t)s1.nG);
    assert_memory_equal(s1.dX, s2.dX, sizeof(float) * (size_t)s1.nX);
    out_free(&s1);
    out_free(&s2);
    out_free(&d1);
    free(Xs);
    free(Xd);
    free(dY);
    ag_mask_destroy(&m);
    ag_test_graph_free(&g);
}

static void test_sparse_dot(void **state) {
    (void)state;
    check_score(AG_SCORE_DOT); /* q, k and v through the CSR */
}

static void test_sparse_gat(void **state) {
    (void)state;
    check_score(AG_SCORE_GAT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_dot),
        cmocka_unit_test(test_sparse_gat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
