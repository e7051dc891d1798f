/*
 * dropout.c: inverted dropout with counter-based masks (the mask is a pure function of
 * seed, stream and element index, so any thread may draw any element).
 */
#include <math.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"

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

/* out[k] (+)= keep(k) ? in[k] * scale : 0; with p = 1 nothing is kept. */
static void apply_mask(uint64_t seed, uint64_t stream, float p, const float *in, float *out, int64_t n,
                       int accumulate) {
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t k = 0; k < n; k++) {
        /* +0 gives +0 kept or dropped: skip its draw (Cora's input is 98.7% zeros, and the draw
         * costs more than everything else of the element) */
        float x = in[k];
        float v = (x == 0.0f && !signbit(x)) ? 0.0f : ag_dropout_keep(seed, stream, (uint64_t)k, p) ? x * scale : 0.0f;
        if (accumulate) out[k] += v;
        else out[k] = v;
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
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t k = 0; k < n; k++) dX[k] += dY[k];
        return AG_SUCCESS;
    }
    apply_mask(layer->seed, layer->stream, layer->cfg.p, dY, dX, n, 1);
    return AG_SUCCESS;
}
