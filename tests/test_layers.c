/* Tests of the layers: hand-computed values, finite-difference gradients of every input and
 * parameter, dropout masks, cache reuse, error paths, thread-count independence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include <attngraph/layers.h>
#include <attngraph/param.h>
#include <attngraph/rng.h>
#include "internal.h"
#include "layers_internal.h"

void ag_i_alloc_fail_at(int64_t n);

/* ---- a generic finite-difference checker over any layer with the common API ---- */

typedef ag_error_t (*fwd_fn)(void *layer, const float *X, float *Y, int64_t N, int training, ag_rng_t *rng);
typedef ag_error_t (*bwd_fn)(void *layer, const float *dY, float *dX, int64_t N);

typedef struct {
    void *layer;
    fwd_fn fwd;
    bwd_fn bwd;
    int64_t N, F, O;
    uint64_t rng_seed;
} gc_t;

static float *rand_buf(int64_t n, uint64_t seed, float lo, float hi) {
    float *b = malloc((size_t)n * sizeof(float));
    for (int64_t k = 0; k < n; k++) b[k] = lo + (hi - lo) * ag_rng_uniform(seed, 77, (uint64_t)k);
    return b;
}

/* loss = sum(Y .* R), with the rng reset so that dropout draws the same mask every time. */
static double gc_loss(const gc_t *g, const float *X, const float *R, float *Y) {
    ag_rng_t rng;
    ag_rng_init(&rng, g->rng_seed);
    assert_int_equal(g->fwd(g->layer, X, Y, g->N, 1, &rng), AG_SUCCESS);
    double L = 0.0;
    for (int64_t k = 0; k < g->N * g->O; k++) L += (double)Y[k] * R[k];
    return L;
}

static void check_close(double analytic, double numeric, double tol, const char *what, int64_t k) {
    double err = fabs(analytic - numeric);
    if (err > tol * (1.0 + fabs(numeric)))
        fail_msg("%s[%lld]: analytic %.6g vs numeric %.6g", what, (long long)k, analytic, numeric);
}

/* Checks dX and every gradient of params by central differences with step h. */
static void gradcheck(gc_t *g, ag_param_list_t *params, float *X, float h, double tol) {
    int64_t nx = g->N * g->F, ny = g->N * g->O;
    float *R = rand_buf(ny, 991, -1.0f, 1.0f);
    float *Y = malloc((size_t)ny * sizeof(float));
    float *dX = calloc((size_t)nx, sizeof(float));
    ag_param_list_zero_grad(params);
    gc_loss(g, X, R, Y);
    assert_int_equal(g->bwd(g->layer, R, dX, g->N), AG_SUCCESS);
    for (int64_t k = 0; k < nx; k++) {
        float x0 = X[k];
        X[k] = x0 + h;
        double lp = gc_loss(g, X, R, Y);
        X[k] = x0 - h;
        double lm = gc_loss(g, X, R, Y);
        X[k] = x0;
        check_close(dX[k], (lp - lm) / (2.0 * h), tol, "dX", k);
    }
    for (int64_t i = 0; i < params->count; i++) {
        ag_param_t *p = &params->items[i];
        int64_t n = p->shape[0] * p->shape[1];
        for (int64_t k = 0; k < n; k++) {
            float w0 = p->value[k];
            p->value[k] = w0 + h;
            double lp = gc_loss(g, X, R, Y);
            p->value[k] = w0 - h;
            double lm = gc_loss(g, X, R, Y);
            p->value[k] = w0;
            check_close(p->grad[k], (lp - lm) / (2.0 * h), tol, p->name, k);
        }
    }
    free(R);
    free(Y);
    free(dX);
}

/* Adapters from each layer's typed functions to the checker's signature. */
#define ADAPT(name, type)                                                                           \
    static ag_error_t name##_f(void *l, const float *X, float *Y, int64_t N, int t, ag_rng_t *r) { \
        return ag_##name##_forward((type *)l, X, Y, N, t, r);                                      \
    }                                                                                               \
    static ag_error_t name##_b(void *l, const float *dY, float *dX, int64_t N) {                   \
        return ag_##name##_backward((type *)l, dY, dX, N);                                          \
    }
ADAPT(linear, ag_linear_t)
ADAPT(layernorm, ag_layernorm_t)
ADAPT(act, ag_act_t)
ADAPT(dropout, ag_dropout_t)
ADAPT(ffn, ag_ffn_t)

/* ---- Linear ---- */

static void test_linear_values(void **state) {
    (void)state;
    ag_linear_t lin;
    ag_linear_config_t cfg = {2, 3, 1};
    assert_int_equal(ag_linear_init(&lin, &cfg, 1), AG_SUCCESS);
    const float W[6] = {1, 0, -1, 2, 1, 0}, b[3] = {0.5f, -0.5f, 1.0f};
    memcpy(lin.W, W, sizeof W);
    memcpy(lin.b, b, sizeof b);
    const float X[4] = {1, 2, 3, 4};
    float Y[6];
    assert_int_equal(ag_linear_forward(&lin, X, Y, 2, 1, NULL), AG_SUCCESS);
    /* row 0: [1*1+2*2+.5, 1*0+2*1-.5, 1*-1+2*0+1] = [5.5, 1.5, 0]; row 1: [11.5, 3.5, -2] */
    const float want[6] = {5.5f, 1.5f, 0.0f, 11.5f, 3.5f, -2.0f};
    for (int k = 0; k < 6; k++) assert_float_equal(Y[k], want[k], 0.0f);
    const float dY[6] = {1, 1, 1, 1, 1, 1};
    float dX[4] = {10, 10, 10, 10};
    assert_int_equal(ag_linear_backward(&lin, dY, dX, 2), AG_SUCCESS);
    /* dW = X^T 1 = [[4,4,4],[6,6,6]]; db = [2,2,2]; dX += 1 W^T = rows of [sum W row0, sum W row1] = [0, 3] */
    const float dW[6] = {4, 4, 4, 6, 6, 6};
    for (int k = 0; k < 6; k++) assert_float_equal(lin.dW[k], dW[k], 0.0f);
    for (int k = 0; k < 3; k++) assert_float_equal(lin.db[k], 2.0f, 0.0f);
    const float wantdx[4] = {10, 13, 10, 13};
    for (int k = 0; k < 4; k++) assert_float_equal(dX[k], wantdx[k], 0.0f);
    /* backward accumulates */
    assert_int_equal(ag_linear_backward(&lin, dY, NULL, 2), AG_SUCCESS);
    assert_float_equal(lin.dW[3], 12.0f, 0.0f);
    assert_float_equal(lin.db[0], 4.0f, 0.0f);
    ag_linear_destroy(&lin);
    ag_linear_destroy(&lin);
}

