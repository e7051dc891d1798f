/*
 * dropout.c: inverted dropout with counter-based masks (the mask is a pure function of
 * seed, stream and element index, so any thread may draw any element).
 */
#include <math.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"
#include "rng_internal.h"

ag_error_t ag_dropout_init(ag_dropout_t *layer, const ag_dropout_config_t *cfg, uint64_t seed) {
    (void)seed;
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
    if (!cfg || cfg->dim <= 0)
        return AG_ERROR(AG_EINVAL, "dropout: dim must be positive (%lld)", cfg ? (long long)cfg->dim : 0LL);
    if (!(cfg->p >= 0.0f && cfg->p <= 1.0f))
        return AG_ERROR(AG_EINVAL, "dropout: probability %g is not in [0, 1]", (double)cfg->p);
    layer->cfg = *cfg;
    return AG_SUCCESS;
}

void ag_dropout_destroy(ag_dropout_t *layer) {
    if (!layer) return;
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
}

ag_error_t ag_dropout_params(ag_dropout_t *layer, ag_param_list_t *list, const char *prefix) {
    (void)layer;
    (void)list;
    (void)prefix;
    return AG_SUCCESS;
}

int ag_dropout_keep(uint64_t seed, uint64_t stream, uint64_t k, float p) {
    return ag_rng_uniform(seed, stream, k) >= p;
}

/* out[k0..k1) (+)= keep(k) ? in[k] * scale : 0. The draw u = m / 2^24 (m: the hash's 24 high bits)
 * is kept when u >= p, that is when m >= thr = ceil(p 2^24) (p 2^24 is exact in float): an
 * integer comparison without a branch, which vectorises. A +0 input gives +0 either way. */
AG_CLONES static void mask_range(uint64_t base, uint64_t thr, float scale, const float *restrict in,
                                 float *restrict out, int64_t k0, int64_t k1, int accumulate) {
    if (accumulate) {
        for (int64_t k = k0; k < k1; k++) {
            uint64_t m = ag_i_rng_mix(base ^ (uint64_t)k) >> 40;
            out[k] += m >= thr ? in[k] * scale : 0.0f;
        }
    } else {
        for (int64_t k = k0; k < k1; k++) {
            uint64_t m = ag_i_rng_mix(base ^ (uint64_t)k) >> 40;
            out[k] = m >= thr ? in[k] * scale : 0.0f;
        }
    }
}

/* Elements per call of mask_range: fixed, so the work split does not depend on the thread count
 * (each element's value does not either). */
#define MASK_BLOCK 4096

/* out[k] (+)= keep(k) ? in[k] * scale : 0, keep(k) = ag_dropout_keep(seed, stream, k, p); with
 * p = 1 nothing is kept. */
static void apply_mask(uint64_t seed, uint64_t stream, float p, const float *in, float *out, int64_t n,
                       int accumulate) {
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    uint64_t base = ag_i_rng_base(seed, stream); /* the draws of ag_dropout_keep(), hashed once */
    uint64_t thr = (uint64_t)ceilf(p * 16777216.0f);
    int64_t nb = (n + MASK_BLOCK - 1) / MASK_BLOCK;
#pragma omp parallel for schedule(static) if (n > 16384) num_threads(ag_threads_get())
    for (int64_t b = 0; b < nb; b++) {
        int64_t k0 = b * MASK_BLOCK, k1 = k0 + MASK_BLOCK < n ? k0 + MASK_BLOCK : n;
        mask_range(base, thr, scale, in, out, k0, k1, accumulate);
    }
}

ag_error_t ag_dropout_forward(ag_dropout_t *layer, const float *X, float *Y, int64_t N, int training,
                              ag_rng_t *rng) {
    AG_CHECK(ag_i_check_forward("dropout", X, Y, N));
    int64_t n = N * layer->cfg.dim;
    int drops = training && layer->cfg.p > 0.0f;
    if (drops && !rng) return AG_ERROR(AG_EINVAL, "dropout forward: training with p = %g needs an rng", (double)layer->cfg.p);
    layer->cached_rows = N;
    layer->cached_training = drops;
    if (!drops) {
        if (Y != X && n > 0) memmove(Y, X, (size_t)n * sizeof(float));
        return AG_SUCCESS;
    }
    layer->seed = rng->seed;
    layer->stream = ag_rng_next_stream(rng);
    apply_mask(layer->seed, layer->stream, layer->cfg.p, X, Y, n, 0);
    return AG_SUCCESS;
}

ag_error_t ag_dropout_backward(ag_dropout_t *layer, const float *dY, float *dX, int64_t N) {
    if (layer->cached_rows < 0 || layer->cached_rows != N)
        return AG_ERROR(AG_EINVAL, "dropout backward: no forward with %lld rows", (long long)N);
    if (N > 0 && (!dY || !dX)) return AG_ERROR(AG_EINVAL, "dropout backward: NULL dY or dX");
    int64_t n = N * layer->cfg.dim;
    if (!layer->cached_training) {
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
        for (int64_t k = 0; k < n; k++) dX[k] += dY[k];
        return AG_SUCCESS;
    }
    apply_mask(layer->seed, layer->stream, layer->cfg.p, dY, dX, n, 1);
    return AG_SUCCESS;
}
