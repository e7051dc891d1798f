/*
 * activation.c: elementwise nonlinearities (identity, ReLU, LeakyReLU, ELU, exact GELU).
 */
#include <math.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"

#define AG_INV_SQRT2 0.70710678118654752440f
#define AG_INV_SQRT_2PI 0.39894228040143267794f

void ag_act_config_default(ag_act_config_t *cfg, ag_act_kind_t kind, int64_t dim) {
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = kind;
    cfg->dim = dim;
    cfg->slope = 0.01f;
    cfg->alpha = 1.0f;
}

const char *ag_act_name(ag_act_kind_t kind) {
    switch (kind) {
    case AG_ACT_IDENTITY: return "identity";
    case AG_ACT_RELU: return "relu";
    case AG_ACT_LEAKY_RELU: return "leaky_relu";
    case AG_ACT_ELU: return "elu";
    case AG_ACT_GELU: return "gelu";
    }
    return NULL;
}

void ag_act_apply(ag_act_kind_t kind, float slope, float alpha, const float *X, float *Y, int64_t n) {
    switch (kind) {
    case AG_ACT_IDENTITY:
        if (Y != X && n > 0) memmove(Y, X, (size_t)n * sizeof(float));
        break;
    case AG_ACT_RELU:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) Y[k] = X[k] > 0.0f ? X[k] : 0.0f;
        break;
    case AG_ACT_LEAKY_RELU:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) Y[k] = X[k] > 0.0f ? X[k] : slope * X[k];
        break;
    case AG_ACT_ELU:
#pragma omp parallel for schedule(static) if (n > 16384)
        for (int64_t k = 0; k < n; k++) Y[k] = X[k] > 0.0f ? X[k] : alpha * expm1f(X[k]);
        break;
    case AG_ACT_GELU:
#pragma omp parallel for schedule(static) if (n > 16384)
        for (int64_t k = 0; k < n; k++) Y[k] = 0.5f * X[k] * (1.0f + erff(X[k] * AG_INV_SQRT2));
        break;
    }
}

void ag_act_grad(ag_act_kind_t kind, float slope, float alpha, const float *X, const float *dY,
                 float *dX, int64_t n) {
    switch (kind) {
    case AG_ACT_IDENTITY:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) dX[k] += dY[k];
        break;
    case AG_ACT_RELU:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) dX[k] += X[k] > 0.0f ? dY[k] : 0.0f;
        break;
    case AG_ACT_LEAKY_RELU:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) dX[k] += X[k] > 0.0f ? dY[k] : slope * dY[k];
        break;
    case AG_ACT_ELU:
#pragma omp parallel for schedule(static) if (n > 16384)
        for (int64_t k = 0; k < n; k++) dX[k] += X[k] > 0.0f ? dY[k] : alpha * expf(X[k]) * dY[k];
        break;
    case AG_ACT_GELU:
        /* d/dx x Phi(x) = Phi(x) + x phi(x). */
#pragma omp parallel for schedule(static) if (n > 16384)
        for (int64_t k = 0; k < n; k++) {
            float x = X[k];
            float cdf = 0.5f * (1.0f + erff(x * AG_INV_SQRT2));
            float pdf = AG_INV_SQRT_2PI * expf(-0.5f * x * x);
            dX[k] += (cdf + x * pdf) * dY[k];
        }
        break;
    }
}

ag_error_t ag_act_init(ag_act_t *layer, const ag_act_config_t *cfg, uint64_t seed) {
    (void)seed;
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
    if (!cfg || !ag_act_name(cfg->kind))
        return AG_ERROR(AG_EINVAL, "activation: unknown kind %d", cfg ? (int)cfg->kind : -1);
    if (cfg->dim <= 0) return AG_ERROR(AG_EINVAL, "activation: dim must be positive (%lld)", (long long)cfg->dim);
    layer->cfg = *cfg;
    return AG_SUCCESS;
}

void ag_act_destroy(ag_act_t *layer) {
    if (!layer) return;
    ag_i_free(layer->x_cache);
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
}

ag_error_t ag_act_params(ag_act_t *layer, ag_param_list_t *list, const char *prefix) {
    (void)layer;
    (void)list;
    (void)prefix;
    return AG_SUCCESS;
}

ag_error_t ag_act_forward(ag_act_t *layer, const float *X, float *Y, int64_t N, int training, ag_rng_t *rng) {
    (void)rng;
    AG_CHECK(ag_i_check_forward("activation", X, Y, N));
    int64_t F = layer->cfg.dim;
    layer->cached_rows = -1;
    if (training) {
        AG_CHECK(ag_i_cache_grow(&layer->x_cache, layer->cap_rows, N, F, "activation input cache"));
        if (N > layer->cap_rows) layer->cap_rows = N;
        if (N > 0) memcpy(layer->x_cache, X, (size_t)(N * F) * sizeof(float));
        layer->cached_rows = N;
    }
    ag_act_apply(layer->cfg.kind, layer->cfg.slope, layer->cfg.alpha, X, Y, N * F);
    return AG_SUCCESS;
}

ag_error_t ag_act_backward(ag_act_t *layer, const float *dY, float *dX, int64_t N) {
    if (layer->cached_rows < 0 || layer->cached_rows != N)
        return AG_ERROR(AG_EINVAL, "activation backward: no training forward with %lld rows cached", (long long)N);
    if (N > 0 && (!dY || !dX)) return AG_ERROR(AG_EINVAL, "activation backward: NULL dY or dX");
    ag_act_grad(layer->cfg.kind, layer->cfg.slope, layer->cfg.alpha, layer->x_cache, dY, dX, N * layer->cfg.dim);
    return AG_SUCCESS;
}