static void test_linear_init_and_params(void **state) {
    (void)state;
    ag_linear_t a, b, c;
    ag_linear_config_t cfg = {10, 6, 1};
    assert_int_equal(ag_linear_init(&a, &cfg, 5), AG_SUCCESS);
    assert_int_equal(ag_linear_init(&b, &cfg, 5), AG_SUCCESS);
    assert_int_equal(ag_linear_init(&c, &cfg, 6), AG_SUCCESS);
    assert_memory_equal(a.W, b.W, 60 * sizeof(float));
    assert_true(memcmp(a.W, c.W, 60 * sizeof(float)) != 0);
    float bound = sqrtf(6.0f / 16.0f), mx = 0.0f;
    double mean = 0.0;
    for (int k = 0; k < 60; k++) {
        assert_true(fabsf(a.W[k]) <= bound);
        if (fabsf(a.W[k]) > mx) mx = fabsf(a.W[k]);
        mean += a.W[k];
    }
    assert_true(mx > 0.5f * bound); /* really spread over the range, not all tiny */
    assert_true(fabs(mean / 60.0) < 0.25 * bound);
    for (int k = 0; k < 6; k++) assert_float_equal(a.b[k], 0.0f, 0.0f);
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_linear_params(&a, &list, "enc.0"), AG_SUCCESS);
    assert_int_equal(list.count, 2);
    ag_param_t *W = ag_param_list_find(&list, "enc.0.W"), *bb = ag_param_list_find(&list, "enc.0.b");
    assert_non_null(W);
    assert_non_null(bb);
    assert_int_equal(W->shape[0], 10);
    assert_int_equal(W->shape[1], 6);
    assert_int_equal(W->decay, 1);
    assert_int_equal(bb->decay, 0);
    assert_ptr_equal(W->grad, a.dW);
    ag_param_list_destroy(&list);
    ag_linear_destroy(&a);
    ag_linear_destroy(&b);
    ag_linear_destroy(&c);
}

static void test_linear_gradcheck(void **state) {
    (void)state;
    for (int bias = 0; bias <= 1; bias++) {
        ag_linear_t lin;
        ag_linear_config_t cfg = {4, 3, bias};
        assert_int_equal(ag_linear_init(&lin, &cfg, 3), AG_SUCCESS);
        if (bias)
            for (int k = 0; k < 3; k++) lin.b[k] = 0.1f * (float)(k + 1);
        ag_param_list_t list;
        ag_param_list_init(&list);
        assert_int_equal(ag_linear_params(&lin, &list, ""), AG_SUCCESS);
        assert_int_equal(list.count, bias ? 2 : 1);
        gc_t g = {&lin, linear_f, linear_b, 5, 4, 3, 0};
        float *X = rand_buf(20, 1, -1.0f, 1.0f);
        gradcheck(&g, &list, X, 1e-2f, 2e-3);
        free(X);
        ag_param_list_destroy(&list);
        ag_linear_destroy(&lin);
    }
}

/* The sparse-input path agrees with the dense one (forward and weight gradients). */
static void test_linear_sparse_input(void **state) {
    (void)state;
    const int64_t N = 40, F = 30, O = 9;
    ag_linear_t a, b;
    ag_linear_config_t cfg = {F, O, 1};
    assert_int_equal(ag_linear_init(&a, &cfg, 4), AG_SUCCESS);
    assert_int_equal(ag_linear_init(&b, &cfg, 4), AG_SUCCESS);
    for (int64_t k = 0; k < O; k++) a.b[k] = b.b[k] = 0.1f * (float)k;
    float *X = rand_buf(N * F, 14, -1, 1), *dY = rand_buf(N * O, 15, -1, 1);
    for (int64_t k = 0; k < N * F; k++)
        if (ag_rng_uniform(1, 2, (uint64_t)k) < 0.9f) X[k] = 0.0f;
    ag_i_csr_t S, ST;
    assert_int_equal(ag_i_csr_from_dense(&S, X, N, F), AG_SUCCESS);
    assert_int_equal(ag_i_csr_transpose(&ST, &S), AG_SUCCESS);
    float *Yd = malloc((size_t)(N * O) * sizeof(float)), *Ys = malloc((size_t)(N * O) * sizeof(float));
    assert_int_equal(ag_linear_forward(&a, X, Yd, N, 1, NULL), AG_SUCCESS);
    assert_int_equal(ag_linear_backward(&a, dY, NULL, N), AG_SUCCESS);
    assert_int_equal(ag_i_linear_apply_csr(&b, &S, Ys), AG_SUCCESS);
    assert_int_equal(ag_i_linear_grad_csr(&b, &ST, dY, N), AG_SUCCESS);
    for (int64_t k = 0; k < N * O; k++) assert_float_equal(Ys[k], Yd[k], 1e-5f);
    for (int64_t k = 0; k < F * O; k++) assert_float_equal(b.dW[k], a.dW[k], 1e-5f);
    for (int64_t k = 0; k < O; k++) assert_float_equal(b.db[k], a.db[k], 0.0f);
    assert_true(fabsf(a.dW[0]) + fabsf(a.dW[F * O - 1]) > 0.0f);
    /* shapes are checked */
    assert_int_equal(ag_i_linear_apply_csr(&b, &ST, Ys), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "sparse input has 40 columns, the layer 30 inputs"));
    assert_int_equal(ag_i_linear_grad_csr(&b, &S, dY, N), AG_EMISMATCH);
    ag_i_csr_destroy(&S);
    ag_i_csr_destroy(&ST);
    free(X);
    free(dY);
    free(Yd);
    free(Ys);
    ag_linear_destroy(&a);
    ag_linear_destroy(&b);
}

