/*
 * activation.c: elementwise nonlinearities (identity, ReLU, LeakyReLU, ELU, exact GELU).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"

#define AG_INV_SQRT2 0.70710678118654752440f
#define AG_INV_SQRT_2PI 0.39894228040143267794f

/* e^v for -87 <= v <= 0: Cody-Waite reduction by ln 2 and a degree-6 Taylor polynomial on
 * |r| <= ln(2)/2 (relative error below 3e-7), branch-free so that loops over it vectorise
 * (glibc's expf and erff are scalar calls). */
static inline __attribute__((always_inline)) float act_exp(float v) {
    float r0 = (v * 1.44269504f + 12582912.0f) - 12582912.0f; /* round to nearest */
    float r = (v - r0 * 0.693145751953125f) - r0 * 1.428606765330187e-06f;
    /* Estrin's scheme: short dependency chains, so that successive vectors overlap (Horner's
     * rule made the GELU loop latency-bound) */
    float r2 = r * r, r4 = r2 * r2;
    float p = ((1.0f + r) + r2 * (0.5f + r * 0.16666667f)) +
              r4 * ((0.041666668f + r * 0.008333334f) + r2 * 0.0013888889f);
    int32_t bits = ((int32_t)r0 + 127) * 8388608; /* 2^r0 */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* Phi(x), the standard normal CDF, that GELU(x) = x Phi(x) needs. With z = |x| / sqrt(2):
 * - z < 1: erf(z) = z g(z^2), g a degree-6 Chebyshev fit (error 1.3e-9 on [0, 1]);
 * - z >= 1: erfc(z) = t exp(P(w) - z^2), t = 1 / (1 + z/2), w = 4 (t - 5/12) in [-1, 1], P a
 *   degree-8 Chebyshev fit of log(erfc(z) / t) + z^2 (error 3.9e-9); zero once the exponent is
 *   below -87 (|x| > 13, where Phi(-|x|) < 1e-38).
 * Phi(x) = 1/2 +- erf(z)/2 or 1 - erfc(z)/2 for x >= 0, erfc(z)/2 for x < 0: the tail below the
 * mean comes from erfc directly, not as the difference 1 + erf(-z) (which loses all relative
 * accuracy there). Checked against a double-precision Phi on every 61st float from 1e-7 to 16
 * of both signs (tests/test_activation.c checks every 257th): absolute error at most 1.53e-7
 * (2.5 units in the last place near 1; libm's 0.5 (1 + erff(x / sqrt 2)) measures 1.04e-7), for
 * x < 0 a relative error below 1.3e-6 down to -5 and 7.7e-6 further out (where the erff form
 * has no relative accuracy left). Coefficients: mpmath.chebyfit (docs/performance.md). */
static inline __attribute__((always_inline)) float act_phi(float x) {
    float z = (x >= 0.0f ? x : -x) * AG_INV_SQRT2;
    float u = 0.5f * (x * x); /* z^2 with one rounding, not two: the tail's exponent */
    float g = 1.12837916585f + u * (-0.376126266667f + u * (0.112835947152f + u * (-0.0268542120106f +
              u * (0.00518908742343f + u * (-0.000801686428717f + u * 7.87587506269e-5f)))));
    float half_erf = 0.5f * (z * g);
    float t = 1.0f / (1.0f + 0.5f * z);
    float w = (t - 0.41666666666666667f) * 4.0f;
    float w2 = w * w, w4 = w2 * w2; /* Estrin's scheme, as in act_exp (g keeps Horner: more accurate near z = 1) */
    float P = (((-0.78237779367494606f + w * 0.32658463504480777f) +
                w2 * (0.017190895837169753f + w * -0.0047604125531478095f)) +
               w4 * ((-0.00100818184358906f + w * 0.00017990717658910383f) +
                     w2 * (6.3882552965343181e-5f + w * -9.5556646124651207e-6f))) +
              (w4 * w4) * -3.7825300279569669e-6f;
    float arg = P - u;
    float e = act_exp(arg > -87.0f ? arg : -87.0f);
    float half_erfc = arg > -87.0f ? 0.5f * (t * e) : 0.0f;
    float upper = z < 1.0f ? 0.5f + half_erf : 1.0f - half_erfc; /* Phi(|x|) */
    float lower = z < 1.0f ? 0.5f - half_erf : half_erfc;        /* Phi(-|x|) */
    return x >= 0.0f ? upper : lower;
}

/* Y = X Phi(X); Y may be X. NaN in, NaN out. (Skipping the tail branch for runs of 16 elements
 * within |x| < sqrt(2) was tried and was slower on the MUTAG model: most runs hold a larger one.) */
AG_CLONES AG_NO_TRAPPING_MATH static void gelu_apply(const float *X, float *Y, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        float x = X[k];
        Y[k] = x * act_phi(x);
    }
}

/* dX += (Phi(X) + X phi(X)) dY, phi the normal density. */
AG_CLONES AG_NO_TRAPPING_MATH static void gelu_grad(const float *X, const float *dY, float *dX, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        float x = X[k];
        float h = -0.5f * (x * x);
        float pdf = AG_INV_SQRT_2PI * act_exp(h > -87.0f ? h : -87.0f);
        pdf = h > -87.0f ? pdf : 0.0f;
        dX[k] += (act_phi(x) + x * pdf) * dY[k];
    }
}

