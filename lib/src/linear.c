/*
 * linear.c: the fully connected layer Y = X W + b.
 */
#include <math.h>
#include <string.h>
#include "attngraph/layers.h"
#include "blas.h"
#include "internal.h"
#include "layers_internal.h"

ag_error_t ag_linear_init(ag_linear_t *layer, const ag_linear_config_t *cfg, uint64_t seed) {
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
    if (!cfg || cfg->in_dim <= 0 || cfg->out_dim <= 0)
        return AG_ERROR(AG_EINVAL, "linear layer: sizes must be positive (in %lld, out %lld)",
                        cfg ? (long long)cfg->in_dim : 0LL, cfg ? (long long)cfg->out_dim : 0LL);
    layer->cfg = *cfg;
    int64_t F = cfg->in_dim, O = cfg->out_dim, nw, total;
    if (ag_i_mul_overflow(F, O, &nw) || __builtin_add_overflow(nw, cfg->bias ? O : 0, &total))
        return AG_ERROR(AG_ELIMIT, "linear layer %lld x %lld overflows", (long long)F, (long long)O);
    void *p, *g;
    AG_CHECK(ag_i_alloc_array(&p, total, sizeof(float), "linear layer parameters"));
    ag_error_t rc = ag_i_alloc_array(&g, total, sizeof(float), "linear layer gradients");
    if (rc != AG_SUCCESS) {
        ag_i_free(p);
        return rc;
    }
    layer->params = p;
    layer->grads = g;
    layer->W = layer->params;          /* (F x O) */
    layer->dW = layer->grads;
    if (cfg->bias) {
        layer->b = layer->params + nw; /* (O) zero */
        layer->db = layer->grads + nw;
    }
    /* Glorot uniform keeps the variance of activations and of gradients alike across layers. */
    float a = sqrtf(6.0f / (float)(F + O));
    for (int64_t k = 0; k < nw; k++) layer->W[k] = (2.0f * ag_rng_uniform(seed, 0, (uint64_t)k) - 1.0f) * a;
    return AG_SUCCESS;
}

void ag_linear_destroy(ag_linear_t *layer) {
    if (!layer) return;
    ag_i_free(layer->params);
    ag_i_free(layer->grads);
    ag_i_free(layer->x_cache);
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
}

ag_error_t ag_linear_params(ag_linear_t *layer, ag_param_list_t *list, const char *prefix) {
    AG_CHECK(ag_param_list_add(list, prefix, "W", 2, layer->cfg.in_dim, layer->cfg.out_dim, layer->W,
                               layer->dW, 1));
    if (layer->cfg.bias)
        AG_CHECK(ag_param_list_add(list, prefix, "b", 1, layer->cfg.out_dim, 1, layer->b, layer->db, 0));
    return AG_SUCCESS;
}

void ag_i_linear_apply(const ag_linear_t *layer, const float *X, float *Y, int64_t N) {
    int64_t F = layer->cfg.in_dim, O = layer->cfg.out_dim;
    if (N == 0) return;
    if (layer->b) {
        /* Y starts as the bias in every row, then the product adds onto it (beta = 1). */
#pragma omp parallel for schedule(static) if (N * O > 32768) num_threads(ag_threads_get())
        for (int64_t r = 0; r < N; r++) memcpy(Y + r * O, layer->b, (size_t)O * sizeof(float));
    }
    ag_i_gemm(0, 0, N, O, F, 1.0f, X, F, layer->W, O, layer->b ? 1.0f : 0.0f, Y, O);
}

void ag_i_linear_grad(ag_linear_t *layer, const float *X, const float *dY, float *dX, int64_t N) {
    int64_t F = layer->cfg.in_dim, O = layer->cfg.out_dim;
    if (N == 0) return;
    ag_i_gemm(1, 0, F, O, N, 1.0f, X, F, dY, O, 1.0f, layer->dW, O);   /* (F x O) += X^T dY */
    if (layer->db) ag_i_colsum_add(dY, N, O, layer->db);               /* (O) += colsum dY */
    if (dX) ag_i_gemm(0, 1, N, F, O, 1.0f, dY, O, layer->W, O, 1.0f, dX, F); /* (N x F) += dY W^T */
}

ag_error_t ag_linear_forward(ag_linear_t *layer, const float *X, float *Y, int64_t N, int training,
                             ag_rng_t *rng) {
    (void)rng;
    AG_CHECK(ag_i_check_forward("linear", X, Y, N));
    int64_t F = layer->cfg.in_dim;
    if (training) {
        AG_CHECK(ag_i_cache_grow(&layer->x_cache, layer->cap_rows, N, F, "linear layer input cache"));
        if (N > layer->cap_rows) layer->cap_rows = N;
        if (N > 0) memcpy(layer->x_cache, X, (size_t)(N * F) * sizeof(float));
    }
    layer->cached_rows = training ? N : -1;
    ag_i_linear_apply(layer, X, Y, N);
    return AG_SUCCESS;
}

ag_error_t ag_linear_backward(ag_linear_t *layer, const float *dY, float *dX, int64_t N) {
    if (layer->cached_rows < 0 || layer->cached_rows != N)
        return AG_ERROR(AG_EINVAL, "linear backward: no training forward with %lld rows cached", (long long)N);
    if (N > 0 && !dY) return AG_ERROR(AG_EINVAL, "linear backward: NULL dY");
    ag_i_linear_grad(layer, layer->x_cache, dY, dX, N);
    return AG_SUCCESS;
}

ag_error_t ag_i_linear_apply_csr(const ag_linear_t *layer, const ag_i_csr_t *S, float *Y) {
    int64_t F = layer->cfg.in_dim, O = layer->cfg.out_dim, N = S->rows;
    if (S->cols != F)
        return AG_ERROR(AG_EMISMATCH, "linear layer: sparse input has %lld columns, the layer %lld inputs",
                        (long long)S->cols, (long long)F);
    if (layer->b) {
#pragma omp parallel for schedule(static) if (N * O > 32768) num_threads(ag_threads_get())
        for (int64_t r = 0; r < N; r++) memcpy(Y + r * O, layer->b, (size_t)O * sizeof(float));
    }
    ag_i_spmm(S, layer->W, O, O, 1.0f, layer->b ? 1.0f : 0.0f, Y, O); /* (N x O) */
    return AG_SUCCESS;
}

ag_error_t ag_i_linear_grad_csr(ag_linear_t *layer, const ag_i_csr_t *ST, const float *dY, int64_t N) {
    int64_t F = layer->cfg.in_dim, O = layer->cfg.out_dim;
    if (ST->rows != F || ST->cols != N)
        return AG_ERROR(AG_EMISMATCH, "linear layer: transposed sparse input is %lld x %lld, expected %lld x %lld",
                        (long long)ST->rows, (long long)ST->cols, (long long)F, (long long)N);
    ag_i_spmm(ST, dY, O, O, 1.0f, 1.0f, layer->dW, O); /* (F x O) += S^T dY */
    if (layer->db) ag_i_colsum_add(dY, N, O, layer->db);
    return AG_SUCCESS;
}