/* ---- LayerNorm ---- */

static void test_layernorm_values(void **state) {
    (void)state;
    ag_layernorm_t ln;
    ag_layernorm_config_t cfg = {3, 0.0f};
    assert_int_equal(ag_layernorm_init(&ln, &cfg, 0), AG_SUCCESS);
    assert_float_equal(ln.cfg.eps, 1e-5f, 0.0f);
    /* [1,2,3]: mean 2, biased variance 2/3, rstd = 1/sqrt(2/3 + 1e-5) = 1.2247357;
     * [5,5,5]: variance 0, rstd = 1/sqrt(1e-5) = 316.22777 and y = 0 */
    float X[6] = {1, 2, 3, 5, 5, 5}, Y[6];
    assert_int_equal(ag_layernorm_forward(&ln, X, Y, 2, 1, NULL), AG_SUCCESS);
    assert_float_equal(Y[0], -1.2247357f, 1e-6f);
    assert_float_equal(Y[1], 0.0f, 1e-7f);
    assert_float_equal(Y[2], 1.2247357f, 1e-6f);
    for (int k = 3; k < 6; k++) assert_float_equal(Y[k], 0.0f, 0.0f);
    assert_float_equal(ln.mean[0], 2.0f, 0.0f);
    assert_float_equal(ln.rstd[0], 1.2247357f, 1e-6f);
    assert_float_equal(ln.rstd[1], 316.22777f, 1e-2f);
    /* gamma and beta: y = xhat * gamma + beta */
    ln.gamma[0] = 2.0f;
    ln.beta[0] = 0.5f;
    assert_int_equal(ag_layernorm_forward(&ln, X, Y, 1, 0, NULL), AG_SUCCESS);
    assert_float_equal(Y[0], -2.0f * 1.2247357f + 0.5f, 2e-6f);
    /* in place */
    float Z[3] = {1, 2, 3};
    ln.gamma[0] = 1.0f;
    ln.beta[0] = 0.0f;
    assert_int_equal(ag_layernorm_forward(&ln, Z, Z, 1, 1, NULL), AG_SUCCESS);
    assert_float_equal(Z[2], 1.2247357f, 1e-6f);
    /* backward: dY = [1,0,0] on [1,2,3] (gamma 1): dbeta = dY, dgamma = dY*xhat,
     * dx = rstd (g - mean g - xhat mean(g xhat)) = 1.2247 ([1,0,0] - 1/3 - xhat (-1.2247/3))
     *    = [0.2722, -0.4082, 0.1361] (rstd (2/3 - 0.5), rstd (-1/3), rstd (-1/3 + 0.5)) */
    float dY[3] = {1, 0, 0}, dX[3] = {0, 0, 0};
    assert_int_equal(ag_layernorm_backward(&ln, dY, dX, 1), AG_SUCCESS);
    float rs = 1.2247357f;
    assert_float_equal(dX[0], rs * (2.0f / 3.0f - 0.5f), 1e-5f);
    assert_float_equal(dX[1], rs * (-1.0f / 3.0f), 1e-5f);
    assert_float_equal(dX[2], rs * (-1.0f / 3.0f + 0.5f), 1e-5f);
    assert_float_equal(ln.dbeta[0], 1.0f, 0.0f);
    assert_float_equal(ln.dbeta[1], 0.0f, 0.0f);
    assert_float_equal(ln.dgamma[0], -rs, 1e-6f);
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_layernorm_params(&ln, &list, "norm1"), AG_SUCCESS);
    assert_non_null(ag_param_list_find(&list, "norm1.gamma"));
    assert_int_equal(ag_param_list_find(&list, "norm1.beta")->decay, 0);
    ag_param_list_destroy(&list);
    ag_layernorm_destroy(&ln);
}

static void test_layernorm_gradcheck(void **state) {
    (void)state;
    ag_layernorm_t ln;
    ag_layernorm_config_t cfg = {5, 1e-5f};
    assert_int_equal(ag_layernorm_init(&ln, &cfg, 0), AG_SUCCESS);
    for (int c = 0; c < 5; c++) {
        ln.gamma[c] = 0.5f + 0.3f * (float)c;
        ln.beta[c] = -0.2f + 0.1f * (float)c;
    }
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_layernorm_params(&ln, &list, "ln"), AG_SUCCESS);
    gc_t g = {&ln, layernorm_f, layernorm_b, 4, 5, 5, 0};
    float *X = rand_buf(20, 2, -2.0f, 2.0f);
    gradcheck(&g, &list, X, 1e-2f, 5e-3);
    free(X);
    ag_param_list_destroy(&list);
    ag_layernorm_destroy(&ln);
}

/* ---- Activations ---- */