/* e^v - 1 for -87 <= v <= 0, which ELU needs: near 0 (v > -1/2) the Taylor series to degree 9
 * (truncation below 1.1e-9 relative: 0.5^9 / 10!), which keeps the relative accuracy that
 * e^v - 1 would lose to cancellation; further out e^v - 1 with act_exp (|result| >= 0.39, so
 * act_exp's 3e-7 relative error stays below 5e-7 of the result). Branch-free, so ELU's loop
 * vectorises (glibc's expm1f is a scalar call: 2/3 of a GAT model's inference, MUTAG profile). */
static inline __attribute__((always_inline)) float act_expm1_neg(float v) {
    float v2 = v * v, v4 = v2 * v2;
    float p = ((v + v2 * 0.5f) + v2 * v * (0.16666667f + v * 0.041666668f)) +
              v4 * v * ((0.008333334f + v * 0.0013888889f) + v2 * (1.984127e-4f + v * 2.4801587e-5f)) +
              (v4 * v4) * v * 2.7557319e-6f;
    float e = act_exp(v) - 1.0f;
    return v > -0.5f ? p : e;
}

/* Y = X for X > 0, alpha (e^X - 1) otherwise; Y may be X. NaN in, NaN out. */
AG_CLONES AG_NO_TRAPPING_MATH static void elu_apply(const float *X, float *Y, int64_t n, float alpha) {
    for (int64_t k = 0; k < n; k++) {
        float x = X[k];
        float c = x > -87.0f ? x : -87.0f; /* a NaN becomes -87 here and is passed through below */
        c = c < 0.0f ? c : 0.0f;
        float y = x > 0.0f ? x : alpha * act_expm1_neg(c);
        Y[k] = x == x ? y : x;
    }
}

/* dX += dY for X > 0, alpha e^X dY otherwise (0 below -87, where e^X is below FLT_MIN). */
AG_CLONES AG_NO_TRAPPING_MATH static void elu_grad(const float *X, const float *dY, float *dX, int64_t n,
                                                          float alpha) {
    for (int64_t k = 0; k < n; k++) {
        float x = X[k];
        float c = x > -87.0f ? x : -87.0f;
        c = c < 0.0f ? c : 0.0f;
        float e = x > -87.0f ? act_exp(c) : 0.0f;
        float g = x > 0.0f ? dY[k] : (alpha * e) * dY[k];
        dX[k] += x == x ? g : x;
    }
}

