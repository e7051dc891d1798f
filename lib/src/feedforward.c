/*
 * feedforward.c: the Transformer's position-wise feed-forward block,
 * Y = Linear2(Dropout(act(Linear1(X)))), applied to every node (row) independently.
 */
#include <stdio.h>
#include <string.h>
#include "attngraph/layers.h"
#include "internal.h"
#include "layers_internal.h"

void ag_ffn_config_default(ag_ffn_config_t *cfg, int64_t dim) {
    memset(cfg, 0, sizeof *cfg);
    cfg->dim = dim;
    cfg->hidden = 4 * dim;
    cfg->act = AG_ACT_GELU;
    cfg->slope = 0.01f;
    cfg->alpha = 1.0f;
    cfg->dropout = 0.0f;
    cfg->bias = 1;
}

ag_error_t ag_ffn_init(ag_ffn_t *layer, const ag_ffn_config_t *cfg, uint64_t seed) {
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
    if (!cfg || cfg->dim <= 0 || cfg->hidden <= 0)
        return AG_ERROR(AG_EINVAL, "feed-forward block: sizes must be positive (dim %lld, hidden %lld)",
                        cfg ? (long long)cfg->dim : 0LL, cfg ? (long long)cfg->hidden : 0LL);
    if (!ag_act_name(cfg->act)) return AG_ERROR(AG_EINVAL, "feed-forward block: unknown activation %d", (int)cfg->act);
    layer->cfg = *cfg;
    ag_linear_config_t l1 = {cfg->dim, cfg->hidden, cfg->bias}, l2 = {cfg->hidden, cfg->dim, cfg->bias};
    ag_dropout_config_t dc = {cfg->hidden, cfg->dropout};
    ag_error_t rc = ag_dropout_init(&layer->drop, &dc, seed);
    if (rc == AG_SUCCESS) rc = ag_linear_init(&layer->lin1, &l1, ag_rng_u64(seed, 1, 0));
    if (rc == AG_SUCCESS) rc = ag_linear_init(&layer->lin2, &l2, ag_rng_u64(seed, 2, 0));
    if (rc != AG_SUCCESS) ag_ffn_destroy(layer);
    return rc;
}

void ag_ffn_destroy(ag_ffn_t *layer) {
    if (!layer) return;
    ag_linear_destroy(&layer->lin1);
    ag_linear_destroy(&layer->lin2);
    ag_dropout_destroy(&layer->drop);
    ag_i_free(layer->x_cache);
    ag_i_free(layer->h);
    ag_i_free(layer->a);
    ag_i_free(layer->da);
    memset(layer, 0, sizeof *layer);
    layer->cached_rows = -1;
}

ag_error_t ag_ffn_params(ag_ffn_t *layer, ag_param_list_t *list, const char *prefix) {
    char sub[AG_PARAM_NAME_MAX];
    const char *p = prefix ? prefix : "";
    int n = snprintf(sub, sizeof sub, "%s%slin1", p, p[0] ? "." : "");
    if (n < 0 || (size_t)n >= sizeof sub) return AG_ERROR(AG_EINVAL, "feed-forward block: prefix '%s' is too long", p);
    AG_CHECK(ag_linear_params(&layer->lin1, list, sub));
    snprintf(sub, sizeof sub, "%s%slin2", p, p[0] ? "." : "");
    AG_CHECK(ag_linear_params(&layer->lin2, list, sub));
    return AG_SUCCESS;
}

/* Y = Linear2(Dropout(act(Linear1(X)))) through the hidden buffers h and a (N x Hd each). */
static ag_error_t ffn_run(ag_ffn_t *layer, const float *X, float *Y, int64_t N, int training, ag_rng_t *rng,
                          float *h, float *a) {
    const ag_ffn_config_t *c = &layer->cfg;
    ag_i_linear_apply(&layer->lin1, X, h, N);                                      /* (N x Hd) */
    ag_act_apply(c->act, c->slope, c->alpha, h, a, N * c->hidden);                  /* (N x Hd) */
    AG_CHECK(ag_dropout_forward(&layer->drop, a, a, N, training, rng));
    ag_i_linear_apply(&layer->lin2, a, Y, N);                                      /* (N x F) */
    return AG_SUCCESS;
}