static void test_activation_values(void **state) {
    (void)state;
    const float x[5] = {-3.0f, -1.0f, 0.0f, 0.5f, 1.0f};
    float y[5], d[5];
    const float ones[5] = {1, 1, 1, 1, 1};
    /* GELU(x) = x Phi(x): Phi(1) = 0.8413447, Phi(0.5) = 0.6914625, Phi(-3) = 0.0013499 */
    ag_act_apply(AG_ACT_GELU, 0, 0, x, y, 5);
    assert_float_equal(y[0], -3.0f * 0.0013499f, 1e-6f);
    assert_float_equal(y[1], -0.1586553f, 1e-6f);
    assert_float_equal(y[2], 0.0f, 0.0f);
    assert_float_equal(y[3], 0.3457312f, 1e-6f);
    assert_float_equal(y[4], 0.8413447f, 1e-6f);
    /* GELU'(x) = Phi(x) + x phi(x): GELU'(0) = 0.5, GELU'(1) = 0.8413447 + 0.2419707 */
    memset(d, 0, sizeof d);
    ag_act_grad(AG_ACT_GELU, 0, 0, x, ones, d, 5);
    assert_float_equal(d[2], 0.5f, 1e-7f);
    assert_float_equal(d[4], 1.0833155f, 1e-6f);
    assert_float_equal(d[1], 0.1586553f - 0.2419707f, 1e-6f); /* Phi(-1) - phi(1) */
    /* ELU(alpha 1): ELU(-1) = e^-1 - 1 = -0.6321206, ELU'(-1) = e^-1 = 0.3678794 */
    ag_act_apply(AG_ACT_ELU, 0, 1.0f, x, y, 5);
    assert_float_equal(y[1], -0.6321206f, 1e-6f);
    assert_float_equal(y[0], -0.9502129f, 1e-6f);
    assert_float_equal(y[4], 1.0f, 0.0f);
    memset(d, 0, sizeof d);
    ag_act_grad(AG_ACT_ELU, 0, 1.0f, x, ones, d, 5);
    assert_float_equal(d[1], 0.3678794f, 1e-6f);
    assert_float_equal(d[3], 1.0f, 0.0f);
    /* LeakyReLU slope 0.2: f(-3) = -0.6, derivative 0.2 at x <= 0 (PyTorch takes it at 0 too) */
    ag_act_apply(AG_ACT_LEAKY_RELU, 0.2f, 0, x, y, 5);
    assert_float_equal(y[0], -0.6f, 1e-7f);
    assert_float_equal(y[3], 0.5f, 0.0f);
    memset(d, 0, sizeof d);
    ag_act_grad(AG_ACT_LEAKY_RELU, 0.2f, 0, x, ones, d, 5);
    assert_float_equal(d[2], 0.2f, 0.0f);
    assert_float_equal(d[4], 1.0f, 0.0f);
    /* ReLU: derivative 0 at 0 */
    ag_act_apply(AG_ACT_RELU, 0, 0, x, y, 5);
    assert_float_equal(y[1], 0.0f, 0.0f);
    assert_float_equal(y[4], 1.0f, 0.0f);
    memset(d, 0, sizeof d);
    ag_act_grad(AG_ACT_RELU, 0, 0, x, ones, d, 5);
    assert_float_equal(d[2], 0.0f, 0.0f);
    assert_float_equal(d[3], 1.0f, 0.0f);
    /* identity, in place */
    float z[5];
    memcpy(z, x, sizeof z);
    ag_act_apply(AG_ACT_IDENTITY, 0, 0, z, z, 5);
    assert_memory_equal(z, x, sizeof z);
    assert_string_equal(ag_act_name(AG_ACT_GELU), "gelu");
    ag_act_config_t ac;
    ag_act_config_default(&ac, AG_ACT_LEAKY_RELU, 7);
    assert_int_equal(ac.dim, 7);
    assert_float_equal(ac.slope, 0.01f, 0.0f);
    assert_float_equal(ac.alpha, 1.0f, 0.0f);
    assert_null(ag_act_name((ag_act_kind_t)42));
}

static void test_activation_gradcheck(void **state) {
    (void)state;
    const ag_act_kind_t kinds[5] = {AG_ACT_IDENTITY, AG_ACT_RELU, AG_ACT_LEAKY_RELU, AG_ACT_ELU, AG_ACT_GELU};
    for (int i = 0; i < 5; i++) {
        ag_act_t act;
        ag_act_config_t cfg = {kinds[i], 4, 0.2f, 1.0f};
        assert_int_equal(ag_act_init(&act, &cfg, 0), AG_SUCCESS);
        ag_param_list_t list;
        ag_param_list_init(&list);
        assert_int_equal(ag_act_params(&act, &list, "a"), AG_SUCCESS);
        assert_int_equal(list.count, 0);
        gc_t g = {&act, act_f, act_b, 3, 4, 4, 0};
        float *X = rand_buf(12, 3, -2.0f, 2.0f);
        /* keep away from the kinks of ReLU and LeakyReLU, where differences straddle two slopes */
        for (int k = 0; k < 12; k++)
            if (fabsf(X[k]) < 0.1f) X[k] = X[k] < 0 ? -0.3f : 0.3f;
        gradcheck(&g, &list, X, 1e-2f, 3e-3);
        free(X);
        ag_param_list_destroy(&list);
        ag_act_destroy(&act);
    }
}

/* ---- Dropout ---- */