/* GELU's elementwise work in blocks of this many, shared between threads (any split gives the same
 * bits: every element is computed on its own). */
#define AG_ACT_BLOCK 4096

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

/* Y = f(X) on one block of n elements (one thread). */
static void act_block(ag_act_kind_t kind, float slope, float alpha, const float *X, float *Y, int64_t n) {
    switch (kind) {
    case AG_ACT_IDENTITY:
        if (Y != X && n > 0) memmove(Y, X, (size_t)n * sizeof(float));
        break;
    case AG_ACT_RELU:
        for (int64_t k = 0; k < n; k++) Y[k] = X[k] > 0.0f ? X[k] : 0.0f;
        break;
    case AG_ACT_LEAKY_RELU:
        for (int64_t k = 0; k < n; k++) Y[k] = X[k] > 0.0f ? X[k] : slope * X[k];
        break;
    case AG_ACT_ELU: elu_apply(X, Y, n, alpha); break;
    case AG_ACT_GELU: gelu_apply(X, Y, n); break;
    }
}

/* Every element is computed on its own, so any split into blocks and threads gives the same bits. */
void ag_act_apply(ag_act_kind_t kind, float slope, float alpha, const float *X, float *Y, int64_t n) {
#pragma omp parallel for schedule(static) if (n > 4 * AG_ACT_BLOCK) num_threads(ag_threads_get())
    for (int64_t b = 0; b < n; b += AG_ACT_BLOCK)
        act_block(kind, slope, alpha, X + b, Y + b, n - b < AG_ACT_BLOCK ? n - b : AG_ACT_BLOCK);
}

void ag_act_apply_add(ag_act_kind_t kind, float slope, float alpha, const float *X, const float *R, float *Y,
                      int64_t n) {
    /* per block, f into Y and then the sum while the block is in L1 (16 KB): one pass over memory
     * instead of an activation pass and a residual pass */
#pragma omp parallel for schedule(static) if (n > 4 * AG_ACT_BLOCK) num_threads(ag_threads_get())
    for (int64_t b = 0; b < n; b += AG_ACT_BLOCK) {
        int64_t m = n - b < AG_ACT_BLOCK ? n - b : AG_ACT_BLOCK;
        act_block(kind, slope, alpha, X + b, Y + b, m);
        for (int64_t k = b; k < b + m; k++) Y[k] = Y[k] + R[k];
    }
}

void ag_act_grad(ag_act_kind_t kind, float slope, float alpha, const float *X, const float *dY,
                 float *dX, int64_t n) {
    switch (kind) {
    case AG_ACT_IDENTITY:
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
        for (int64_t k = 0; k < n; k++) dX[k] += dY[k];
        break;
    case AG_ACT_RELU:
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
        for (int64_t k = 0; k < n; k++) dX[k] += X[k] > 0.0f ? dY[k] : 0.0f;
        break;
    case AG_ACT_LEAKY_RELU:
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
        for (int64_t k = 0; k < n; k++) dX[k] += X[k] > 0.0f ? dY[k] : slope * dY[k];
        break;
    case AG_ACT_ELU:
#pragma omp parallel for schedule(static) if (n > 4 * AG_ACT_BLOCK) num_threads(ag_threads_get())
        for (int64_t b = 0; b < n; b += AG_ACT_BLOCK)
            elu_grad(X + b, dY + b, dX + b, n - b < AG_ACT_BLOCK ? n - b : AG_ACT_BLOCK, alpha);
        break;
    case AG_ACT_GELU:
        /* d/dx x Phi(x) = Phi(x) + x phi(x). */
#pragma omp parallel for schedule(static) if (n > 4 * AG_ACT_BLOCK) num_threads(ag_threads_get())
        for (int64_t b = 0; b < n; b += AG_ACT_BLOCK)
            gelu_grad(X + b, dY + b, dX + b, n - b < AG_ACT_BLOCK ? n - b : AG_ACT_BLOCK);
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
