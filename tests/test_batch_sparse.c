/* Tests of a batch's cached sparse input (model.c, attention.c): out of training, a mostly-zero X
 * is turned into CSR once per batch and reused; the outputs equal the dense product's within
 * rounding and are the same on every call; training does not use the cache; allocation failures
 * while building it leave the batch destroyable (no leak under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include <attngraph/model.h>
#include <attngraph/rng.h>
#include "blas.h"
#include "graphs_testutil.h"
#include "attention_testutil.h"

void ag_i_alloc_fail_at(int64_t n);

enum { F = 512, C = 3 };

typedef struct {
    ag_graph_t g;
    ag_model_t *model;
    float *X;
    int64_t N, nnz;
} fx_t;

/* The AT_LARGE graph (318 nodes), 512 features about 2% nonzero, the GAT model: the first
 * layer's product (318 x 512 by 512 x 64) is large enough for the sparse path. */
static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    assert_int_equal(at_make_graph(&f->g, AT_LARGE, 5), 0);
    f->N = f->g.n_nodes;
    f->X = malloc((size_t)(f->N * F) * sizeof(float));
    for (int64_t k = 0; k < f->N * F; k++) {
        f->X[k] = ag_rng_uniform(31, 1, (uint64_t)k) < 0.02f ? ag_rng_uniform(31, 2, (uint64_t)k) : 0.0f;
        f->nnz += f->X[k] != 0.0f;
    }
    ag_model_config_t cfg;
    ag_model_config_gat(&cfg, F, C);
    assert_int_equal(ag_model_create(&f->model, &cfg), AG_SUCCESS);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx_t *f = *state;
    ag_model_destroy(f->model);
    ag_test_graph_free(&f->g);
    free(f->X);
    free(f);
    return 0;
}

static void test_cached_sparse_input(void **state) {
    fx_t *f = *state;
    int64_t n = f->N * C;
    float *o1 = malloc((size_t)n * sizeof(float)), *o2 = malloc((size_t)n * sizeof(float));
    float *od = malloc((size_t)n * sizeof(float));
    ag_batch_t b;
    ag_batch_init(&b, &f->g, f->X, NULL);
    assert_null(b.x_sparse);
    assert_int_equal(ag_model_forward(f->model, &b, 0, NULL, o1), AG_SUCCESS);
    /* built once, with X's nonzeros, and reused */
    assert_non_null(b.x_sparse);
    struct ag_i_csr_t *kept = b.x_sparse;
    assert_int_equal(kept->rows, f->N);
    assert_int_equal(kept->cols, F);
    assert_int_equal(kept->nnz, f->nnz);
    assert_int_equal(ag_model_forward(f->model, &b, 0, NULL, o2), AG_SUCCESS);
    assert_ptr_equal(b.x_sparse, kept);
    assert_memory_equal(o1, o2, (size_t)n * sizeof(float));
    /* against the dense product: zeros replaced by 1e-30 (no effect beyond rounding) */
    float *Xd = malloc((size_t)(f->N * F) * sizeof(float));
    for (int64_t k = 0; k < f->N * F; k++) Xd[k] = f->X[k] != 0.0f ? f->X[k] : 1e-30f;
    ag_batch_t bd;
    ag_batch_init(&bd, &f->g, Xd, NULL);
    assert_int_equal(ag_model_forward(f->model, &bd, 0, NULL, od), AG_SUCCESS);
    assert_null(bd.x_sparse); /* dense: no CSR */
    for (int64_t k = 0; k < n; k++) assert_float_equal(o1[k], od[k], 1e-5f * (1.0f + fabsf(od[k])));
    /* training builds its own per call (the input is dropout's output): the cache is untouched */
    float *ot = malloc((size_t)n * sizeof(float));
    ag_rng_t rng;
    ag_rng_init(&rng, 3);
    assert_int_equal(ag_model_forward(f->model, &b, 1, &rng, ot), AG_SUCCESS);
    assert_ptr_equal(b.x_sparse, kept);
    /* changed data: a new batch sees it */
    ag_batch_destroy(&b);
    assert_null(b.x_sparse);
    f->X[7] += 1.0f;
    ag_batch_init(&b, &f->g, f->X, NULL);
    assert_int_equal(ag_model_forward(f->model, &b, 0, NULL, o2), AG_SUCCESS);
    int differs = 0;
    for (int64_t k = 0; k < n; k++) differs |= o1[k] != o2[k];
    assert_true(differs);
    f->X[7] -= 1.0f;
    ag_batch_destroy(&b);
    ag_batch_destroy(&bd);
    free(Xd);
    free(ot);
    free(o1);
    free(o2);
    free(od);
}

static void test_cached_sparse_input_allocation_failures(void **state) {
    fx_t *f = *state;
    int64_t n = f->N * C;
    float *want = malloc((size_t)n * sizeof(float)), *got = malloc((size_t)n * sizeof(float));
    ag_batch_t b;
    ag_batch_init(&b, &f->g, f->X, NULL);
    assert_int_equal(ag_model_forward(f->model, &b, 0, NULL, want), AG_SUCCESS);
    ag_batch_destroy(&b);
    int failures = 0;
    for (int64_t at = 1; at < 200; at++) {
        ag_batch_init(&b, &f->g, f->X, NULL);
        ag_i_alloc_fail_at(at);
        ag_error_t rc = ag_model_forward(f->model, &b, 0, NULL, got);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            assert_memory_equal(got, want, (size_t)n * sizeof(float));
            ag_batch_destroy(&b);
            break;
        }
        assert_int_equal(rc, AG_ENOMEM);
        failures++;
        /* a later call on the same batch recovers */
        assert_int_equal(ag_model_forward(f->model, &b, 0, NULL, got), AG_SUCCESS);
        assert_memory_equal(got, want, (size_t)n * sizeof(float));
        ag_batch_destroy(&b);
    }
    assert_true(failures >= 4); /* the mask, and the CSR's struct, row counts, rows, columns, values */
    free(want);
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_sparse_input),
        cmocka_unit_test(test_cached_sparse_input_allocation_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