static void test_dropout_masks(void **state) {
    (void)state;
    enum { N = 1000, F = 100 };
    ag_dropout_t d;
    ag_dropout_config_t cfg = {F, 0.3f};
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_SUCCESS);
    float *X = rand_buf(N * F, 4, 0.5f, 1.5f);
    float *Y = malloc(N * F * sizeof(float)), *Y2 = malloc(N * F * sizeof(float));
    ag_rng_t rng;
    ag_rng_init(&rng, 123);
    assert_int_equal(ag_dropout_forward(&d, X, Y, N, 1, &rng), AG_SUCCESS);
    assert_int_equal(rng.stream, 1);
    int64_t dropped = 0;
    for (int64_t k = 0; k < N * F; k++) {
        int keep = ag_dropout_keep(123, 0, (uint64_t)k, 0.3f);
        if (!keep) {
            assert_float_equal(Y[k], 0.0f, 0.0f);
            dropped++;
        } else {
            assert_float_equal(Y[k], X[k] * (1.0f / 0.7f), 0.0f);
        }
    }
    /* 100000 Bernoulli(0.3) draws: mean 30000, sd 145; 5 sd either side */
    assert_in_range(dropped, 30000 - 725, 30000 + 725);
    /* the layer compares the draw's 24 bits with ceil(p 2^24); ag_dropout_keep compares the float
     * draw with p: the same decision for other probabilities too (p 2^24 whole or not, near 0 and 1) */
    const float ps[] = {0.5f, 0.1f, 1.0f / 3.0f, 0.999f, 1e-6f};
    for (int t = 0; t < 5; t++) {
        ag_dropout_t dp;
        ag_dropout_config_t cp = {F, ps[t]};
        assert_int_equal(ag_dropout_init(&dp, &cp, 0), AG_SUCCESS);
        ag_rng_t r;
        ag_rng_init(&r, 77);
        assert_int_equal(ag_dropout_forward(&dp, X, Y2, N, 1, &r), AG_SUCCESS);
        for (int64_t k = 0; k < N * F; k++)
            if ((Y2[k] != 0.0f) != ag_dropout_keep(77, 0, (uint64_t)k, ps[t]))
                fail_msg("p = %g, element %lld: the layer and ag_dropout_keep disagree", (double)ps[t], (long long)k);
        ag_dropout_destroy(&dp);
    }
    /* same seed and stream: same mask; next stream: another mask */
    ag_rng_t rng2;
    ag_rng_init(&rng2, 123);
    assert_int_equal(ag_dropout_forward(&d, X, Y2, N, 1, &rng2), AG_SUCCESS);
    assert_memory_equal(Y, Y2, N * F * sizeof(float));
    assert_int_equal(ag_dropout_forward(&d, X, Y2, N, 1, &rng2), AG_SUCCESS);
    assert_true(memcmp(Y, Y2, N * F * sizeof(float)) != 0);
    /* backward uses the mask of the last forward (stream 1 here): dX = mask * dY / 0.7 */
    float *dX = calloc(N * F, sizeof(float));
    const float *dY = X;
    assert_int_equal(ag_dropout_backward(&d, dY, dX, N), AG_SUCCESS);
    assert_memory_equal(dX, Y2, N * F * sizeof(float)); /* same mask and same scaling as forward */
    /* evaluation: identity, in place too, and backward passes dY through */
    assert_int_equal(ag_dropout_forward(&d, X, Y, N, 0, NULL), AG_SUCCESS);
    assert_memory_equal(Y, X, N * F * sizeof(float));
    memset(dX, 0, N * F * sizeof(float));
    assert_int_equal(ag_dropout_backward(&d, dY, dX, N), AG_SUCCESS);
    assert_memory_equal(dX, X, N * F * sizeof(float));
    /* training without an rng is an error */
    assert_int_equal(ag_dropout_forward(&d, X, Y, N, 1, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "needs an rng"));
    ag_dropout_destroy(&d);
    /* p = 1 zeroes everything, p = 0 is the identity even in training and draws no stream */
    cfg.p = 1.0f;
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_SUCCESS);
    assert_int_equal(ag_dropout_forward(&d, X, Y, 2, 1, &rng), AG_SUCCESS);
    for (int k = 0; k < 2 * F; k++) assert_float_equal(Y[k], 0.0f, 0.0f);
    cfg.p = 0.0f;
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_SUCCESS);
    uint64_t s = rng.stream;
    assert_int_equal(ag_dropout_forward(&d, X, Y, 2, 1, &rng), AG_SUCCESS);
    assert_memory_equal(Y, X, 2 * F * sizeof(float));
    assert_int_equal(rng.stream, s);
    /* invalid probabilities */
    cfg.p = 1.5f;
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "not in [0, 1]"));
    cfg.p = NAN;
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_EINVAL);
    free(X);
    free(Y);
    free(Y2);
    free(dX);
}

static void test_dropout_gradcheck(void **state) {
    (void)state;
    ag_dropout_t d;
    ag_dropout_config_t cfg = {6, 0.5f};
    assert_int_equal(ag_dropout_init(&d, &cfg, 0), AG_SUCCESS);
    ag_param_list_t list;
    ag_param_list_init(&list);
    gc_t g = {&d, dropout_f, dropout_b, 3, 6, 6, 9};
    float *X = rand_buf(18, 5, -1.0f, 1.0f);
    gradcheck(&g, &list, X, 1e-2f, 1e-3);
    free(X);
    ag_dropout_destroy(&d);
}

/* ---- Feed-forward block ---- */

static void test_ffn_gradcheck(void **state) {
    (void)state;
    const ag_act_kind_t kinds[2] = {AG_ACT_GELU, AG_ACT_ELU};
    const float drops[2] = {0.3f, 0.0f};
    for (int i = 0; i < 2; i++) {
        ag_ffn_t f;
        ag_ffn_config_t cfg;
        ag_ffn_config_default(&cfg, 4);
        assert_int_equal(cfg.hidden, 16);
        cfg.hidden = 6;
        cfg.act = kinds[i];
        cfg.dropout = drops[i];
        assert_int_equal(ag_ffn_init(&f, &cfg, 11), AG_SUCCESS);
        for (int k = 0; k < 6; k++) f.lin1.b[k] = 0.05f * (float)k;
        for (int k = 0; k < 4; k++) f.lin2.b[k] = -0.05f * (float)k;
        ag_param_list_t list;
        ag_param_list_init(&list);
        assert_int_equal(ag_ffn_params(&f, &list, "blocks.0.ffn"), AG_SUCCESS);
        assert_int_equal(list.count, 4);
        assert_non_null(ag_param_list_find(&list, "blocks.0.ffn.lin1.W"));
        assert_non_null(ag_param_list_find(&list, "blocks.0.ffn.lin2.b"));
        assert_int_equal(ag_param_list_find(&list, "blocks.0.ffn.lin2.W")->shape[0], 6);
        gc_t g = {&f, ffn_f, ffn_b, 3, 4, 4, 21};
        float *X = rand_buf(12, 6, -1.5f, 1.5f);
        gradcheck(&g, &list, X, 1e-2f, 5e-3);
        /* with dropout, the forward really dropped something */
        if (drops[i] > 0) {
            ag_rng_t rng;
            ag_rng_init(&rng, 21);
            float Y[12];
            assert_int_equal(ag_ffn_forward(&f, X, Y, 3, 1, &rng), AG_SUCCESS);
            int zeros = 0;
            for (int k = 0; k < 18; k++) zeros += f.a[k] == 0.0f;
            assert_true(zeros > 0);
        }
        /* a second backward without a new forward is refused (the block reused its buffer) */
        float dY[12] = {0}, dX[12] = {0};
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        float Y[12];
        assert_int_equal(ag_ffn_forward(&f, X, Y, 3, 1, &rng), AG_SUCCESS);
        assert_int_equal(ag_ffn_backward(&f, dY, NULL, 3), AG_SUCCESS);
        assert_int_equal(ag_ffn_backward(&f, dY, dX, 3), AG_EINVAL);
        free(X);
        ag_param_list_destroy(&list);
        ag_ffn_destroy(&f);
    }
}

