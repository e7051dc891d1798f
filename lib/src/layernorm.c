/*
 * layernorm.c: layer normalisation over the features of each row (Ba, Kiros and Hinton 2016).
 */
#include <math.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"

/* The forward's rows are compiled for AVX-512, AVX2 and the baseline, chosen at load time; each
 * clone does the same operations in the same order (no fused multiply-adds in ISO C mode), so the
 * results do not depend on which one runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define AG_LN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AG_LN_CLONES
#endif

/* Lanes of the row sums: feature c goes to lane c % LANES, the lanes are added in a fixed tree.
 * A fixed order the compiler can vectorise (a single running sum cannot be reordered), and the
 * same for any thread count. */
#define LANES 8

static inline __attribute__((always_inline)) double lane_total(const double *s) {
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* Rows [0, n) of X (n x F) normalised into Y; mean and rstd (n) kept when not NULL. Two passes in
 * double: the variance of features with a large common offset stays exact. */
AG_LN_CLONES static void ln_rows(const float *X, float *Y, int64_t n, int64_t F, const float *gamma,
                                 const float *beta, float eps, float *mean, float *rstd) {
    for (int64_t r = 0; r < n; r++) {
        const float *x = X + r * F;
        float *y = Y + r * F;
        double s[LANES] = {0}, q[LANES] = {0};
        int64_t c = 0;
        for (; c + LANES <= F; c += LANES)
            for (int l = 0; l < LANES; l++) s[l] += (double)x[c + l];
        for (int l = 0; c + l < F; l++) s[l] += (double)x[c + l];
        double m = lane_total(s) / (double)F;
        for (c = 0; c + LANES <= F; c += LANES)
            for (int l = 0; l < LANES; l++) {
                double d = (double)x[c + l] - m;
                q[l] += d * d;
            }
        for (int l = 0; c + l < F; l++) {
            double d = (double)x[c + l] - m;
            q[l] += d * d;
        }
        double v = lane_total(q) / (double)F;
        float mf = (float)m, rs = (float)(1.0 / sqrt(v + (double)eps));
        for (c = 0; c < F; c++) y[c] = (x[c] - mf) * rs * gamma[c] + beta[c];
        if (mean) {
            mean[r] = mf;
            rstd[r] = rs;
        }
    }
}

ag_error_t ag_layernorm_init(ag_layernorm_t *layer, const ag_layernorm_config_t *cfg, uint64_t seed) {
    (void)seed;
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
    if (!cfg || cfg->dim <= 0)
        return AG_ERROR(AG_EINVAL, "layer norm: dim must be positive (%lld)", cfg ? (long long)cfg->dim : 0LL);
    if (isnan(cfg->eps)) return AG_ERROR(AG_EINVAL, "layer norm: eps is NaN");
    layer->cfg = *cfg;
    if (layer->cfg.eps <= 0.0f) layer->cfg.eps = 1e-5f;
    int64_t F = cfg->dim;
    void *p, *g;
    AG_CHECK(ag_i_alloc_array(&p, 2 * F, sizeof(float), "layer norm parameters"));
    ag_error_t rc = ag_i_alloc_array(&g, 2 * F, sizeof(float), "layer norm gradients");
    if (rc != AG_SUCCESS) {
        ag_i_free(p);
        return rc;
    }
    layer->params = p;
    layer->grads = g;
    layer->gamma = layer->params;     /* (F) */
    layer->beta = layer->params + F;  /* (F) */
    layer->dgamma = layer->grads;
    layer->dbeta = layer->grads + F;
    for (int64_t c = 0; c < F; c++) layer->gamma[c] = 1.0f;
    return AG_SUCCESS;
}

void ag_layernorm_destroy(ag_layernorm_t *layer) {
    if (!layer) return;
    ag_i_free(layer->params);
    ag_i_free(layer->grads);
    ag_i_free(layer->x_cache);
    ag_i_free(layer->mean);
    ag_i_free(layer->rstd);
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
}

ag_error_t ag_layernorm_params(ag_layernorm_t *layer, ag_param_list_t *list, const char *prefix) {
    AG_CHECK(ag_param_list_add(list, prefix, "gamma", 1, layer->cfg.dim, 1, layer->gamma, layer->dgamma, 0));
    AG_CHECK(ag_param_list_add(list, prefix, "beta", 1, layer->cfg.dim, 1, layer->beta, layer->dbeta, 0));
    return AG_SUCCESS;
}

ag_error_t ag_layernorm_forward(ag_layernorm_t *layer, const float *X, float *Y, int64_t N,
                                int training, ag_rng_t *rng) {
    (void)rng;
    AG_CHECK(ag_i_check_forward("layer norm", X, Y, N));
    int64_t F = layer->cfg.dim;
    /* Nothing cached from here on until this pass succeeds: a growth that fails after the input
     * cache was replaced must not leave a backward of the previous N reading the new buffer. */
    layer->cached_rows = -1;
    if (training) {
        int64_t cap = layer->cap_rows;
        AG_CHECK(ag_i_cache_grow(&layer->x_cache, cap, N, F, "layer norm input cache"));
        AG_CHECK(ag_i_cache_grow(&layer->mean, cap, N, 1, "layer norm mean cache"));
        AG_CHECK(ag_i_cache_grow(&layer->rstd, cap, N, 1, "layer norm rstd cache"));
        if (N > cap) layer->cap_rows = N;
        if (N > 0) memcpy(layer->x_cache, X, (size_t)(N * F) * sizeof(float));
    }
    const float *Xs = training ? layer->x_cache : X; /* Y may alias X: read the copy if there is one */
    float eps = layer->cfg.eps;
    enum { ROWS = 64 };
#pragma omp parallel for schedule(static) if (N * F > 32768) num_threads(ag_threads_get())
    for (int64_t r0 = 0; r0 < N; r0 += ROWS)
        ln_rows(Xs + r0 * F, Y + r0 * F, N - r0 < ROWS ? N - r0 : ROWS, F, layer->gamma, layer->beta, eps,
                training ? layer->mean + r0 : NULL, training ? layer->rstd + r0 : NULL);
    if (training) layer->cached_rows = N;
    return AG_SUCCESS;
}

ag_error_t ag_layernorm_backward(ag_layernorm_t *layer, const float *dY, float *dX, int64_t N) {
    if (layer->cached_rows < 0 || layer->cached_rows != N)
        return AG_ERROR(AG_EINVAL, "layer norm backward: no training forward with %lld rows cached", (long long)N);
    if (N > 0 && !dY) return AG_ERROR(AG_EINVAL, "layer norm backward: NULL dY");
    int64_t F = layer->cfg.dim;
    const float *X = layer->x_cache, *mean = layer->mean, *rstd = layer->rstd, *gamma = layer->gamma;
    if (dX) {
#pragma omp parallel for schedule(static) if (N * F > 32768) num_threads(ag_threads_get())
        for (int64_t r = 0; r < N; r++) {
            const float *x = X + r * F, *dy = dY + r * F;
            float *dx = dX + r * F;
            float m = mean[r], rs = rstd[r];
            double sg = 0.0, sgx = 0.0;
            for (int64_t c = 0; c < F; c++) {
                float xhat = (x[c] - m) * rs;
                float g = dy[c] * gamma[c];
                sg += g;
                sgx += (double)g * xhat;
            }
            float mg = (float)(sg / (double)F), mgx = (float)(sgx / (double)F);
            for (int64_t c = 0; c < F; c++) {
                float xhat = (x[c] - m) * rs;
                dx[c] += rs * (dy[c] * gamma[c] - mg - xhat * mgx);
            }
        }
    }
    /* dgamma and dbeta are sums over rows: per column, rows in order (never split by thread). */
    enum { BLOCK = 16 };
    int64_t nblocks = (F + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) if (N * F > 32768) num_threads(ag_threads_get())
    for (int64_t blk = 0; blk < nblocks; blk++) {
        int64_t c0 = blk * BLOCK, c1 = c0 + BLOCK < F ? c0 + BLOCK : F;
        double ag[BLOCK] = {0}, ab[BLOCK] = {0};
        for (int64_t r = 0; r < N; r++) {
            const float *x = X + r * F, *dy = dY + r * F;
            float m = mean[r], rs = rstd[r];
            for (int64_t c = c0; c < c1; c++) {
                ag[c - c0] += (double)(dy[c] * ((x[c] - m) * rs));
                ab[c - c0] += dy[c];
            }
        }
        for (int64_t c = c0; c < c1; c++) {
            layer->dgamma[c] += (float)ag[c - c0];
            layer->dbeta[c] += (float)ab[c - c0];
        }
    }
    return AG_SUCCESS;
}