ag_error_t ag_i_ffn_forward_ws(ag_ffn_t *layer, const float *X, float *Y, int64_t N, float *h, float *a) {
    AG_CHECK(ag_i_check_forward("feed-forward", X, Y, N));
    if (N > 0 && (!h || !a)) return AG_ERROR(AG_EINVAL, "feed-forward forward: NULL workspace");
    layer->cached_rows = -1; /* h and a are the caller's: nothing stays for a backward */
    return ffn_run(layer, X, Y, N, 0, NULL, h, a);
}

ag_error_t ag_ffn_forward(ag_ffn_t *layer, const float *X, float *Y, int64_t N, int training, ag_rng_t *rng) {
    AG_CHECK(ag_i_check_forward("feed-forward", X, Y, N));
    int64_t F = layer->cfg.dim, Hd = layer->cfg.hidden, cap = layer->cap_rows;
    layer->cached_rows = -1;
    /* The block keeps its own activations (what PyTorch keeps: input, pre-activation, dropped
     * activation) and calls the linears' cache-free kernels, so nothing is stored twice. */
    /* The pre-activation and activation are the forward's own workspace and grow together under
     * one capacity; the input copy and the backward scratch exist for a backward only, so a model
     * that only predicts (a large graph's inference) never allocates them. */
    const int64_t tcap = layer->cap_train_rows;
    if (training) {
        AG_CHECK(ag_i_cache_grow(&layer->x_cache, tcap, N, F, "feed-forward input cache"));
        AG_CHECK(ag_i_cache_grow(&layer->da, tcap, N, Hd, "feed-forward gradient scratch"));
    }
    AG_CHECK(ag_i_cache_grow(&layer->h, cap, N, Hd, "feed-forward hidden cache"));
    AG_CHECK(ag_i_cache_grow(&layer->a, cap, N, Hd, "feed-forward activation cache"));
    /* capacities only once every buffer is in place: after a failed allocation, the next call
     * allocates them all again rather than trusting a buffer smaller than its capacity says */
    if (N > cap) layer->cap_rows = N;
    if (training && N > tcap) layer->cap_train_rows = N;
    if (training && N > 0) memcpy(layer->x_cache, X, (size_t)(N * F) * sizeof(float));
    AG_CHECK(ffn_run(layer, X, Y, N, training, rng, layer->h, layer->a));
    if (training) layer->cached_rows = N;
    return AG_SUCCESS;
}

ag_error_t ag_ffn_backward(ag_ffn_t *layer, const float *dY, float *dX, int64_t N) {
    if (layer->cached_rows < 0 || layer->cached_rows != N)
        return AG_ERROR(AG_EINVAL, "feed-forward backward: no training forward with %lld rows cached", (long long)N);
    if (N > 0 && !dY) return AG_ERROR(AG_EINVAL, "feed-forward backward: NULL dY");
    int64_t Hd = layer->cfg.hidden;
    const ag_ffn_config_t *c = &layer->cfg;
    if (N == 0) return AG_SUCCESS;
    float *da = layer->da; /* (N x Hd) */
    memset(da, 0, (size_t)(N * Hd) * sizeof(float));
    ag_i_linear_grad(&layer->lin2, layer->a, dY, da, N);
    /* Through dropout in place: da = mask(da) / (1 - p), then through the activation into h's
     * gradient. Reusing `a` for dh is safe: Linear2's gradient has already consumed it. */
    float *dh = layer->a;
    memset(dh, 0, (size_t)(N * Hd) * sizeof(float));
    AG_CHECK(ag_dropout_backward(&layer->drop, da, dh, N));
    memset(da, 0, (size_t)(N * Hd) * sizeof(float));
    ag_act_grad(c->act, c->slope, c->alpha, layer->h, dh, da, N * Hd);
    ag_i_linear_grad(&layer->lin1, layer->x_cache, da, dX, N);
    /* `a` now holds a gradient: a second backward without a new forward would be wrong. */
    layer->cached_rows = -1;
    return AG_SUCCESS;
}