/* A feed-forward block of the default configuration but for its sizes and activation. */
static void ffn_make(ag_ffn_t *f, int64_t dim, int64_t hidden, ag_act_kind_t act, uint64_t seed) {
    ag_ffn_config_t cfg;
    ag_ffn_config_default(&cfg, dim);
    cfg.hidden = hidden;
    cfg.act = act;
    assert_int_equal(ag_ffn_init(f, &cfg, seed), AG_SUCCESS);
}

/* Evaluation output equals the composition of the parts computed by hand-wired layers. */
static void test_ffn_matches_composition(void **state) {
    (void)state;
    ag_ffn_t f;
    ffn_make(&f, 3, 5, AG_ACT_RELU, 2);
    float *X = rand_buf(6, 8, -1, 1), H[10], A[10], Y[6], Yf[6];
    assert_int_equal(ag_linear_forward(&f.lin1, X, H, 2, 0, NULL), AG_SUCCESS);
    ag_act_apply(AG_ACT_RELU, 0, 0, H, A, 10);
    assert_int_equal(ag_linear_forward(&f.lin2, A, Y, 2, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_ffn_forward(&f, X, Yf, 2, 0, NULL), AG_SUCCESS);
    assert_memory_equal(Y, Yf, sizeof Y);
    /* an evaluation forward leaves nothing for backward */
    assert_int_equal(ag_ffn_backward(&f, Y, NULL, 2), AG_EINVAL);
    free(X);
    ag_ffn_destroy(&f);
}

/* ---- Residual ---- */

static void test_residual(void **state) {
    (void)state;
    float X[3] = {1, 2, 3}, Fx[3] = {0.5f, -1, 4}, Y[3];
    ag_residual_forward(X, Fx, Y, 3);
    assert_float_equal(Y[0], 1.5f, 0.0f);
    assert_float_equal(Y[1], 1.0f, 0.0f);
    assert_float_equal(Y[2], 7.0f, 0.0f);
    float dY[3] = {1, 2, 3}, dX[3] = {1, 1, 1}, dF[3] = {0, 0, 0};
    ag_residual_backward(dY, dX, dF, 3);
    assert_float_equal(dX[2], 4.0f, 0.0f);
    assert_float_equal(dF[1], 2.0f, 0.0f);
    ag_residual_backward(dY, NULL, dF, 3);
    assert_float_equal(dF[1], 4.0f, 0.0f);
}

/* ---- caches, errors, allocation failures ---- */

static void test_cache_reuse(void **state) {
    (void)state;
    ag_linear_t lin;
    ag_linear_config_t cfg = {4, 2, 1};
    assert_int_equal(ag_linear_init(&lin, &cfg, 1), AG_SUCCESS);
    float *X = rand_buf(40, 9, -1, 1), Y[20], dY[20] = {0};
    assert_int_equal(ag_linear_forward(&lin, X, Y, 10, 1, NULL), AG_SUCCESS);
    float *cache = lin.x_cache;
    assert_int_equal(lin.cap_rows, 10);
    /* fewer rows: no allocation at all, even when every allocation would fail */
    ag_i_alloc_fail_at(1);
    assert_int_equal(ag_linear_forward(&lin, X, Y, 5, 1, NULL), AG_SUCCESS);
    assert_ptr_equal(lin.x_cache, cache);
    /* more rows: the cache must grow, and that allocation fails cleanly */
    ag_i_alloc_fail_at(1);
    assert_int_equal(ag_linear_forward(&lin, X, Y, 10, 1, NULL), AG_SUCCESS); /* still fits */
    float *X2 = rand_buf(44, 9, -1, 1), Y2[22];
    ag_i_alloc_fail_at(1);
    assert_int_equal(ag_linear_forward(&lin, X2, Y2, 11, 1, NULL), AG_ENOMEM);
    assert_non_null(strstr(ag_error_message(), "linear layer input cache"));
    ag_i_alloc_fail_at(0);
    assert_int_equal(ag_linear_forward(&lin, X2, Y2, 11, 1, NULL), AG_SUCCESS);
    assert_int_equal(lin.cap_rows, 11);
    /* backward needs a matching training forward */
    assert_int_equal(ag_linear_backward(&lin, dY, NULL, 10), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "no training forward with 10 rows"));
    assert_int_equal(ag_linear_forward(&lin, X, Y, 10, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_linear_backward(&lin, dY, NULL, 10), AG_EINVAL);
    assert_int_equal(ag_linear_forward(&lin, X, Y, -1, 1, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "negative row count"));
    /* N = 0 is a valid empty batch */
    assert_int_equal(ag_linear_forward(&lin, X, Y, 0, 1, NULL), AG_SUCCESS);
    assert_int_equal(ag_linear_backward(&lin, dY, NULL, 0), AG_SUCCESS);
    free(X);
    free(X2);
    ag_linear_destroy(&lin);
}

/* Inference allocates only what a forward needs: the feed-forward block's input copy and backward
 * scratch (a third of its memory on a large graph) wait for a training forward, and a training
 * forward after larger evaluation ones still gets them at its own size. */
static void test_ffn_inference_memory(void **state) {
    (void)state;
    ag_ffn_t f;
    ffn_make(&f, 4, 8, AG_ACT_GELU, 5);
    float *X = rand_buf(40, 4, -1, 1), Y[40], dY[40], dX[40];
    for (int i = 0; i < 40; i++) dY[i] = 0.5f;
    ag_rng_t rng;
    ag_rng_init(&rng, 0);
    assert_int_equal(ag_ffn_forward(&f, X, Y, 10, 0, &rng), AG_SUCCESS);
    assert_non_null(f.h);
    assert_null(f.x_cache);
    assert_null(f.da);
    assert_int_equal(f.cap_rows, 10);
    assert_int_equal(f.cap_train_rows, 0);
    assert_int_equal(ag_ffn_backward(&f, dY, dX, 10), AG_EINVAL);
    /* training on fewer rows than evaluation saw: its buffers at its own size, and a backward works */
    assert_int_equal(ag_ffn_forward(&f, X, Y, 6, 1, &rng), AG_SUCCESS);
    assert_non_null(f.x_cache);
    assert_non_null(f.da);
    assert_int_equal(f.cap_train_rows, 6);
    assert_int_equal(ag_ffn_backward(&f, dY, dX, 6), AG_SUCCESS);
    free(X);
    ag_ffn_destroy(&f);
}

/* The evaluation forward into the caller's hidden buffers (a model's blocks share two): the
 * output of the layer's own evaluation forward, bit for bit, with none of its own buffers
 * allocated and nothing left for a backward. */
static void test_ffn_caller_workspace(void **state) {
    (void)state;
    ag_ffn_t f, g;
    ffn_make(&f, 4, 8, AG_ACT_GELU, 5);
    ffn_make(&g, 4, 8, AG_ACT_GELU, 5);
    float *X = rand_buf(40, 4, -1, 1), *h = rand_buf(80, 6, -1, 1), *a = rand_buf(80, 7, -1, 1);
    float Y[40], Yw[40], dY[40] = {0}, dX[40] = {0};
    assert_int_equal(ag_ffn_forward(&f, X, Y, 10, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_i_ffn_forward_ws(&g, X, Yw, 10, h, a), AG_SUCCESS);
    assert_memory_equal(Y, Yw, sizeof Y);
    assert_null(g.h);
    assert_null(g.a);
    assert_int_equal(g.cap_rows, 0);
    assert_int_equal(ag_ffn_backward(&g, dY, dX, 10), AG_EINVAL);
    assert_int_equal(ag_i_ffn_forward_ws(&g, X, Yw, 10, NULL, a), AG_EINVAL);
    free(X);
    free(h);
    free(a);
    ag_ffn_destroy(&f);
    ag_ffn_destroy(&g);
}

/* A LayerNorm growth that fails after the input cache was replaced (the second of its three
 * buffers) leaves nothing cached: a backward of the previous row count is refused rather than
 * run on the new, unfilled input cache with the old statistics. */
static void test_layernorm_failed_growth(void **state) {
    (void)state;
    ag_layernorm_t ln;
    ag_layernorm_config_t cfg = {4, 1e-5f};
    assert_int_equal(ag_layernorm_init(&ln, &cfg, 0), AG_SUCCESS);
    float *X = rand_buf(80, 3, -1, 1), Y[80], dY[80], dX[80];
    for (int i = 0; i < 80; i++) dY[i] = 1.0f;
    assert_int_equal(ag_layernorm_forward(&ln, X, Y, 10, 1, NULL), AG_SUCCESS);
    assert_int_equal(ag_layernorm_backward(&ln, dY, dX, 10), AG_SUCCESS);
    ag_i_alloc_fail_at(2); /* the input cache grows, the mean cache fails */
    assert_int_equal(ag_layernorm_forward(&ln, X, Y, 20, 1, NULL), AG_ENOMEM);
    ag_i_alloc_fail_at(0);
    assert_non_null(strstr(ag_error_message(), "layer norm mean cache"));
    assert_int_equal(ag_layernorm_backward(&ln, dY, dX, 10), AG_EINVAL);
    /* and the layer is usable again */
    assert_int_equal(ag_layernorm_forward(&ln, X, Y, 20, 1, NULL), AG_SUCCESS);
    assert_int_equal(ag_layernorm_backward(&ln, dY, dX, 20), AG_SUCCESS);
    free(X);
    ag_layernorm_destroy(&ln);
}

static void test_init_errors(void **state) {
    (void)state;
    ag_linear_t lin;
    ag_linear_config_t lc = {0, 3, 1};
    assert_int_equal(ag_linear_init(&lin, &lc, 0), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "sizes must be positive (in 0, out 3)"));
    ag_linear_destroy(&lin);
    ag_layernorm_t ln;
    ag_layernorm_config_t nc = {-2, 0};
    assert_int_equal(ag_layernorm_init(&ln, &nc, 0), AG_EINVAL);
    ag_act_t act;
    ag_act_config_t ac = {(ag_act_kind_t)9, 3, 0, 0};
    assert_int_equal(ag_act_init(&act, &ac, 0), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "unknown kind 9"));
    ag_ffn_t f;
    ag_ffn_config_t fc;
    ag_ffn_config_default(&fc, 4);
    fc.dropout = -0.1f;
    assert_int_equal(ag_ffn_init(&f, &fc, 0), AG_EINVAL);
    ag_ffn_destroy(&f);
    /* every allocation of every init fails cleanly (ASan checks for leaks) */
    ag_ffn_config_default(&fc, 4);
    for (int n = 1; n <= 4; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_ffn_init(&f, &fc, 0), AG_ENOMEM);
        ag_ffn_destroy(&f);
    }
    ag_i_alloc_fail_at(5);
    assert_int_equal(ag_ffn_init(&f, &fc, 0), AG_SUCCESS);
    ag_i_alloc_fail_at(0);
    float X[8] = {0}, Y[8];
    ag_rng_t rng;
    ag_rng_init(&rng, 0);
    for (int n = 1; n <= 4; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_ffn_forward(&f, X, Y, 2, 1, &rng), AG_ENOMEM);
    }
    ag_i_alloc_fail_at(0);
    assert_int_equal(ag_ffn_forward(&f, X, Y, 2, 1, &rng), AG_SUCCESS);
    ag_ffn_destroy(&f);
    for (int n = 1; n <= 2; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_layernorm_init(&ln, &nc, 0), AG_EINVAL); /* size checked before allocating */
        nc.dim = 3;
        assert_int_equal(ag_layernorm_init(&ln, &nc, 0), AG_ENOMEM);
        ag_layernorm_destroy(&ln);
        nc.dim = -2;
    }
    ag_i_alloc_fail_at(0);
    nc.dim = 3;
    assert_int_equal(ag_layernorm_init(&ln, &nc, 0), AG_SUCCESS);
    float Z[6] = {1, 2, 3, 4, 5, 7}, W[6];
    for (int n = 1; n <= 3; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_layernorm_forward(&ln, Z, W, 2, 1, NULL), AG_ENOMEM);
        assert_int_equal(ag_layernorm_backward(&ln, Z, W, 2), AG_EINVAL);
    }
    ag_i_alloc_fail_at(0);
    ag_layernorm_destroy(&ln);
}

/* ---- the same bits with 1 and 2 threads ---- */

typedef struct {
    float *Y1, *Y2, *dX, *grads;
} run_out_t;

static void run_stack(int threads, run_out_t *o, int64_t N) {
    ag_threads_set(threads);
    const int64_t F = 32;
    ag_layernorm_t ln;
    ag_layernorm_config_t nc = {F, 1e-5f};
    ag_ffn_t f;
    ag_ffn_config_t fc;
    ag_ffn_config_default(&fc, F);
    fc.hidden = 64;
    fc.dropout = 0.2f;
    assert_int_equal(ag_layernorm_init(&ln, &nc, 0), AG_SUCCESS);
    assert_int_equal(ag_ffn_init(&f, &fc, 3), AG_SUCCESS);
    for (int64_t c = 0; c < F; c++) ln.gamma[c] = 1.0f + 0.01f * (float)c;
    float *X = rand_buf(N * F, 12, -2, 2);
    float *dY = rand_buf(N * F, 13, -1, 1);
    ag_rng_t rng;
    ag_rng_init(&rng, 5);
    /* y = ffn(layernorm(x)) */
    assert_int_equal(ag_layernorm_forward(&ln, X, o->Y1, N, 1, &rng), AG_SUCCESS);
    assert_int_equal(ag_ffn_forward(&f, o->Y1, o->Y2, N, 1, &rng), AG_SUCCESS);
    float *dmid = calloc((size_t)(N * F), sizeof(float));
    assert_int_equal(ag_ffn_backward(&f, dY, dmid, N), AG_SUCCESS);
    assert_int_equal(ag_layernorm_backward(&ln, dmid, o->dX, N), AG_SUCCESS);
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_layernorm_params(&ln, &list, "ln"), AG_SUCCESS);
    assert_int_equal(ag_ffn_params(&f, &list, "ffn"), AG_SUCCESS);
    int64_t off = 0;
    for (int64_t i = 0; i < list.count; i++) {
        int64_t n = list.items[i].shape[0] * list.items[i].shape[1];
        memcpy(o->grads + off, list.items[i].grad, (size_t)n * sizeof(float));
        off += n;
    }
    ag_param_list_destroy(&list);
    free(dmid);
    free(X);
    free(dY);
    ag_ffn_destroy(&f);
    ag_layernorm_destroy(&ln);
}

static void test_threads_bit_identical(void **state) {
    (void)state;
    const int64_t N = 3000, F = 32, P = 2 * F + (F * 64 + 64) + (64 * F + F);
    run_out_t a, b;
    run_out_t *outs[2] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        outs[i]->Y1 = malloc((size_t)(N * F) * sizeof(float));
        outs[i]->Y2 = malloc((size_t)(N * F) * sizeof(float));
        outs[i]->dX = calloc((size_t)(N * F), sizeof(float));
        outs[i]->grads = malloc((size_t)P * sizeof(float));
        run_stack(i + 1, outs[i], N);
    }
    ag_threads_set(0);
    assert_memory_equal(a.Y1, b.Y1, (size_t)(N * F) * sizeof(float));
    assert_memory_equal(a.Y2, b.Y2, (size_t)(N * F) * sizeof(float));
    assert_memory_equal(a.dX, b.dX, (size_t)(N * F) * sizeof(float));
    assert_memory_equal(a.grads, b.grads, (size_t)P * sizeof(float));
    /* the gradients are not trivially zero */
    double s = 0;
    for (int64_t k = 0; k < P; k++) s += fabs(a.grads[k]);
    assert_true(s > 1.0);
    for (int i = 0; i < 2; i++) {
        free(outs[i]->Y1);
        free(outs[i]->Y2);
        free(outs[i]->dX);
        free(outs[i]->grads);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_values),
        cmocka_unit_test(test_linear_init_and_params),
        cmocka_unit_test(test_linear_gradcheck),
        cmocka_unit_test(test_linear_sparse_input),
        cmocka_unit_test(test_layernorm_values),
        cmocka_unit_test(test_layernorm_gradcheck),
        cmocka_unit_test(test_activation_values),
        cmocka_unit_test(test_activation_gradcheck),
        cmocka_unit_test(test_dropout_masks),
        cmocka_unit_test(test_dropout_gradcheck),
        cmocka_unit_test(test_ffn_gradcheck),
        cmocka_unit_test(test_ffn_matches_composition),
        cmocka_unit_test(test_ffn_inference_memory),
        cmocka_unit_test(test_ffn_caller_workspace),
        cmocka_unit_test(test_residual),
        cmocka_unit_test(test_cache_reuse),
        cmocka_unit_test(test_layernorm_failed_growth),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_threads_bit_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
